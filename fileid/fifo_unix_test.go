//go:build unix

package fileid

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// buildWithin runs New and fails the test when it has not returned within d.
func buildWithin(t *testing.T, ctx context.Context, d time.Duration, roots []Root, opts Options) (*Registry, error) {
	t.Helper()
	type result struct {
		reg *Registry
		err error
	}
	ch := make(chan result, 1)
	go func() {
		reg, err := New(ctx, roots, opts)
		ch <- result{reg, err}
	}()
	select {
	case r := <-ch:
		return r.reg, r.err
	case <-time.After(d):
		t.Fatalf("New did not return within %v", d)
		return nil, nil
	}
}

// A FIFO behind a link named like a Markdown file (or named so itself) is skipped, not
// opened: opening it for reading would wait for a writer forever, and the server would never
// listen.
func TestFIFOIsSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "p")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "q.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("p", filepath.Join(dir, "p.md")); err != nil {
		t.Fatal(err)
	}
	// Should a build block on the FIFO anyway, a writer that opens and closes it lets the
	// stuck goroutine go when the test ends.
	t.Cleanup(func() {
		for _, name := range []string{"p", "q.md"} {
			if w, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
	})

	for _, tt := range []struct {
		name string
		root func(t *testing.T) Root
	}{
		{"DirRoot", func(t *testing.T) Root {
			root, err := DirRoot("d", dir)
			if err != nil {
				t.Fatal(err)
			}
			return root
		}},
		{"os.DirFS", func(t *testing.T) Root { return Root{Label: "d", FS: os.DirFS(dir)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := buildWithin(t, context.Background(), 10*time.Second, []Root{tt.root(t)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if reg.Len() != 1 || reg.Files()[0].Filename != "a.md" {
				t.Errorf("files %+v, want only a.md", reg.Files())
			}
			reasons := map[string]string{}
			for _, s := range reg.Skipped() {
				reasons[s.Path] = s.Reason
			}
			if reasons["p.md"] != errNotRegular.Error() {
				t.Errorf("p.md skipped with %q, want %q (skipped: %+v)", reasons["p.md"], errNotRegular, reg.Skipped())
			}
		})
	}
}

// stuckFS is an fs.FS whose Open of "stuck.md" blocks until release is closed, as on a hung
// network file system.
type stuckFS struct {
	release <-chan struct{}
	opened  chan<- struct{}
}

var stuckFiles = fstest.MapFS{"a.md": {Data: []byte("# a\n")}, "stuck.md": {Data: []byte("# s\n")}, "z.md": {Data: []byte("# z\n")}}

func (s stuckFS) Open(name string) (fs.File, error) {
	if name == "stuck.md" {
		select {
		case s.opened <- struct{}{}:
		default:
		}
		<-s.release
	}
	return stuckFiles.Open(name)
}

// New honours its context: canceling it stops a build even while a read is stuck, and a
// context canceled before the build fails at once.
func TestBuildHonoursContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	opened := make(chan struct{}, 1)
	fsys := stuckFS{release: release, opened: opened}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-opened
		cancel()
	}()
	_, err := buildWithin(t, ctx, 10*time.Second, []Root{{Label: "r", FS: fsys}}, Options{Concurrency: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled build: err %v, want context.Canceled", err)
	}

	dir := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i%26))+string(rune('a'+i/26))+".md"), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := DirRoot("d", dir)
	if err != nil {
		t.Fatal(err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := buildWithin(t, done, 10*time.Second, []Root{root}, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("build with a canceled context: err %v, want context.Canceled", err)
	}
}
