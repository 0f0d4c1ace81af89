package fileio

import (
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/gobwas/glob"
)

// MaxGlobBytes is the longest glob pattern CompileGlob accepts.
const MaxGlobBytes = 1024

// Glob is a compiled path pattern, as file_glob, file_grep's glob and file_search's glob take it.
// Create it with CompileGlob; it is immutable and safe for concurrent use.
//
// A pattern is a "/"-separated list of segments matched against the segments of a relative
// path ("notes/todo.md"), the way Python's glob.glob(pattern, recursive=True,
// include_hidden=True) and ripgrep's -g do it:
//
//   - any run of characters within one segment ("*.md" matches "a.md", ".env.md")
//     ?        one character within a segment
//     [abc]    one character of the class; [a-z] a range; [!abc] or [^abc] any other character
//     {a,b}    either alternative, within one segment ("*.{md,txt}")
//     **       as a whole segment: any number of directories, none included ("**/x.md" matches
//     "x.md" and "a/b/x.md"); as the last segment: everything below ("docs/**")
//     \c       the character c itself
//     !        first: the paths that do not match the rest ("!**/*_test.go"), as in rg -g
//
// Dot files match like other files. A leading "/" or "./" is ignored: patterns are always
// relative.
type Glob struct {
	source   string
	segments []globSegment
	baseName bool // the pattern has no "/": it applies to the last segment of a path only
	negated  bool // a leading "!": Match is true for the paths the rest does not match
}

// globSegment is one segment of a pattern: a gobwas matcher, or the globstar "**" (nil).
type globSegment struct {
	match   *glob.Pattern
	literal string // the segment when it holds no wildcard, else ""
}

// CompileGlob compiles pattern (see Glob). An empty or malformed pattern is an
// *agentfiles.Error with code INVALID_ARGUMENT whose message says what to fix.
func CompileGlob(pattern string) (*Glob, error) {
	body, negated := strings.CutPrefix(pattern, "!")
	for strings.HasPrefix(body, "./") {
		body = body[2:]
	}
	body = strings.TrimPrefix(body, "/")
	switch {
	case body == "":
		return nil, globError(pattern, `glob is empty; give a pattern such as "**/*.md"`)
	case len(pattern) > MaxGlobBytes:
		return nil, globError(pattern, fmt.Sprintf("glob is %d bytes; the maximum is %d", len(pattern), MaxGlobBytes))
	}
	parts, err := splitGlob(body)
	if err != nil {
		return nil, globError(pattern, err.Error())
	}
	g := &Glob{source: pattern, baseName: len(parts) == 1, negated: negated}
	for _, part := range parts {
		if part == "" {
			return nil, globError(pattern, `glob has an empty segment ("//" or a trailing "/"); remove the extra "/"`)
		}
		if part == "**" {
			if n := len(g.segments); n > 0 && g.segments[n-1].match == nil {
				continue // "**/**" is "**"
			}
			g.segments = append(g.segments, globSegment{})
			continue
		}
		// Within a segment "**" means what "*" means; gobwas would let it cross "/", which no
		// segment holds anyway.
		for strings.Contains(part, "**") {
			part = strings.ReplaceAll(part, "**", "*")
		}
		translated, err := translateClasses(part)
		if err != nil {
			return nil, globError(pattern, err.Error())
		}
		m, err := glob.Compile(translated, '/')
		if err != nil {
			return nil, globError(pattern, "segment "+fmt.Sprintf("%q", part)+" is not a valid glob ("+err.Error()+
				`); escape literal "[", "{" or "\" with "\"`)
		}
		seg := globSegment{match: m}
		if !strings.ContainsAny(part, `*?[]{}\!^`) {
			seg.literal = part
		}
		g.segments = append(g.segments, seg)
	}
	return g, nil
}

// MatchGlob reports whether the relative path name matches pattern (see Glob). It compiles
// pattern on every call: compile once with CompileGlob to match many paths.
func MatchGlob(pattern, name string) (bool, error) {
	g, err := CompileGlob(pattern)
	if err != nil {
		return false, err
	}
	return g.Match(name), nil
}

// String returns the pattern as given to CompileGlob.
func (g *Glob) String() string { return g.source }

// BaseNameOnly reports whether the pattern has no "/": file_grep then matches it against the
// base name of each file, as ripgrep's -g does.
func (g *Glob) BaseNameOnly() bool { return g.baseName }

// Match reports whether the relative path name ("a/b.md", no leading "/") matches the whole
// pattern.
func (g *Glob) Match(name string) bool {
	return matchSegments(g.segments, strings.Split(name, "/")) != g.negated
}

// MatchFile reports whether the file at path (a store path, "/docs/a.md") matches as file_grep's
// glob does below dir (a store path, "" for the root): a pattern without "/" against the base
// name, any other against the path relative to dir. A file outside dir never matches.
func (g *Glob) MatchFile(dir, path string) bool {
	if g.baseName {
		return g.Match(path[strings.LastIndexByte(path, '/')+1:])
	}
	rel, ok := relativeTo(dir, path)
	return ok && g.Match(rel)
}

