package fileio_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

// TestGrepParallelAnswersAsSerial checks that matching fetched files on several CPUs changes no
// answer: every page (entries, truncation, cursor, note, scanned counts) of every request is
// the same as when each file is matched in turn, through limits, cursors, the scan budget and
// the answer cap, in all three modes.
func TestGrepParallelAnswersAsSerial(t *testing.T) {
	prose := grepbench.NewProse(300, 1<<20, 7)
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	cfg.MaxProjectBytes = 1 << 30
	cfg.GrepMaxScanBytes = 1 << 20
	cfg.GrepMaxAnswerBytes = 16 << 10
	// The pages are compared, not timed: budgets no loaded machine reaches, so that only the
	// byte and answer bounds stop a page (a page stopped by time would differ between runs).
	cfg.GrepTimeout, cfg.CallTimeout = time.Hour, time.Hour
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("test-key", "test"))
	write := func(path, content string) {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range prose.Files {
		write(f.Path, string(f.Content))
	}
	// A file larger than a chunk, so that budgets stop part way through it, one with a byte
	// order mark and a binary one.
	var big strings.Builder
	for i := range 25000 {
		fmt.Fprintf(&big, "line %d of the big file, 2024-%02d, %s\n", i, i%13, prose.Files[i%len(prose.Files)].Path)
	}
	write("/docs/s5/big.md", big.String())
	write("/docs/s5/bom.md", "\uFEFFthe first line\nand the second\n")
	write("/docs/s5/blob.bin", "the\x00binary")

	word := prose.Word(0.05)
	patterns := []fileio.GrepRequest{
		{Pattern: word},
		{Pattern: strings.ToUpper(word), IgnoreCase: true},
		{Pattern: "the"},
		{Pattern: `[0-9]{4}-[0-9]{2}`},
		{Pattern: `^the\b`},
		{Pattern: `\w+ing\b`},
	}
	// Three of the patterns by default, each in every mode and at every limit (all six with
	// AGENTFILES_FULL=1).
	patterns = testsize.Sample(t, patterns, 3)
	// The first pages of a request, up to 25.
	pages := func(req fileio.GrepRequest) []fileio.GrepResult {
		var out []fileio.GrepResult
		for len(out) < 25 {
			res, err := svc.Grep(ctx, req)
			if err != nil {
				t.Fatalf("Grep(%+v): %v", req, err)
			}
			out = append(out, res)
			if !res.Truncated {
				return out
			}
			req.Cursor = res.NextCursor
		}
		return out
	}
	// Which bounds stopped a page: each must have, or the test proves less than it says.
	stoppedBy := map[string]int{}
	for _, p := range patterns {
		for _, mode := range []fileio.GrepOutputMode{fileio.GrepContent, fileio.GrepFilesWithMatches, fileio.GrepCount} {
			for _, limit := range []int{1, 7, 1000} {
				req := p
				req.Project, req.OutputMode, req.Limit, req.Context = "p", mode, limit, 1
				restore := fileio.SetGrepParallelBytes(math.MaxInt)
				serial := pages(req)
				fileio.SetGrepParallelBytes(0)
				par := pages(req)
				restore()
				for _, res := range serial {
					for _, why := range []string{"entries are shown", "bytes of file content", "size cap", "lines were not searched"} {
						if strings.Contains(res.Note, why) {
							stoppedBy[why]++
						}
					}
				}
				if diff := cmp.Diff(serial, par); diff != "" {
					t.Errorf("%q ignore case %v, %s, limit %d: parallel pages differ (-serial +parallel):\n%s",
						req.Pattern, req.IgnoreCase, mode, limit, diff)
				}
			}
		}
	}
	for _, why := range []string{"entries are shown", "bytes of file content", "size cap"} {
		if stoppedBy[why] == 0 {
			t.Errorf("no page stopped because %q: the test does not cover that bound", why)
		}
	}
}
