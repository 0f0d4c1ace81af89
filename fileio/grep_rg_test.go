package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// ripgrep returns the path to rg, skipping the test when it is missing (failing it when
// AGENTFILES_REQUIRE_SERVICES is set).
func ripgrep(t *testing.T) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("AGENTFILES_REQUIRE_SERVICES") != "" {
			t.Fatalf("ripgrep (rg) is not installed; install the Debian package ripgrep: %v", err)
		}
		t.Skip("ripgrep (rg) is not installed; install the Debian package ripgrep")
	}
	return rg
}

// TestGrepAgreesWithRipgrep writes random files (ASCII, UTF-8, CRLF, long lines, dot
// directories) both to a directory and to a memstore project (which also gets files with NUL
// bytes), and checks that Grep finds
// the same lines as rg --no-config --hidden -n (with -F, -i, -g) for random patterns. The
// patterns avoid \b, \w and \s, which Go's RE2 defines over ASCII and ripgrep over Unicode.
func TestGrepAgreesWithRipgrep(t *testing.T) {
	rg := ripgrep(t)
	rng := rand.New(rand.NewPCG(7, 26))
	files := storetest.RandomGrepFiles(rng, 60)
	dir := t.TempDir()
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: noRateLimit()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-rg", "rg"))
	for p, c := range files {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "rg", Path: p, Content: c, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c, "\x00") {
			// Grep skips a file with a NUL byte; rg stops at the NUL but reports the matches
			// before it, so such files stay out of its directory: both then report nothing.
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compared := 0
	for i := 0; compared < 80 && i < 400; i++ {
		pattern := storetest.RandomGrepPattern(rng)
		if strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\s`) || strings.Contains(pattern, `\n`) {
			continue
		}
		req := fileio.GrepRequest{Project: "rg", Pattern: pattern, IgnoreCase: rng.IntN(3) == 0, FixedStrings: rng.IntN(5) == 0,
			Limit: 1000}
		if rng.IntN(3) == 0 {
			req.Glob = []string{"*.md", "**/*.txt", "d1/**", "*.go", "!*.md", "!d1/**"}[rng.IntN(6)]
		}
		want, ok := runRipgrep(t, rg, dir, req)
		if !ok {
			continue // rg rejects the pattern
		}
		var got []string
		for {
			res, err := svc.Grep(ctx, req)
			if err != nil {
				t.Fatalf("Grep %+v: %v", req, err)
			}
			for _, m := range res.Matches {
				got = append(got, m.Path+":"+strconv.Itoa(m.LineNumber))
			}
			if !res.Truncated {
				break
			}
			req.Cursor = res.NextCursor
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pattern %q -i=%v -F=%v -g=%q: (-rg +Grep):\n%s", req.Pattern, req.IgnoreCase, req.FixedStrings, req.Glob, diff)
		}
		compared++
	}
	if compared < 40 {
		t.Fatalf("only %d patterns were compared", compared)
	}
}

// runRipgrep runs rg over dir and returns "path:line" of every match, sorted by path and line;
// false when rg rejects the pattern.
func runRipgrep(t *testing.T, rg, dir string, req fileio.GrepRequest) ([]string, bool) {
	t.Helper()
	args := []string{"--no-config", "--hidden", "-n", "--no-heading", "--with-filename", "--null", "--color=never"}
	if req.IgnoreCase {
		args = append(args, "-i")
	}
	if req.FixedStrings {
		args = append(args, "-F")
	}
	if req.Glob != "" {
		args = append(args, "-g", req.Glob)
	}
	args = append(args, "-e", req.Pattern, "--", ".")
	cmd := exec.Command(rg, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return nil, true // no match
	case errors.As(err, &exit):
		return nil, false
	case err != nil:
		t.Fatalf("rg: %v", err)
	}
	type hit struct {
		path string
		line int
	}
	var hits []hit
	for _, rec := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		path, rest, ok := bytes.Cut(rec, []byte{0})
		if !ok {
			t.Fatalf("rg output line without NUL: %q", rec)
		}
		num, _, _ := bytes.Cut(rest, []byte(":"))
		n, err := strconv.Atoi(string(num))
		if err != nil {
			t.Fatalf("rg output line %q: %v", rec, err)
		}
		hits = append(hits, hit{"/" + strings.TrimPrefix(string(path), "./"), n})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return a.line - b.line
	})
	outStr := make([]string, len(hits))
	for i, h := range hits {
		outStr[i] = h.path + ":" + strconv.Itoa(h.line)
	}
	return outStr, true
}

// noRateLimit is DefaultConfig without a rate limit: tests make many calls quickly.
func noRateLimit() fileio.Config {
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	return cfg
}
