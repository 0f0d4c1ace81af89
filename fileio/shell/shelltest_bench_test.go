package shell_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/shell"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// The benchmarks of file_shell against what it replaces: rg -n WORD through the shell against
// rg on a disk copy of the same tree, sed -n '1,200p' against file_read, and one command
// writing 300 files against 300 file_write calls. Each alternates the two sides in one loop
// and reports their ratio (x_ref), on memstore (BenchmarkShellMemory) and PostgreSQL
// (BenchmarkShellPostgres).

// benchCopies is how many times over the GOROOT/src corpus (about 2,000 files / 31 MB) the rg
// benchmark loads: AGENTFILES_SHELL_BENCH_COPIES, default 1; the scale is 10 (300 MB).
func benchCopies() int {
	n, err := strconv.Atoi(os.Getenv("AGENTFILES_SHELL_BENCH_COPIES"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// corpus is the rg benchmark's tree, loaded once per store (a sub-benchmark's function runs
// more than once: first with b.N = 1).
type corpus struct {
	once  sync.Once
	files []grepbench.File
	dir   string // the disk copy: a directory of the parent benchmark, which outlives the runs
	word  string
}

// load reads the corpus, writes its disk copy and imports it into project through
// Service.Import (as a platform loads a workspace: one transaction, new files added to the grep
// index in it on PostgreSQL).
func (c *corpus) load(b *testing.B, svc *fileio.Service, ctx context.Context, project string) {
	c.once.Do(func() {
		c.files = grepbench.Copies(grepbench.Corpus(b, 1000, 3000, 30<<20), benchCopies())
		grepbench.WriteTree(b, c.dir, c.files)
		pr, pw := io.Pipe()
		go func() {
			grepbench.Tar(b, pw, c.files)
			pw.Close()
		}()
		start := time.Now()
		if _, err := svc.Import(ctx, fileio.ImportRequest{Project: project, Archive: pr}); err != nil {
			b.Fatal(err)
		}
		c.word = grepbench.Word(c.files, 0.01)
		b.Logf("corpus: %d files, %d bytes, imported in %s; word %q", len(c.files), grepbench.Bytes(c.files),
			time.Since(start).Round(time.Millisecond), c.word)
	})
}

// benchConfig is the Service's configuration for the benchmarks: no rate limit, room for the
// corpus.
func benchConfig(c *fileio.Config) {
	c.RateLimitPerSecond = 0
	c.MaxProjectBytes, c.MaxFileBytes = 1<<40, 1<<30
	c.MaxArchiveBytes, c.ArchiveTimeout = 1<<40, time.Hour
}

// needCommands skips b when a command it runs is not registered yet.
func needCommands(b *testing.B, names ...string) {
	for _, n := range names {
		if commands.Lookup(n) == nil {
			b.Skipf("the %s command is not registered yet", n)
		}
	}
}

// RgVsRipgrep runs rg -n word through sh on project and rg -n word over dir, alternately, and
// reports the ratio of their times. The answers must agree (as sets of lines: ripgrep prints
// files in the order its threads finish).
func RgVsRipgrep(b *testing.B, sh *shell.Shell, ctx context.Context, project, dir, word string) {
	var shellTime, rgTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := sh.Run(ctx, shell.Request{Project: project, Command: "rg -n " + word})
		shellTime += time.Since(start)
		if err != nil || res.ExitCode != 0 || res.Truncated {
			b.Fatalf("rg through file_shell: %v, exit %d, truncated %v, stderr %q", err, res.ExitCode, res.Truncated, res.Stderr)
		}
		want, took := grepbench.Ripgrep(b, dir, "-n", word)
		rgTime += took
		if i == 0 {
			got := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				b.Fatalf("rg through file_shell printed %d lines, rg on disk %d", len(got), len(want))
			}
			b.Logf("rg -n %s: %d lines", word, len(want))
		}
	}
	b.ReportMetric(float64(shellTime.Microseconds())/float64(b.N)/1000, "ms/shell")
	b.ReportMetric(float64(rgTime.Microseconds())/float64(b.N)/1000, "ms/rg")
	b.ReportMetric(float64(shellTime)/float64(rgTime), "x_ref")
}

// SedVsRead runs sed -n '1,200p' FILE through sh and Service.Read of lines 1-200, alternately.
func SedVsRead(b *testing.B, sh *shell.Shell, svc *fileio.Service, ctx context.Context, project, path string) {
	var shellTime, readTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := sh.Run(ctx, shell.Request{Project: project, Command: "sed -n '1,200p' " + path})
		shellTime += time.Since(start)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("sed: %v %+v", err, res)
		}
		start = time.Now()
		read, err := svc.Read(ctx, fileio.ReadRequest{Project: project, Path: path, StartLine: 1, EndLine: 200})
		readTime += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 && read.Content != res.Stdout {
			b.Fatalf("sed printed %d bytes, file_read returned %d", len(res.Stdout), len(read.Content))
		}
	}
	b.ReportMetric(float64(shellTime.Microseconds())/float64(b.N), "µs/shell")
	b.ReportMetric(float64(readTime.Microseconds())/float64(b.N), "µs/read")
	b.ReportMetric(float64(shellTime)/float64(readTime), "x_ref")
}

