package memorytool_test

import (
	"path"
	"strings"
	"testing"
	"unicode"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/google/go-cmp/cmp"
)

func TestProjectPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/memories", "", true},
		{"/memories/", "", true},
		{"/memories/notes.md", "/notes.md", true},
		{"/memories/a/b/c.xml", "/a/b/c.xml", true},
		{"/memories/a/", "/a", true},
		{"/memories/.hidden", "/.hidden", true},
		{"/memories/...", "/...", true},
		{"/memories/a..b", "/a..b", true},
		{"/memories/a//", "", false},
		{"/memories//", "", false},
		{"/memories/..", "", false},
		{"/memories/../memories/a", "", false},
		{"/memories/a/..", "", false},
		{"/memories/.", "", false},
		{"/memories/%2e%2e", "", false},
		{"/memories/%2fetc", "", false},
		{`\memories\a`, "", false},
		{"/memories\\a", "", false},
		{"/memoriesa", "", false},
		{"/Memories/a", "", false},
		{"memories", "", false},
		{"", "", false},
		{"/", "", false},
		{"/etc/passwd", "", false},
		{"/memories/\u00e4 b.md", "/\u00e4 b.md", true},
		{"/memories/a\u0308.md", "/\u00e4.md", true}, // NFD is normalized to NFC
		{"/memories/a\u200b", "", false},
		{"/memories/a\nb", "", false},
		{"/memories/\u2024\u2024/x", "", false}, // one-dot leaders, not dots
		{"/memories/\uff0e\uff0e/x", "", false}, // fullwidth full stops
	}
	for _, tc := range tests {
		got, err := memorytool.ProjectPath(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ProjectPath(%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
			t.Errorf("ProjectPath(%q): code %v, want INVALID_PATH", tc.in, agentfiles.ErrorCode(err))
		}
	}
	if diff := cmp.Diff("/memories/a/b.md", memorytool.MemoryPath("/a/b.md")); diff != "" {
		t.Error(diff)
	}
}

// FuzzProjectPath: whatever the input, an accepted path maps to a canonical path inside the
// memory project that names the same place, and a refusal is INVALID_PATH with a short message
// without control characters.
func FuzzProjectPath(f *testing.F) {
	for _, s := range []string{"/memories", "/memories/", "/memories/a/b.md", "/memories/../x", "/memories/%2e%2e/x",
		`/memories\..\x`, "/memories/./a", "/memoriesx", "/memories//a", "/memories/a/", "/memories/\x00", "/memories/.../a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := memorytool.ProjectPath(p)
		if err != nil {
			if agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
				t.Fatalf("ProjectPath(%q): code %v", p, agentfiles.ErrorCode(err))
			}
			msg := memorytool.ErrorText(err)
			if len(msg) > 1024 || strings.ContainsFunc(msg, unicode.IsControl) {
				t.Fatalf("ProjectPath(%q): message %q is long or holds control characters", p, msg)
			}
			return
		}
		if verr := fileio.ValidatePath(rel); verr != nil {
			t.Fatalf("ProjectPath(%q) = %q, which fileio refuses: %v", p, rel, verr)
		}
		full := memorytool.MemoryPath(rel)
		if path.Clean(full) != full || !(full == memorytool.Root || strings.HasPrefix(full, memorytool.Root+"/")) {
			t.Fatalf("ProjectPath(%q) = %q: %q is not a canonical path inside /memories", p, rel, full)
		}
		if p != full && p != full+"/" {
			t.Fatalf("ProjectPath(%q) = %q names another place than the input", p, rel)
		}
		if strings.ContainsAny(p, `%\`) {
			t.Fatalf("ProjectPath(%q) accepted an escape", p)
		}
	})
}
