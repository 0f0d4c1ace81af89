package memstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/google/go-cmp/cmp"
)

// grepBenchQueries are the file_grep benchmark's patterns over the GOROOT/src corpus: a rare
// literal (two files), a regular expression with literal text (about a hundred files), and one
// whose only literal is short and common.
var grepBenchQueries = []struct {
	name, pattern string
}{
	{"RareLiteral", "maxConsecutiveEmptyReads"},
	{"Regexp", `func \(\w+ \*\w+\) Close\(\) error`},
	{"CommonRegexp", `TODO\(\w+\)`},
}

// BenchmarkGrepVsRipgrep: Service.Grep (files_with_matches) on a memstore project holding about
// 3,000 files / 30 MB of real text, against rg -l over the same files on disk, alternately in
// one loop; x_rg is the ratio of their times (rg's includes starting the process, as an agent
// that shells out pays it).
func BenchmarkGrepVsRipgrep(b *testing.B) {
	files := grepbench.Corpus(b, 1000, 3000, 30<<20)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, files)
	store := memstore.New(memstore.Options{})
	svc := storetest.NewService(b, store, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 30 })
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
	for _, f := range files {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "corpus", Path: f.Path, Content: string(f.Content), Mode: fileio.ModeTruncate}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("corpus: %d files, %d bytes", len(files), grepbench.Bytes(files))
	for _, q := range grepBenchQueries {
		b.Run(q.name, func(b *testing.B) {
			req := fileio.GrepRequest{Project: "corpus", Pattern: q.pattern, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}
			var ours, ref time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := svc.Grep(ctx, req)
				ours += time.Since(start)
				if err != nil || res.Truncated {
					b.Fatalf("Grep: %+v, %v", res, err)
				}
				rg, took := grepbench.Ripgrep(b, dir, "-l", "-e", q.pattern, ".")
				ref += took
				if i == 0 {
					compareWithRipgrep(b, res.Files, rg)
				}
			}
			reportVsRipgrep(b, ours, ref)
		})
	}
}

// BenchmarkGrepProseVsRipgrep is BenchmarkGrepVsRipgrep on generated Markdown prose
// (grepbench.NewProse: 3,112 files, 33 MB, English byte frequencies), a corpus the matcher was
// not tuned on, in files_with_matches (vs rg -l) and count (vs rg -c) modes: a literal in
// about 20 files, the same literal ignoring case, an alternation of two such literals, a
// regular expression with literal text, and two patterns with no literal at all. cpu_x_rg is the
// ratio of CPU time (ours in this process, rg's in its process), which a busy machine
// distorts less than wall time.
func BenchmarkGrepProseVsRipgrep(b *testing.B) {
	prose := grepbench.NewProse(3112, 33<<20, 1)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, prose.Files)
	store := memstore.New(memstore.Options{})
	svc := storetest.NewService(b, store, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 30 })
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
	for _, f := range prose.Files {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "prose", Path: f.Path, Content: string(f.Content), Mode: fileio.ModeTruncate}); err != nil {
			b.Fatal(err)
		}
	}
	rare, rare2, common := prose.Word(0.006), prose.Word(0.007), prose.Word(0.05)
	b.Logf("corpus: %d files, %d bytes; words %q %q %q", len(prose.Files), grepbench.Bytes(prose.Files), rare, rare2, common)
	queries := []struct {
		name, pattern string
		ignoreCase    bool
	}{
		{"Literal", rare, false},
		{"IgnoreCase", strings.ToUpper(rare[:1]) + rare[1:], true},
		{"Alternation", "(" + rare + "|" + rare2 + ")", false},
		{"Regexp", common + `\s+\w+ing`, false},
		{"NoLiteral", `[0-9]{4}-[0-9]{2}`, false},
		{"NoLiteralClass", `[0-9]{4}`, false},
	}
	b.Run("HTTP/Literal/files_with_matches", func(b *testing.B) {
		benchGrepHTTP(b, svc, dir, fileio.GrepRequest{Project: "prose", Pattern: rare, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000})
	})
	for _, q := range queries {
		for _, mode := range []fileio.GrepOutputMode{fileio.GrepFilesWithMatches, fileio.GrepCount} {
			b.Run(q.name+"/"+string(mode), func(b *testing.B) {
				req := fileio.GrepRequest{Project: "prose", Pattern: q.pattern, IgnoreCase: q.ignoreCase, OutputMode: mode, Limit: 1000}
				args := []string{"-l"}
				if mode == fileio.GrepCount {
					args = []string{"-c"}
				}
				if q.ignoreCase {
					args = append(args, "-i")
				}
				args = append(args, "-e", q.pattern, ".")
				var ours, ref, oursCPU, refCPU time.Duration
				for i := 0; i < b.N; i++ {
					start, cpu := time.Now(), cpuTime(syscall.RUSAGE_SELF)
					res, err := svc.Grep(ctx, req)
					ours += time.Since(start)
					oursCPU += cpuTime(syscall.RUSAGE_SELF) - cpu
					if err != nil || res.Truncated {
						b.Fatalf("Grep: %+v, %v", res, err)
					}
					cpu = cpuTime(syscall.RUSAGE_CHILDREN)
					rg, took := grepbench.Ripgrep(b, dir, args...)
					ref += took
					refCPU += cpuTime(syscall.RUSAGE_CHILDREN) - cpu
					if i == 0 {
						got := res.Files
						if mode == fileio.GrepCount {
							got = nil
							for _, c := range res.Counts {
								got = append(got, c.Path+":"+strconv.Itoa(c.Count))
							}
						}
						compareWithRipgrep(b, got, rg)
					}
				}
				reportVsRipgrep(b, ours, ref)
				b.ReportMetric(float64(oursCPU)/float64(refCPU), "cpu_x_rg")
			})
		}
	}
}

