package expr

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that its errors are well-formed PARSE_ERRORs,
// and that for every expression it accepts, printing the parsed form and parsing it again
// gives the same result.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"lang/python+java,docs/api,guidelines", "a", "_sys", "a/b/c", " a / b + c , d ",
		"", " ", ",", ",,", "a,,b", "a,", ",a", "/", "/p", "a/", "a/+", "a/b+", "+", "a+b", "a/b++c",
		"a/{b,c}+d", "a/{b,{c,d}}", "a/{", "a/}", "a/[+,]", "a/[", `a/\`, `a/b\ `, `a/\,b`, "a//b",
		"a/../b", "a/./b", "a\x00", "\xff", "a/日本語+é", "a\t/\nb", "a/**/*.md", "a/b\u0085",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, ErrParseError) || !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %v is not a PARSE_ERROR with a SyntaxError", s, err)
			}
			if se.Pos < 0 || se.Pos > len(s) {
				t.Fatalf("Parse(%q): Pos %d outside the input", s, se.Pos)
			}
			return
		}
		if len(e.Terms) == 0 {
			t.Fatalf("Parse(%q) accepted an expression without terms", s)
		}
		canon := e.String()
		e2, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its canonical form %q fails: %v", s, canon, err)
		}
		if diff := cmp.Diff(e.Terms, e2.Terms); diff != "" {
			t.Fatalf("round trip of %q through %q changed the terms (-first +second):\n%s", s, canon, diff)
		}
		if e2.String() != canon {
			t.Fatalf("canonical form is not stable: %q then %q", canon, e2.String())
		}
	})
}
