package grepbench

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEachVisitsEveryFileOnce(t *testing.T) {
	files := []File{{Path: "/a"}, {Path: "/b"}, {Path: "/c"}, {Path: "/d"}, {Path: "/e"}}
	var mu sync.Mutex
	var got []string
	err := Each(files, 3, func(f File) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, f.Path)
		return nil
	})
	slices.Sort(got)
	if diff := cmp.Diff([]string{"/a", "/b", "/c", "/d", "/e"}, got); diff != "" || err != nil {
		t.Errorf("Each = %v, visited (-want +got):\n%s", err, diff)
	}
	boom := errors.New("boom")
	if err := Each(files, 2, func(f File) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Each with failing writes = %v, want %v", err, boom)
	}
}

func TestTarRoundTrip(t *testing.T) {
	files := []File{{Path: "/a.md", Content: []byte("alpha\n")}, {Path: "/dir/b c.md", Content: []byte("")}}
	var buf bytes.Buffer
	Tar(t, &buf, files)
	var got []File
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, File{Path: "/" + h.Name, Content: content})
	}
	if diff := cmp.Diff(files, got, cmp.Comparer(bytes.Equal)); diff != "" {
		t.Errorf("the tar holds (-want +got):\n%s", diff)
	}
}