// Write300 runs one command writing 300 files and 300 Service.Write calls writing the same
// files, alternately, each time to new paths.
func Write300(b *testing.B, sh *shell.Shell, svc *fileio.Service, ctx context.Context, project string) {
	var shellTime, writeTime time.Duration
	for range b.N {
		i := writeRuns.Add(1) // new paths each time, across the benchmark's runs too
		start := time.Now()
		res, err := sh.Run(ctx, shell.Request{Project: project,
			Command: fmt.Sprintf(`mkdir -p /sh%d; for ((i=0; i<300; i++)); do echo "file $i of run %d" > /sh%d/f$i.txt; done`, i, i, i)})
		shellTime += time.Since(start)
		if err != nil || len(res.Created) != 300 {
			b.Fatalf("the command: %v, created %d files; stderr %q", err, len(res.Created), res.Stderr)
		}
		start = time.Now()
		for f := range 300 {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: fmt.Sprintf("/w%d/f%d.txt", i, f),
				Content: fmt.Sprintf("file %d of run %d\n", f, i)}); err != nil {
				b.Fatal(err)
			}
		}
		writeTime += time.Since(start)
	}
	b.ReportMetric(float64(shellTime.Microseconds())/float64(b.N)/1000, "ms/shell")
	b.ReportMetric(float64(writeTime.Microseconds())/float64(b.N)/1000, "ms/300writes")
	b.ReportMetric(float64(shellTime)/float64(writeTime), "x_ref")
}

var writeRuns atomic.Int64

// BenchmarkShellMemory runs the three comparisons on memstore.
func BenchmarkShellMemory(b *testing.B) {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
	store := memstore.New(memstore.Options{})
	cfg := fileio.DefaultConfig()
	benchConfig(&cfg)
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	sh := shell.New(svc, shell.Options{})
	c := corpus{dir: b.TempDir()}
	b.Run("RgVsRipgrep", func(b *testing.B) {
		needCommands(b, "rg")
		c.load(b, svc, ctx, "corpus")
		b.ResetTimer()
		RgVsRipgrep(b, sh, ctx, "corpus", c.dir, c.word)
	})
	b.Run("SedVsRead", func(b *testing.B) {
		needCommands(b, "sed")
		var text strings.Builder
		for i := range 1000 {
			fmt.Fprintf(&text, "line %d of a file an agent reads with sed, as Codex does\n", i)
		}
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "read", Path: "/src/big.txt", Content: text.String()}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		SedVsRead(b, sh, svc, ctx, "read", "/src/big.txt")
	})
	b.Run("Write300", func(b *testing.B) {
		needCommands(b, "mkdir")
		Write300(b, sh, svc, ctx, "write")
	})
}

// BenchmarkShellPostgres runs the three comparisons on PostgreSQL: the corpus is loaded,
// then indexed for grep (pgstore.Store.IndexGrep) and analyzed, as a project is once its
// background indexer has run.
func BenchmarkShellPostgres(b *testing.B) {
	url := pgtest.New(b)
	store := pgtest.Open(b, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
	cfg := fileio.DefaultConfig()
	benchConfig(&cfg)
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	sh := shell.New(svc, shell.Options{})
	c := corpus{dir: b.TempDir()}
	b.Run("RgVsRipgrep", func(b *testing.B) {
		needCommands(b, "rg")
		c.load(b, svc, ctx, "corpus")
		if _, err := store.Pool().Exec(context.Background(), "VACUUM ANALYZE mcp_files"); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		RgVsRipgrep(b, sh, ctx, "corpus", c.dir, c.word)
	})
	b.Run("SedVsRead", func(b *testing.B) {
		needCommands(b, "sed")
		var text strings.Builder
		for i := range 1000 {
			fmt.Fprintf(&text, "line %d of a file an agent reads with sed, as Codex does\n", i)
		}
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "read", Path: "/src/big.txt", Content: text.String()}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		SedVsRead(b, sh, svc, ctx, "read", "/src/big.txt")
	})
	b.Run("Write300", func(b *testing.B) {
		needCommands(b, "mkdir")
		Write300(b, sh, svc, ctx, "write")
	})
}
