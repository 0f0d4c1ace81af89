// Package grepbench builds the corpora that the file_grep benchmarks of fileio/memstore and
// fileio/pgstore search, and runs ripgrep over the same files as their reference. It is a
// test helper, not API.
//
// # Corpora
//
// Corpus is the Go source and documentation under GOROOT/src (real text, found on every
// machine that builds this module), in path order, skipping files that are not valid UTF-8,
// hold a NUL byte, exceed 1 MiB or have a path the fileio path rules refuse, until a file or
// byte count is reached. Nothing is committed: the files are read at benchmark time.
//
// NewProse generates Markdown prose with a Zipf word distribution, non-ASCII letters and
// paths with spaces: text the matchers were not tuned on, of any size, from a seed.
package grepbench

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio"
)

// File is one corpus file: a store path ("/net/http/server.go") and its content.
type File struct {
	Path    string
	Content []byte
}

// Corpus returns up to maxFiles files and maxBytes bytes of GOROOT/src, skipping the benchmark
// when fewer than minFiles are found.
func Corpus(tb testing.TB, minFiles, maxFiles int, maxBytes int64) []File {
	tb.Helper()
	root := filepath.Join(goroot(tb), "src")
	var out []File
	var total int64
	stop := errors.New("enough")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		path := "/" + filepath.ToSlash(rel)
		if fileio.ValidatePath(path) != nil {
			return nil
		}
		content, err := os.ReadFile(p)
		if err != nil || len(content) == 0 || len(content) > 1<<20 || !utf8.Valid(content) || bytes.IndexByte(content, 0) >= 0 {
			return nil
		}
		if total+int64(len(content)) > maxBytes {
			return stop
		}
		out = append(out, File{Path: path, Content: content})
		total += int64(len(content))
		if len(out) >= maxFiles {
			return stop
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		tb.Fatal(err)
	}
	if len(out) < minFiles {
		tb.Skipf("only %d files under %s (want %d)", len(out), root, minFiles)
	}
	return out
}

// Copies returns files n times over, copy k below "/c<k>" (n == 1: the files as they are).
func Copies(files []File, n int) []File {
	if n <= 1 {
		return files
	}
	out := make([]File, 0, len(files)*n)
	for k := range n {
		for _, f := range files {
			out = append(out, File{Path: "/c" + strconv.Itoa(k) + f.Path, Content: f.Content})
		}
	}
	return out
}

// Bytes is the total size of files.
func Bytes(files []File) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f.Content))
	}
	return n
}

// WriteTree writes files below dir, for ripgrep.
func WriteTree(tb testing.TB, dir string, files []File) {
	tb.Helper()
	for _, f := range files {
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, f.Content, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Ripgrep runs rg --no-config --hidden with args over dir and returns the lines it printed
// and how long the process took. rg must be installed (Debian package ripgrep).
func Ripgrep(tb testing.TB, dir string, args ...string) ([]string, time.Duration) {
	tb.Helper()
	cmd := exec.Command("rg", append([]string{"--no-config", "--hidden"}, args...)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.Output()
	elapsed := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		tb.Fatalf("rg %v: %v", args, err)
	}
	text := strings.TrimSuffix(string(out), "\n")
	if text == "" {
		return nil, elapsed
	}
	return strings.Split(text, "\n"), elapsed
}

// goroot is the GOROOT of the go command on PATH; without one the benchmark is skipped.
func goroot(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v; the corpus is GOROOT's source tree", err)
	}
	return strings.TrimSpace(string(out))
}
