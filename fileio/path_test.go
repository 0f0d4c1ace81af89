package fileio_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

func TestValidatePathRules(t *testing.T) {
	for _, rule := range storetest.PathRules {
		for _, p := range rule.Valid {
			if err := fileio.ValidatePath(p); err != nil {
				t.Errorf("%s: ValidatePath(%q) = %v, want nil", rule.Rule, p, err)
			}
		}
		for _, p := range rule.Invalid {
			err := fileio.ValidatePath(p)
			if agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
				t.Errorf("%s: ValidatePath(%q) = %v, want INVALID_PATH", rule.Rule, p, err)
			}
		}
	}
}

func TestPortablePathRule(t *testing.T) {
	for _, rule := range storetest.PortablePathRules {
		for _, p := range rule.Valid {
			if err := fileio.PathRulePortable.Validate(p); err != nil {
				t.Errorf("%s: Validate(%q) = %v, want nil", rule.Rule, p, err)
			}
		}
		for _, p := range rule.Invalid {
			if err := fileio.PathRulePortable.Validate(p); agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
				t.Errorf("%s: Validate(%q) = %v, want INVALID_PATH", rule.Rule, p, err)
			}
		}
	}
}

func TestNormalizePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/cafe\u0301.md", "/caf\u00e9.md"},
		{"/caf\u00e9.md", "/caf\u00e9.md"},
		{"/\u212b", "/\u00c5"},         // the Angstrom sign is canonically the letter A with ring
		{"/\ufb01le", "/\ufb01le"},     // compatibility forms (the fi ligature) stay: NFC, not NFKC
		{"/Readme.MD", "/Readme.MD"},   // case is kept: paths are case-sensitive
		{"/\xff\u0301", "/\xff\u0301"}, // not UTF-8: left for ValidatePath to refuse
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, fileio.NormalizePath(tc.in)); diff != "" {
			t.Errorf("NormalizePath(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	if err := fileio.ValidatePath("/cafe\u0301.md"); agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
		t.Errorf("ValidatePath of an NFD path = %v, want INVALID_PATH", err)
	}
}

func TestValidatePathMessages(t *testing.T) {
	tests := []struct{ path, fragment string }{
		{"a", `must start with "/"`},
		{"/a/", `must not end with "/"`},
		{"/a//b", "empty segment"},
		{"/a/../b", `".." segments are not allowed`},
		{"/a\x00", "control character U+0000 at byte 2"},
		{"/a\u200bb", "invisible formatting character U+200B"},
		{"/a\\b", "backslash at byte 2"},
		{"/\xff", "not valid UTF-8"},
		{"/cafe\u0301", "normalization form C"},
		{"/" + strings.Repeat("a", 600), "601 bytes; the maximum is 512"},
	}
	for _, tc := range tests {
		err := fileio.ValidatePath(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.fragment) {
			t.Errorf("ValidatePath(%.20q) = %v, want a message with %q", tc.path, err, tc.fragment)
		}
	}
}

func TestValidateProject(t *testing.T) {
	tests := []struct {
		project string
		ok      bool
	}{
		{"p", true}, {strings.Repeat("x", 128), true}, {"My Project (2024)", true}, {"日本", true},
		{"", false}, {strings.Repeat("x", 129), false}, {"a\nb", false}, {"\xff", false},
		// C1 controls and bidi overrides are refused.
		{"a\u0085b", false}, {"a\u009fb", false}, {"abc\u202Egpj.exe", false}, {"a\u2066b", false},
		{"a\u200fb", false}, {"a\u2028b", false}, {"\ufeffa", false}, {"a\u00a0b", true}, {"café", true},
		// Look-alike names: leading or trailing whitespace, zero-width characters.
		{" p", false}, {"p ", false}, {"p\u00a0", false}, {"\u3000p", false}, {"p\u200bq", false},
		{"p\u200d", false}, {"p\u2060q", false}, {"p q", true},
	}
	for _, tc := range tests {
		err := fileio.ValidateProject(tc.project)
		if (err == nil) != tc.ok || (err != nil && agentfiles.ErrorCode(err) != fileio.CodeInvalidPath) {
			t.Errorf("ValidateProject(%.20q) = %v, want ok=%v", tc.project, err, tc.ok)
		}
	}
}

// FuzzValidateProject checks that ValidateProject never panics and that every project it
// accepts is 1..128 bytes of UTF-8 without controls, formatting characters, or whitespace at
// either end.
func FuzzValidateProject(f *testing.F) {
	for _, seed := range []string{"p", " p", "p ", "a\u200bb", "日本", "\xff", "a\u0085b", strings.Repeat("x", 129)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, project string) {
		if fileio.ValidateProject(project) != nil {
			return
		}
		if project == "" || len(project) > fileio.MaxProjectBytes || !utf8.ValidString(project) {
			t.Fatalf("accepted %q: length or encoding", project)
		}
		for i, r := range project {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || ((i == 0 || i+utf8.RuneLen(r) == len(project)) && unicode.IsSpace(r)) {
				t.Fatalf("accepted %q: U+%04X at byte %d", project, r, i)
			}
		}
	})
}

// FuzzValidatePath checks that ValidatePath never panics and that every path it accepts
// satisfies each path rule, checked independently here.
func FuzzValidatePath(f *testing.F) {
	for _, rule := range append(append([]storetest.PathRule{}, storetest.PathRules...), storetest.PortablePathRules...) {
		for _, p := range append(append([]string{}, rule.Valid...), rule.Invalid...) {
			f.Add(p)
		}
	}
	f.Add("/cafe\u0301.md")
	f.Add("/a/b/c.txt")
	f.Add("/\u2028")
	f.Add("/a/.../b")
	f.Fuzz(func(t *testing.T, p string) {
		err := fileio.ValidatePath(p)
		if err != nil {
			if agentfiles.ErrorCode(err) != fileio.CodeInvalidPath {
				t.Fatalf("ValidatePath(%q) = %v: not INVALID_PATH", p, err)
			}
			return
		}
		if p == "" {
			return
		}
		if len(p) > 512 || p[0] != '/' || p[len(p)-1] == '/' {
			t.Fatalf("accepted %q: length, leading or trailing slash rule broken", p)
		}
		if !utf8.ValidString(p) || !norm.NFC.IsNormalString(p) || strings.ContainsRune(p, '\\') {
			t.Fatalf("accepted %q: not NFC UTF-8, or a backslash", p)
		}
		for i, r := range p {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
				t.Fatalf("accepted %q with U+%04X at byte %d", p, r, i)
			}
		}
		if fileio.NormalizePath(p) != p {
			t.Fatalf("accepted %q, which NormalizePath changes", p)
		}
		portable := fileio.PathRulePortable.Validate(p) == nil
		for i := 0; i < len(p) && portable; i++ {
			c := p[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/_-.", c) >= 0) {
				t.Fatalf("portable rule accepted %q with byte 0x%02x", p, c)
			}
		}
		for _, seg := range strings.Split(p[1:], "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("accepted %q with segment %q", p, seg)
			}
		}
	})
}
