// Package globmatch compiles and matches the glob patterns of file_glob, file_grep's glob and
// file_search's glob: segments with *, ?, classes and braces, ** across directories, and a
// leading ! for negation, matched in time linear in pattern × path with no backtracking.
package globmatch

import (
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// MaxBytes is the longest glob pattern Compile accepts.
const MaxBytes = 1024

// Glob is a compiled path pattern, as file_glob, file_grep's glob and file_search's glob take it.
// Create it with Compile; it is immutable and safe for concurrent use.
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

// globSegment is one segment of a pattern: a compiled segment, or the globstar "**".
type globSegment struct {
	prog     *segmentProgram // nil for the globstar and for a literal segment
	literal  string          // the segment when it holds no wildcard, else ""
	globstar bool
}

// Compile compiles pattern (see Glob). An empty or malformed pattern is an
// *agentfiles.Error with code INVALID_ARGUMENT whose message says what to fix.
func Compile(pattern string) (*Glob, error) {
	body, negated := strings.CutPrefix(pattern, "!")
	for strings.HasPrefix(body, "./") {
		body = body[2:]
	}
	body = strings.TrimPrefix(body, "/")
	switch {
	case body == "":
		return nil, globError(pattern, `glob is empty; give a pattern such as "**/*.md"`)
	case len(pattern) > MaxBytes:
		return nil, globError(pattern, fmt.Sprintf("glob is %d bytes; the maximum is %d", len(pattern), MaxBytes))
	}
	parts, err := splitGlob(body)
	if err != nil {
		return nil, globError(pattern, err.Error())
	}
	g := &Glob{source: pattern, baseName: len(parts) == 1, negated: negated}
	alternatives := 1
	for _, part := range parts {
		if part == "" {
			return nil, globError(pattern, `glob has an empty segment ("//" or a trailing "/"); remove the extra "/"`)
		}
		if part == "**" {
			if n := len(g.segments); n > 0 && g.segments[n-1].globstar {
				continue // "**/**" is "**"
			}
			g.segments = append(g.segments, globSegment{globstar: true})
			continue
		}
		// Within a segment "**" means what "*" means.
		for strings.Contains(part, "**") {
			part = strings.ReplaceAll(part, "**", "*")
		}
		if !strings.ContainsAny(part, `*?[]{}\`) {
			g.segments = append(g.segments, globSegment{literal: part})
			continue
		}
		prog, alts, err := compileSegment(part)
		if err != nil {
			return nil, globError(pattern, err.Error())
		}
		if alternatives = min(alternatives*alts, MaxAlternatives+1); alternatives > MaxAlternatives {
			return nil, globError(pattern, fmt.Sprintf("the braces stand for more than %d alternatives; "+
				`list the alternatives in one group ("*.{md,txt,go}"), drop empty ones ("{,}" matches only ""), or glob in several calls`, MaxAlternatives))
		}
		g.segments = append(g.segments, globSegment{prog: prog})
	}
	if last := len(g.segments) - 1; g.segments[last].globstar {
		// A final "**" matches at least one segment: one of anything, then any number more.
		any, _, _ := compileSegment("*")
		g.segments = append(g.segments[:last], globSegment{prog: any}, globSegment{globstar: true})
	}
	return g, nil
}

// Match reports whether the relative path name matches pattern (see Glob). It compiles
// pattern on every call: compile once with Compile to match many paths.
func Match(pattern, name string) (bool, error) {
	g, err := Compile(pattern)
	if err != nil {
		return false, err
	}
	return g.Match(name), nil
}

// String returns the pattern as given to Compile.
func (g *Glob) String() string { return g.source }

// BaseNameOnly reports whether the pattern has no "/": file_grep then matches it against the
// base name of each file, as ripgrep's -g does.
func (g *Glob) BaseNameOnly() bool { return g.baseName }

// Match reports whether the relative path name ("a/b.md", no leading "/") matches the whole
// pattern.
func (g *Glob) Match(name string) bool {
	ok, _ := matchSegments(g.segments, name)
	return ok != g.negated
}

// MatchFile reports whether the file at path (a store path, "/docs/a.md") matches as file_grep's
// glob does below dir (a store path, "" for the root): a pattern without "/" against the base
// name, any other against the path relative to dir. A file outside dir never matches.
func (g *Glob) MatchFile(dir, path string) bool {
	if g.baseName {
		return g.Match(path[strings.LastIndexByte(path, '/')+1:])
	}
	rel, ok := RelativeTo(dir, path)
	return ok && g.Match(rel)
}

// LiteralDirs is the directory part of the pattern's leading segments that hold no wildcard
// ("docs/api/" for "docs/api/*.md"): only files below it can match ("" for a negated pattern,
// which matches everywhere else).
func (g *Glob) LiteralDirs() string {
	if g.negated {
		return ""
	}
	var b strings.Builder
	for _, seg := range g.segments[:len(g.segments)-1] {
		if seg.literal == "" || seg.globstar {
			break
		}
		b.WriteString(seg.literal)
		b.WriteByte('/')
	}
	return b.String()
}

// RelativeTo returns path relative to dir, both store paths. A path equal to dir (a file
// searched on its own) is relative to its parent: its base name.
func RelativeTo(dir, path string) (string, bool) {
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

// matchSegments matches pattern segments against the segments of a path (names, "/"-separated)
// by simulating every position in the pattern at once: a globstar stays where it is or lets
// the next segment try each name. Each name is tried at most once against each pattern
// segment, and each segment program costs at most its length per character (see
// segmentProgram), so a match takes at most about len(pattern) × len(path) steps, however
// many globstars and braces the pattern holds. It returns the steps taken, for tests.
func matchSegments(segs []globSegment, path string) (bool, int) {
	var sim segmentSim
	n := len(segs)
	cur, next := make([]bool, n+1), make([]bool, n+1)
	closeOver := func(set []bool) {
		for i := 0; i < n; i++ {
			if set[i] && segs[i].globstar {
				set[i+1] = true // "**" matches no segment too
			}
		}
	}
	cur[0] = true
	closeOver(cur)
	steps := 0
	for rest := path; ; {
		name, tail, more := strings.Cut(rest, "/")
		clear(next)
		alive := false
		for i := 0; i < n; i++ {
			if !cur[i] {
				continue
			}
			steps++
			seg := &segs[i]
			ok := seg.globstar
			switch {
			case seg.globstar:
				next[i] = true
			case seg.prog == nil:
				ok = name == seg.literal
				steps += len(seg.literal)
			default:
				var s int
				ok, s = seg.prog.match(name, &sim)
				steps += s
			}
			if ok && !seg.globstar {
				next[i+1] = true
			}
			alive = alive || ok
		}
		cur, next = next, cur
		if !alive {
			return false, steps
		}
		closeOver(cur)
		if !more {
			break
		}
		rest = tail
	}
	return cur[n], steps
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