// cpuTime is the user and system CPU time of this process (syscall.RUSAGE_SELF) or of its
// waited-for children (syscall.RUSAGE_CHILDREN) so far. Unlike wall time it hardly depends on
// what else the machine runs, so cpu_x_rg compares the work done on a busy machine too.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchGrepHTTP times req through the HTTP API (POST /tools/file_grep on an httptest server,
// JSON both ways; ms/grep), the same call on the Service directly (ms/service) and rg -l over
// dir, alternately: x_rg is HTTP's time over rg's, and ms/grep - ms/service what the HTTP and
// JSON layers add.
func benchGrepHTTP(b *testing.B, svc *fileio.Service, dir string, req fileio.GrepRequest) {
	auth := agentfiles.NewAuthContext("bench-key", "bench")
	srv := httptest.NewServer(httpapi.NewHandler(fileiotools.Tools(svc), httpapi.Options{
		Authenticator: func(*http.Request) (agentfiles.AuthContext, error) { return auth, nil },
	}))
	defer srv.Close()
	body, err := json.Marshal(map[string]any{"project": req.Project, "pattern": req.Pattern, "output_mode": req.OutputMode, "limit": req.Limit})
	if err != nil {
		b.Fatal(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), auth)
	var viaHTTP, direct, ref time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		resp, err := srv.Client().Post(srv.URL+"/tools/file_grep", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		var res fileio.GrepResult
		err = json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		viaHTTP += time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK || res.Truncated {
			b.Fatalf("POST /tools/file_grep: %d %+v, %v", resp.StatusCode, res, err)
		}
		start = time.Now()
		if _, err := svc.Grep(ctx, req); err != nil {
			b.Fatal(err)
		}
		direct += time.Since(start)
		rg, took := grepbench.Ripgrep(b, dir, "-l", "-e", req.Pattern, ".")
		ref += took
		if i == 0 {
			compareWithRipgrep(b, res.Files, rg)
		}
	}
	reportVsRipgrep(b, viaHTTP, ref)
	b.ReportMetric(float64(direct.Microseconds())/float64(b.N)/1000, "ms/service")
}

// reportVsRipgrep reports the mean time of our grep and of rg per iteration, and x_rg, the
// ratio of the totals.
func reportVsRipgrep(b *testing.B, ours, ref time.Duration) {
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/grep")
	b.ReportMetric(float64(ref.Microseconds())/float64(b.N)/1000, "ms/rg")
	b.ReportMetric(float64(ours)/float64(ref), "x_rg")
}

// compareWithRipgrep fails b unless rg printed the same files (rg -l) or counts (rg -c).
func compareWithRipgrep(b *testing.B, ours, rg []string) {
	b.Helper()
	want := make([]string, len(rg))
	for i, p := range rg {
		want[i] = "/" + strings.TrimPrefix(p, "./")
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, ours); diff != "" {
		b.Fatalf("files differ from rg -l (-rg +ours):\n%s", diff)
	}
	if len(ours) == 0 {
		b.Fatal("the pattern matches nothing; the benchmark would measure nothing")
	}
}
