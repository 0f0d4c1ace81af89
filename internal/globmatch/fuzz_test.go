package globmatch_test

import (
	"path"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// FuzzGlob compares Glob.Match with referenceGlob on patterns without braces (which path.Match
// lacks) and valid relative paths.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{
		{"*.md", "a.md"}, {"**/*.md", "a/b/c.md"}, {"**/*.md", "c.md"}, {"a/**", "a"}, {"a/**", "a/b/c"},
		{"a/**/b", "a/b"}, {"[a-c]?.txt", "bx.txt"}, {"[!a]*", ".env"}, {"*", ".hidden"}, {"**/**/x", "x"},
		{"a*b*c", "abxbc"}, {`\*`, "*"}, {"x/*/y", "x/z/y"}, {"!*.md", "a.txt"}, {"./a/*", "a/b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if strings.ContainsAny(pattern, "{}") || len(pattern) > 64 || len(name) > 64 || name == "" {
			return
		}
		for _, seg := range strings.Split(name, "/") {
			if seg == "" || strings.Trim(seg, "abcxyz._-") != "" {
				return
			}
		}
		body, negated := strings.CutPrefix(pattern, "!")
		for strings.HasPrefix(body, "./") {
			body = body[2:]
		}
		body = strings.TrimPrefix(body, "/")
		segs := strings.Split(body, "/")
		for i, s := range segs {
			if s != "**" {
				for strings.Contains(s, "**") {
					s = strings.ReplaceAll(s, "**", "*")
				}
				segs[i] = strings.ReplaceAll(s, "[!", "[^")
			}
		}
		want, refErr := referenceGlob(segs, strings.Split(name, "/"))
		g, err := globmatch.Compile(pattern)
		if err != nil || refErr != nil {
			return // malformed for one of them; the matchers disagree on what is malformed
		}
		if negated {
			want = !want
		}
		if got := g.Match(name); got != want {
			t.Fatalf("Glob(%q).Match(%q) = %v, reference %v", pattern, name, got, want)
		}
	})
}

// referenceGlob matches a relative path with path.Match per segment and "**" spanning any
// number of segments (at least one at the end): an independent statement of the Glob rules.
func referenceGlob(segs, names []string) (bool, error) {
	if len(segs) == 0 {
		return len(names) == 0, nil
	}
	if segs[0] == "**" {
		if len(segs) == 1 {
			return len(names) > 0, nil
		}
		for i := 0; i <= len(names); i++ {
			if ok, err := referenceGlob(segs[1:], names[i:]); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	if len(names) == 0 {
		return false, nil
	}
	ok, err := path.Match(segs[0], names[0])
	if !ok || err != nil {
		return ok, err
	}
	return referenceGlob(segs[1:], names[1:])
}
