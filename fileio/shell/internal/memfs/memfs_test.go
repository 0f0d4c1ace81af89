package memfs

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func names(es []fs.DirEntry) []string {
	var out []string
	for _, e := range es {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		out = append(out, n)
	}
	return out
}

func TestFS(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	m := New(map[string]File{"/a.txt": {Data: "a"}, "/d/b.txt": {Data: "bb"}, "/d/e/c.txt": {Data: "c"}})
	m.DirTime = t0
	m.AddDir("/empty")

	es, err := m.ReadDir(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.txt", "d/", "empty/"}, names(es)); d != "" {
		t.Errorf("ReadDir(/) (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		name string
		want error
	}{
		{"/nosuch", fs.ErrNotExist}, {"/a.txt/x", fs.ErrInvalid}, {"relative", fs.ErrInvalid},
	} {
		if _, err := m.Stat(ctx, c.name); !errors.Is(err, c.want) {
			t.Errorf("Stat(%s): %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := m.ReadFile(ctx, "/d"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("ReadFile(dir): %v, want ErrInvalid", err)
	}
	if err := m.Mkdir(ctx, "/d", false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Mkdir(existing): %v", err)
	}
	if err := m.Mkdir(ctx, "/x/y", false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Mkdir(no parent): %v", err)
	}
	if err := m.Mkdir(ctx, "/x/y", true); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile(ctx, "/a.txt", []byte("+"), true); err != nil {
		t.Fatal(err)
	}
	if err := m.Rename(ctx, "/d", "/x/y/d"); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, "/x/y/d/e", false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Remove(non-empty dir): %v", err)
	}
	if err := m.Remove(ctx, "/x/y/d/e/c.txt", false); err != nil {
		t.Fatal(err)
	}
	if err := m.Touch(ctx, "/new", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for p, f := range m.Files() {
		got[p] = f.Data
	}
	if d := cmp.Diff(map[string]string{"/a.txt": "a+", "/x/y/d/b.txt": "bb", "/new": ""}, got); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"/empty", "/x", "/x/y", "/x/y/d", "/x/y/d/e"}, m.Dirs()); d != "" {
		t.Errorf("dirs (-want +got):\n%s", d)
	}
	fi, _ := m.Stat(ctx, "/new")
	if !fi.ModTime().Equal(t0.Add(time.Hour)) || fi.Size() != 0 || fi.IsDir() {
		t.Errorf("Stat(/new) = %v %d %v", fi.ModTime(), fi.Size(), fi.IsDir())
	}
}
