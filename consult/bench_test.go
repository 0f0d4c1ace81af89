package consult

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// benchTree makes nDirs directories with 20 .py, 15 .md, 10 .txt and 3 hidden .py files each,
// and returns the "dir/*.py" entries.
func benchTree(b *testing.B, nDirs int) []string {
	b.Helper()
	root := b.TempDir()
	var entries []string
	for d := 0; d < nDirs; d++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 48; i++ {
			var name string
			switch {
			case i < 20:
				name = fmt.Sprintf("mod_%02d.py", i)
			case i < 35:
				name = fmt.Sprintf("doc_%02d.md", i)
			case i < 45:
				name = fmt.Sprintf("data_%02d.txt", i)
			default:
				name = fmt.Sprintf(".hidden_%02d.py", i)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x = 1\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		entries = append(entries, dir+"/*.py")
	}
	return entries
}

// pythonGlobTiming runs glob.glob over the patterns `iters` times inside one python process and
// returns the mean time per full pass (interpreter start-up excluded) and the last results.
func pythonGlobTiming(b *testing.B, python string, patterns []string, iters int) (time.Duration, []string) {
	b.Helper()
	const script = `
import glob, json, sys, time
pats = json.load(sys.stdin)
n = int(sys.argv[1])
t0 = time.perf_counter()
for _ in range(n):
    out = []
    for p in pats:
        out.extend(glob.glob(p))
    out = sorted(set(out))
dt = time.perf_counter() - t0
json.dump({"ns": dt / n * 1e9, "files": out}, sys.stdout)
`
	in, _ := json.Marshal(patterns)
	cmd := exec.Command(python, "-c", script, strconv.Itoa(iters))
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("python3: %v", err)
	}
	var res struct {
		NS    float64  `json:"ns"`
		Files []string `json:"files"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatal(err)
	}
	return time.Duration(res.NS), res.Files
}

// BenchmarkExpand expands 200 "dir/*.py" entries (48 entries per directory, 20 matches) and
// reports, from the same run: a bare read of the same directories (the floor), the expansion
// with a single worker, and Python's
// glob.glob timed inside one interpreter (start-up excluded).
func BenchmarkExpand(b *testing.B) {
	entries := benchTree(b, 200)
	x, err := NewExpander(ExpanderOptions{MaxFiles: HardMaxFiles})
	if err != nil {
		b.Fatal(err)
	}
	want, errs := x.Expand(entries)
	if len(errs) != 0 || len(want) != 200*20 {
		b.Fatalf("expansion: %d files, errors %v", len(want), errs)
	}
	dirs := make([]string, len(entries))
	for i, e := range entries {
		dirs[i] = filepath.Dir(e)
	}
	// The floor is the directory reading Expand cannot avoid: open, read every entry with its
	// type, close. (os.ReadDir also sorts each directory, which Expand does not need.)
	readDirs := func() {
		for _, d := range dirs {
			f, err := os.Open(d)
			if err != nil {
				b.Fatal(err)
			}
			_, err = f.ReadDir(-1)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	// The floor reads one directory at a time; Expand reads several at once, so the same
	// expansion with one worker is reported as well. The machine is shared and noisy: the three
	// run in every iteration so that they see the same load, in a rotating order so that none
	// always runs first (after the others' garbage) or last (in their warm caches).
	sequential := *x
	sequential.workers = 1
	var oursT, floorT, seqT time.Duration
	steps := []struct {
		total *time.Duration
		run   func()
	}{
		{&oursT, func() { x.Expand(entries) }},
		{&floorT, readDirs},
		{&seqT, func() { sequential.Expand(entries) }},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range steps {
			step := steps[(i+k)%len(steps)]
			t0 := time.Now()
			step.run()
			*step.total += time.Since(t0)
		}
	}
	b.StopTimer()
	ours := float64(oursT.Nanoseconds()) / float64(b.N)
	b.ReportMetric(ours, "expand-ns/op")
	b.ReportMetric(float64(floorT.Nanoseconds())/float64(b.N), "readdir-ns/op")
	b.ReportMetric(float64(oursT)/float64(floorT), "expand/readdir")
	b.ReportMetric(float64(seqT)/float64(floorT), "expand1worker/readdir")

	if python, err := exec.LookPath("python3"); err == nil {
		// Three rounds of (Expand x n, glob.glob x n in one interpreter), summed.
		n := max(3, min(b.N, 20))
		var goT, pyT time.Duration
		for round := 0; round < 3; round++ {
			t0 := time.Now()
			for i := 0; i < n; i++ {
				x.Expand(entries)
			}
			goT += time.Since(t0) / time.Duration(n)
			pyNS, pyFiles := pythonGlobTiming(b, python, entries, n)
			if diff := cmp.Diff(want, pyFiles); diff != "" {
				b.Fatalf("Expand and glob.glob differ (-expand +python):\n%s", diff)
			}
			pyT += pyNS
		}
		b.ReportMetric(float64(pyT.Nanoseconds())/3, "python-ns/op")
		b.ReportMetric(float64(pyT)/float64(goT), "python/expand")
	}
}

// BenchmarkFormat assembles 200 files of 8 KiB and reports, from the same run, `cat` of the
// same files to a pipe (one process per op, so its start-up is included).
func BenchmarkFormat(b *testing.B) {
	root := b.TempDir()
	line := strings.Repeat("func f() { return 42 } // some code\n", 1)
	content := strings.Repeat(line, 8192/len(line)+1)[:8192]
	var files []string
	for i := 0; i < 200; i++ {
		p := filepath.Join(root, fmt.Sprintf("f%03d.go", i))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, p)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(files) * len(content)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := NewFormatter(FormatterOptions{}).Format(ctx, files, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ours := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	cat, err := exec.LookPath("cat")
	if err != nil {
		return
	}
	runs := max(3, min(b.N, 30))
	start := time.Now()
	for i := 0; i < runs; i++ {
		cmd := exec.Command(cat, files...)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	catNS := float64(time.Since(start).Nanoseconds()) / float64(runs)
	b.ReportMetric(catNS, "cat-ns/op")
	b.ReportMetric(ours/catNS, "format/cat")
}

// BenchmarkParseEntry measures validating and compiling one pattern entry.
func BenchmarkParseEntry(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := parseEntry("/home/me/project/src/[a-m]*_test.py"); err != nil {
			b.Fatal(err)
		}
	}
}
