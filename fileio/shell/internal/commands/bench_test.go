package commands_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/memfs"
	"github.com/agentfiles/agentfiles/internal/grepbench"
)

// median runs f n times and returns the median duration.
func median(n int, f func() time.Duration) time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = f()
	}
	sort.Slice(d, func(a, b int) bool { return d[a] < d[b] })
	return d[n/2]
}

func memFromCorpus(files []grepbench.File) *memfs.FS {
	m := make(map[string]memfs.File, len(files))
	for _, f := range files {
		m[f.Path] = memfs.File{Data: string(f.Content)}
	}
	return memfs.New(m)
}

// BenchmarkRgWord is `rg -n WORD` (a word in about 1% of the files) over GOROOT/src, up to
// 3,000 files and 32 MiB, on an in-memory FS and without the grep engine (Env.Search nil):
// the command alone. The reference is ripgrep on a disk copy of the same files, a process
// per search with its page cache warm; x-rg is ns/op over rg's median time.
func BenchmarkRgWord(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg not installed (apt-get install ripgrep)")
	}
	files := grepbench.Corpus(b, 500, 3000, 32<<20)
	word := grepbench.Word(files, 0.01)
	fsys := memFromCorpus(files)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, files)
	ctx := context.Background()
	args := []string{"rg", "--hidden", "-n", word}
	// Same answer as ripgrep in path order.
	want, _ := grepbench.Ripgrep(b, dir, "--sort=path", "-n", word)
	var out bytes.Buffer
	env := &commands.Env{Dir: "/", Stdout: &out, Stderr: io.Discard, FS: fsys}
	if st := commands.Lookup("rg")(ctx, env, args); st != 0 {
		b.Fatalf("rg exit %d", st)
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		b.Fatalf("rg -n %s: %d lines, ripgrep %d", word, len(got), len(want))
	}
	b.SetBytes(grepbench.Bytes(files))
	b.ResetTimer()
	for b.Loop() {
		env := &commands.Env{Dir: "/", Stdout: io.Discard, Stderr: io.Discard, FS: fsys}
		commands.Lookup("rg")(ctx, env, args)
	}
	b.StopTimer()
	ref := median(5, func() time.Duration {
		_, d := grepbench.Ripgrep(b, dir, "-n", word)
		return d
	})
	b.ReportMetric(float64(ref.Microseconds())/1000, "rg-ms")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ref.Nanoseconds()), "x-rg")
	b.ReportMetric(float64(len(files)), "files")
}

// BenchmarkSedHead200 is `sed -n '1,200p' f` on a 1 MiB file of source text, on an
// in-memory FS. The reference is GNU sed on a disk copy, a process per call; x-sed is ns/op
// over its median time.
func BenchmarkSedHead200(b *testing.B) {
	if _, err := exec.LookPath("sed"); err != nil {
		b.Skip("sed not installed")
	}
	files := grepbench.Corpus(b, 10, 400, 1<<20)
	var text bytes.Buffer
	for _, f := range files {
		text.Write(f.Content)
	}
	fsys := memfs.New(map[string]memfs.File{"/f.go": {Data: text.String()}})
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, []grepbench.File{{Path: "/f.go", Content: text.Bytes()}})
	ctx := context.Background()
	args := []string{"sed", "-n", "1,200p", "f.go"}
	var out bytes.Buffer
	env := &commands.Env{Dir: "/", Stdout: &out, Stderr: io.Discard, FS: fsys}
	commands.Lookup("sed")(ctx, env, args)
	gnu := exec.Command("sed", "-n", "1,200p", filepath.Join(dir, "f.go"))
	want, err := gnu.Output()
	if err != nil || !bytes.Equal(want, out.Bytes()) {
		b.Fatalf("sed -n 1,200p differs from GNU sed (%v)", err)
	}
	b.SetBytes(int64(text.Len()))
	b.ResetTimer()
	for b.Loop() {
		env := &commands.Env{Dir: "/", Stdout: io.Discard, Stderr: io.Discard, FS: fsys}
		commands.Lookup("sed")(ctx, env, args)
	}
	b.StopTimer()
	ref := median(9, func() time.Duration {
		start := time.Now()
		if err := exec.Command("sed", "-n", "1,200p", filepath.Join(dir, "f.go")).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	})
	b.ReportMetric(float64(ref.Microseconds())/1000, "sed-ms")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ref.Nanoseconds()), "x-sed")
}
