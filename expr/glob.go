package expr

import (
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/gobwas/glob"
)

// MaxDepth is how many directory levels below a category directory "**" descends: the files
// of the MaxDepth-th level are found, those of deeper levels are not.
const MaxDepth = 8

// matcher is a compiled pattern: the glob variants that may match a slash-separated path
// relative to the category directory, the directory to start walking from, and how deep to go.
type matcher struct {
	globs    []*glob.Pattern
	base     string // slash-separated directory without wildcards; "." for the category root
	maxDepth int    // levels below base that can hold matches
}

// ValidatePattern reports whether p is a usable document pattern: a glob relative to the
// category directory with "*", "?", "[...]", "{a,b}" and "**". Errors have code
// INVALID_PATTERN.
func ValidatePattern(p string) error {
	_, err := compilePattern(p)
	return err
}

func compilePattern(p string) (*matcher, error) {
	bad := func(msg string) error {
		return agentfiles.NewError(CodeInvalidPattern, msg, p)
	}
	if p == "" {
		return nil, bad("pattern is empty; use e.g. *.md")
	}
	if strings.HasPrefix(p, "/") {
		return nil, bad("pattern " + quote(p) + " starts with '/'; patterns are relative to the category directory")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == ".." || s == "." || s == "" {
			return nil, bad("pattern " + quote(p) + " has an empty, '.' or '..' path segment; write paths like guides/*.md")
		}
	}
	m := &matcher{base: "."}
	static := 0
	for static < len(segs)-1 && !hasMeta(segs[static]) {
		static++
	}
	if static > 0 {
		m.base = strings.Join(segs[:static], "/")
	}
	m.maxDepth = len(segs) - static
	for _, s := range segs[static:] {
		if strings.Contains(s, "**") {
			// "**" reaches files in the MaxDepth-th directory level below the category
			// directory: static of those levels are spelled out, the entries of the last one
			// are one level further down.
			m.maxDepth = MaxDepth - static + 1
		}
	}
	variants := []string{p}
	if !hasExtension(p) {
		variants = append(variants, p+".*") // "intro" also finds intro.md
	}
	for _, v := range variants {
		g, err := globCompiler.Compile(v)
		if err != nil {
			return nil, bad("pattern " + quote(p) + " is not a valid glob (" + err.Error() + "); use *, ?, [a-z], {a,b} and **")
		}
		m.globs = append(m.globs, g)
	}
	return m, nil
}

// globCompiler treats "/" as the separator that "*" and "?" do not cross, and lets "**/" match
// zero or more whole directories, so "**/*.md" also finds top-level files.
var globCompiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// hasExtension reports whether the last segment of pattern p has a "." — when it has none, p
// also matches "p.*".
func hasExtension(p string) bool {
	return strings.Contains(p[strings.LastIndexByte(p, '/')+1:], ".")
}

func hasMeta(s string) bool {
	return strings.ContainsAny(s, `*?[]{}\`)
}

func (m *matcher) match(rel string) bool {
	for _, g := range m.globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }
