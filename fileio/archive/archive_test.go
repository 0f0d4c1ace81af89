package archive_test

import (
	"archive/tar"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/internal/hostilezip"
	"github.com/google/go-cmp/cmp"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"a.md", "a.md", true},
		{"./docs/a b.md", "docs/a b.md", true},
		{"docs//./a.md", "docs/a.md", true},
		{"docs/", "docs", true},
		{"..a/b..", "..a/b..", true},
		{"caf\u00e9/\u65e5\u672c.md", "caf\u00e9/\u65e5\u672c.md", true},
		{"", "", false},
		{"./", "", false},
		{"../a", "", false},
		{"docs/../../etc/passwd", "", false},
		{"a/..", "", false},
		{"/etc/passwd", "", false},
		{`..\x`, "", false},
		{`docs\a.md`, "", false},
		{"C:/Windows/x", "", false},
		{"c:x", "", false},
		{"a\x00b", "", false},
	}
	for _, tc := range tests {
		got, err := archive.Clean(tc.name)
		if diff := cmp.Diff(tc.want, got); diff != "" || (err == nil) != tc.ok {
			t.Errorf("Clean(%q) = %q, %v; want %q, ok %v", tc.name, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzClean checks that every name Clean accepts becomes a relative path that stays inside
// the directory: no leading "/", no "..", "." or empty segment, no backslash or NUL, and that
// cleaning is idempotent.
func FuzzClean(f *testing.F) {
	for _, seed := range []string{"a.md", "./a/b", "../x", "a/../../b", "/etc/passwd", `..\x`, "C:/x", "a//b/", "...", "a\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		p, err := archive.Clean(name)
		if err != nil {
			return
		}
		drive := len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
		if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || drive {
			t.Fatalf("Clean(%q) = %q: not a relative path inside the directory", name, p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("Clean(%q) = %q: segment %q", name, p, seg)
			}
		}
		if again, err := archive.Clean(p); err != nil || again != p {
			t.Fatalf("Clean(%q) = %q, but Clean of that = %q, %v", name, p, again, err)
		}
	})
}

// FuzzReader feeds arbitrary bytes to Open and Next: they must never panic, and every entry
// they yield must have a clean path and a body no longer than the cap allows.
func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "a.md", Size: 2, Mode: 0o644})
	tw.Write([]byte("a\n"))
	tw.WriteHeader(&tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "../x"})
	tw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte("not an archive"))
	hostile, _ := io.ReadAll(hostilezip.Stream(hostilezip.Options{Entries: 60, HideSize: true}))
	f.Add(hostile)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := archive.Open(bytes.NewReader(data), archive.Limits{MaxArchiveBytes: 1 << 20, MaxEntries: 50, MaxDirectoryBytes: 4096, TempDir: t.TempDir()})
		if err != nil {
			return
		}
		defer r.Close()
		for i := range 1000 {
			e, err := r.Next()
			if i >= 50 && err == nil {
				t.Fatalf("entry %d read with 50 allowed", i+1)
			}
			if err != nil {
				return
			}
			if clean, err := archive.Clean(e.Path); err != nil || clean != e.Path {
				t.Fatalf("entry %q has the path %q, which is not clean", e.Name, e.Path)
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(r, 2<<20))
			if n > 1<<30 {
				t.Fatalf("entry %q: %d bytes", e.Name, n)
			}
			if e.Link != "" && n > 0 {
				t.Fatalf("link %q has a body of %d bytes", e.Name, n)
			}
		}
	})
}
