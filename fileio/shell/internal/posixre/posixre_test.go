package posixre

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTranslate(t *testing.T) {
	for _, c := range []struct {
		in   string
		ere  bool
		want string
	}{
		{`a.b`, false, `a.b`},
		{`a+b?`, false, `a\+b\?`},
		{`a\+b\?`, false, `a+b?`},
		{`a+b?`, true, `a+b?`},
		{`\(ab\)*`, false, `(ab)*`},
		{`(ab)`, false, `\(ab\)`},
		{`a\|b`, false, `a|b`},
		{`a|b`, false, `a\|b`},
		{`*a`, false, `\*a`},
		{`^*a`, false, `^\*a`},
		{`a**`, false, `a*`},
		{`a\{2,3\}`, false, `a{2,3}`},
		{`a\{,3\}`, false, `a{0,3}`},
		{`a{2}`, true, `a{2}`},
		{`a{`, true, `a\{`},
		{`{x}`, true, `\{x\}`},
		{`{1}x`, true, `x`}, // grep -E: "{...} at start of expression", dropped
		{`a^b$c`, false, `a\^b\$c`},
		{`^a$`, false, `^a$`},
		{`[]a]`, false, `[\]a]`},
		{`[^]a]`, false, `[^\]a]`},
		{`[\]`, false, `[\\]`},
		{`[[:alpha:]_]`, false, `[[:alpha:]_]`},
		{`[a-z]\+`, false, `[a-z]+`},
		{`\<w\>`, false, `\bw\b`},
		{`a\b*`, false, `a\b\*`},
		{`+a`, true, `a`},
		{`(*a)`, true, `(a)`},
		{`b${1,2}`, true, `b(?:$){1,2}`},
		{`)`, true, `\)`},
		{`\w\s\W\S`, false, `\w\s\W\S`},
		{`a\.b`, false, `a\.b`},
		{`\n\t`, false, `nt`},
		{`café`, false, `café`},
		{`(a)+(b)?`, true, `(a)+(b)?`},
		{`a*{2}`, true, `(?:a*){2}`},
	} {
		var got string
		var err error
		if strings.Contains(c.in, `\n`) {
			got, err = Translate(c.in, Flags{ERE: c.ere})
		} else {
			got, err = Translate(c.in, Flags{ERE: c.ere})
		}
		if err != nil {
			t.Errorf("Translate(%q, ERE=%v): %v", c.in, c.ere, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("Translate(%q, ERE=%v) (-want +got):\n%s", c.in, c.ere, d)
		}
		if _, err := regexp.Compile(got); err != nil {
			t.Errorf("Translate(%q) = %q, which RE2 refuses: %v", c.in, got, err)
		}
	}
	sed, err := Translate(`a\nb\tc`, Flags{Sed: true})
	if err != nil || sed != `a\nb\tc` {
		t.Errorf("sed escapes: %q, %v", sed, err)
	}
}

func TestTranslateErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		ere  bool
		want string
	}{
		{`\(a`, false, `Unmatched ( or \(`},
		{`a\)`, false, `Unmatched ) or \)`},
		{`(a`, true, `Unmatched ( or \(`},
		{`[a`, false, `Unmatched [, [^, [:, [., or [=`},
		{`a\{1`, false, `Unmatched \{`},
		{`a\{2,1\}`, false, `Invalid content of \{\}`},
		{`a\`, false, `Trailing backslash`},
		{`[[:bogus:]]`, false, `Invalid character class name`},
		{`a\{1001\}`, false, `Regular expression too big: repetition counts above 1000 are not supported`},
	} {
		_, err := Translate(c.in, Flags{ERE: c.ere})
		if err == nil || err.Error() != c.want {
			t.Errorf("Translate(%q): error %v, want %q", c.in, err, c.want)
		}
	}
	for _, p := range []string{`+a`, `a|*b`, `(?a)`, `{1}a`, `^*a`} {
		if _, err := Translate(p, Flags{ERE: true, Sed: true}); err == nil || err.Error() != "Invalid preceding regular expression" {
			t.Errorf("sed -E %q: error %v, want Invalid preceding regular expression", p, err)
		}
		if _, warnings, err := TranslateWarn(p, Flags{ERE: true}); err != nil || len(warnings) != 1 {
			t.Errorf("grep -E %q: warnings %q, error %v; want one warning", p, warnings, err)
		}
	}
	if _, err := Translate(`a)`, Flags{ERE: true, Sed: true}); err == nil {
		t.Errorf("sed -E a): no error, want Unmatched )")
	}
	_, err := Translate(`\(a\)\1`, Flags{})
	if !errors.Is(err, ErrBackref) {
		t.Errorf("backreference: %v, want ErrBackref", err)
	}
}

// FuzzTranslate: whatever the pattern, Translate either refuses it or returns what RE2
// compiles.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{`a.b`, `\(a\)*\{2,3\}`, `[]a-]`, `[^]]`, `^*`, `a**\+`, `x\{,2\}`, `\<\>\b`, `[[:alpha:][.-.][=a=]]`,
		`a|b(c)`, `{1}`, `a{1,2}{3}`, `(`, `)`, `[`, `\`, `\1`, `$^`, `a\|*b`, `(*a)`, `(|a)`, `\(\)`, "\xff\xfe"} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, p string, ere, sed bool) {
		got, err := Translate(p, Flags{ERE: ere, Sed: sed})
		if err != nil {
			return
		}
		if _, err := regexp.Compile(got); err != nil {
			t.Fatalf("Translate(%q, ere=%v) = %q, which RE2 refuses: %v", p, ere, got, err)
		}
	})
}