// literalDirs is the directory part of the pattern's leading segments that hold no wildcard
// ("docs/api/" for "docs/api/*.md"): only files below it can match ("" for a negated pattern,
// which matches everywhere else).
func (g *Glob) literalDirs() string {
	if g.negated {
		return ""
	}
	var b strings.Builder
	for _, seg := range g.segments[:len(g.segments)-1] {
		if seg.literal == "" {
			break
		}
		b.WriteString(seg.literal)
		b.WriteByte('/')
	}
	return b.String()
}

// relativeTo returns path relative to dir, both store paths. A path equal to dir (a file
// searched on its own) is relative to its parent: its base name.
func relativeTo(dir, path string) (string, bool) {
	switch {
	case dir == "":
		return strings.TrimPrefix(path, "/"), true
	case path == dir:
		return path[strings.LastIndexByte(path, '/')+1:], true
	case strings.HasPrefix(path, dir) && len(path) > len(dir) && path[len(dir)] == '/':
		return path[len(dir)+1:], true
	}
	return "", false
}

// matchSegments matches pattern segments against path segments. A globstar matches zero or
// more path segments, but at least one when it ends the pattern (a file lies below the
// directory it names). The recursion backtracks only at globstars; runs of them are merged at
// compile time, so the cost is at most len(segs) × len(names) per globstar.
func matchSegments(segs []globSegment, names []string) bool {
	for len(segs) > 0 {
		if segs[0].match == nil {
			rest := segs[1:]
			if len(rest) == 0 {
				return len(names) > 0
			}
			for i := 0; i <= len(names); i++ {
				if matchSegments(rest, names[i:]) {
					return true
				}
			}
			return false
		}
		if len(names) == 0 || !segs[0].match.Match(names[0]) {
			return false
		}
		segs, names = segs[1:], names[1:]
	}
	return len(names) == 0
}

// splitGlob splits a pattern at the "/" outside braces and classes; a "/" inside them is an
// error, since a segment cannot hold one.
func splitGlob(p string) ([]string, error) {
	var parts []string
	depth, inClass, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && (p[i+1] == '!' || p[i+1] == '^') {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // "[]...]": a leading "]" is a member
			}
		case c == '{':
			depth++
		case c == '}':
			depth = max(depth-1, 0)
		case c == '/':
			if depth > 0 || inClass {
				return nil, fmt.Errorf(`"/" inside braces or a class at byte %d; alternatives and classes apply within one segment, write "{a,b}/c" not "{a/c,b/c}"`, i)
			}
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	if inClass {
		return nil, fmt.Errorf(`unclosed "["; close the class with "]" or escape the bracket as "\["`)
	}
	return append(parts, p[start:]), nil
}

// translateClasses rewrites the character classes of one segment into gobwas syntax, which
// takes either one range or a list: each class becomes the explicit list of the printable
// ASCII characters it holds (paths hold no others), "[!...]" for a negated one. A class that
// holds none of them matches nothing, written as a class of the one character no path holds.
func translateClasses(seg string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '\\' && i+1 < len(seg) {
			b.WriteString(seg[i : i+2])
			i++
			continue
		}
		if c != '[' {
			b.WriteByte(c)
			continue
		}
		end, members, negated, err := parseClass(seg, i)
		if err != nil {
			return "", err
		}
		switch {
		case len(members) == 0 && negated:
			b.WriteByte('?')
		case len(members) == 0:
			b.WriteString(`[\/]`) // "/" is never inside a segment
		default:
			b.WriteByte('[')
			if negated {
				b.WriteByte('!')
			}
			for _, m := range members {
				b.WriteByte('\\')
				b.WriteByte(m)
			}
			b.WriteByte(']')
		}
		i = end
	}
	return b.String(), nil
}

// parseClass parses the class that starts at seg[start] == '[' and returns the index of its
// closing "]", its printable ASCII members, and whether it is negated ("[!" or "[^").
func parseClass(seg string, start int) (int, []byte, bool, error) {
	i := start + 1
	negated := i < len(seg) && (seg[i] == '!' || seg[i] == '^')
	if negated {
		i++
	}
	var in [128]bool
	first := true
	for ; i < len(seg); i++ {
		c := seg[i]
		if c == ']' && !first {
			var members []byte
			for m := byte(' '); m < 127; m++ {
				if in[m] {
					members = append(members, m)
				}
			}
			return i, members, negated, nil
		}
		first = false
		if c == '\\' && i+1 < len(seg) {
			i++
			c = seg[i]
		}
		lo, hi := c, c
		if i+2 < len(seg) && seg[i+1] == '-' && seg[i+2] != ']' {
			hi = seg[i+2]
			if hi == '\\' && i+3 < len(seg) {
				hi = seg[i+3]
				i++
			}
			i += 2
			if lo > hi {
				return 0, nil, false, fmt.Errorf("character class range %c-%c is empty; write ranges low to high, e.g. [a-z]", lo, hi)
			}
		}
		for m := int(lo); m <= int(hi) && m < 128; m++ {
			in[m] = true
		}
	}
	return 0, nil, false, fmt.Errorf(`unclosed "["; close the class with "]" or escape the bracket as "\["`)
}

func globError(pattern, msg string) error {
	return agentfiles.NewError(agentfiles.CodeInvalidPattern, "glob: "+msg, pattern)
}
