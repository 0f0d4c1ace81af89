package pgstore

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct {
		prefix, want string
		bounded      bool
	}{
		{"", "", false},
		{"/a/", "/a0", true},
		{"/a", "/b", true},
		{"\x7f", "\u0080", true},
		{"/\u00e9", "/\u00ea", true},
		{"/\ud7ff", "/\ue000", true},
		{"/\U0010FFFF", "0", true},
		{"\U0010FFFF\U0010FFFF", "", false},
		{"/\xff", "", false},
	} {
		got, ok := prefixEnd(tc.prefix)
		if got != tc.want || ok != tc.bounded {
			t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", tc.prefix, got, ok, tc.want, tc.bounded)
		}
	}
}

// FuzzPrefixEnd checks the property List relies on: for valid UTF-8 s >= prefix, s has the
// prefix exactly when s < end.
func FuzzPrefixEnd(f *testing.F) {
	for _, seed := range [][2]string{
		{"/a/", "/a/b"}, {"/a/", "/a0"}, {"/a", "/a\U0010FFFF"}, {"\U0010FFFF", "\U0010FFFF\U0010FFFF"},
		{"/\ud7ff", "/\ud7ffx"}, {"/\ud7ff", "/\ue000"}, {"", "x"}, {"\u007f", "\u0080"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, prefix, s string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(s) || s < prefix {
			return
		}
		end, ok := prefixEnd(prefix)
		if !ok {
			return
		}
		if !utf8.ValidString(end) {
			t.Fatalf("prefixEnd(%q) = %q is not valid UTF-8", prefix, end)
		}
		if has, below := strings.HasPrefix(s, prefix), s < end; has != below {
			t.Fatalf("prefix %q end %q: s %q has prefix %v but s < end is %v", prefix, end, s, has, below)
		}
	})
}
