package consult

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// tokensRegexp is an independent reference for compileName: the same tokens as a Go regexp.
func tokensRegexp(toks []patternToken) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for _, t := range toks {
		switch t.kind {
		case 'l':
			b.WriteString(regexp.QuoteMeta(t.literal))
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			b.WriteByte('[')
			if t.negated {
				b.WriteByte('^')
			}
			for _, r := range t.members {
				b.WriteString(`\x{` + strconvHex(r) + `}`)
			}
			for _, rg := range t.ranges {
				b.WriteString(`\x{` + strconvHex(rg[0]) + `}-\x{` + strconvHex(rg[1]) + `}`)
			}
			b.WriteByte(']')
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

func strconvHex(r rune) string {
	const digits = "0123456789abcdef"
	if r == 0 {
		return "0"
	}
	var out []byte
	for r > 0 {
		out = append([]byte{digits[r%16]}, out...)
		r /= 16
	}
	return string(out)
}

func FuzzExpandEntry(f *testing.F) {
	for _, s := range []string{
		"/home/project/src/*.py", "/home/**/*.py", "/home/project/*", "src/*.py", "/home/*/project/*.py",
		"/a/data.*", "/a/*_test.go", "/a/[ab]*.py", "/a/.*.py", "/a/[!a-c]?.md", "/a/[]x]*.md", "/a/[*.py",
		"/a/[z-a].py", "/a/{a,b}.py", `/a/\*.py`, "/a/*.", "/a/*.p?", "/", "//", "/a/b/", "~/x.py", "",
		"/a/\x00.py", "/a/[--0]*.py", "/a/[!]*.py", "/a/日*.go", "/a/[é-ü]*.txt", "/a/../b/*.py",
	} {
		f.Add(s, "name.py")
	}
	f.Fuzz(func(t *testing.T, entry, name string) {
		spec, err := parseEntry(entry)
		if err != nil {
			if err.Code == (agentfiles.Code{}) || err.Message == "" {
				t.Fatalf("error without code or message: %#v", err)
			}
			return
		}
		if !strings.HasPrefix(entry, "/") || strings.Contains(entry, "**") || strings.IndexByte(entry, 0) >= 0 {
			t.Fatalf("accepted %q, which breaks the absolute/**/NUL rules", entry)
		}
		slash := strings.LastIndexByte(entry, '/')
		if hasMagic(entry[:slash]) {
			t.Fatalf("accepted %q with a wildcard in a directory", entry)
		}
		if spec.pattern == nil {
			if hasMagic(entry) || !strings.HasPrefix(spec.literal, "/") {
				t.Fatalf("literal spec for %q: %+v", entry, spec)
			}
			return
		}
		last := entry[slash+1:]
		toks, problem := parseName(last)
		if problem != "" {
			t.Fatalf("accepted %q although its classes are invalid: %s", entry, problem)
		}
		ext := literalExtension(toks)
		if len(ext) < 2 || ext[0] != '.' || toks[len(toks)-1].kind != 'l' || !strings.HasSuffix(toks[len(toks)-1].literal, ext) {
			t.Fatalf("accepted %q without a literal extension (tokens %+v)", entry, toks)
		}
		if spec.pattern.match(name) && !strings.HasSuffix(name, ext) {
			t.Fatalf("pattern %q matched %q, which does not end in %q", last, name, ext)
		}
		if !utf8.ValidString(last) || !utf8.ValidString(name) {
			return // the reference regexp works on valid UTF-8 only
		}
		ref := tokensRegexp(toks)
		for _, n := range []string{name, "." + name, strings.ReplaceAll(last, "*", ""), strings.ReplaceAll(last, "*", "x")} {
			want := ref.MatchString(n) && (!strings.HasPrefix(n, ".") || strings.HasPrefix(last, "."))
			if got := spec.pattern.match(n); got != want {
				t.Fatalf("pattern %q on %q: gobwas says %v, reference regexp %s says %v", last, n, got, ref, want)
			}
		}
	})
}
