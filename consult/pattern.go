package consult

import (
	"strings"
	"unicode/utf8"

	"github.com/gobwas/glob"
)

// maxClassRunes caps how many characters one [...] class may expand to. gobwas/glob classes are
// either one range or a list, so a mixed class such as [a-cx] is expanded into a list.
const maxClassRunes = 4096

// namePattern is a compiled file-name wildcard with Python fnmatch semantics on a single path
// element: * any run of characters, ? one character, [abc], [a-z], [!a-z] a character class
// (a ] right after [ or [! is a literal member, an unclosed [ is a literal). Everything else is
// literal: there are no braces and no backslash escapes.
type namePattern struct {
	source string
	glob   *glob.Pattern
	// matchHidden is Python glob's rule: names starting with "." match only when the pattern
	// itself starts with ".".
	matchHidden bool
}

// match reports whether the file name matches.
func (p *namePattern) match(name string) bool {
	if !p.matchHidden && strings.HasPrefix(name, ".") {
		return false
	}
	return p.glob.Match(name)
}

// hasMagic reports whether s contains a wildcard character, as Python's glob.has_magic does.
func hasMagic(s string) bool { return strings.ContainsAny(s, "*?[") }

// patternToken is one element of a parsed file-name pattern.
type patternToken struct {
	kind    byte   // 'l' literal, '*' star, '?' any one, '[' class
	literal string // kind 'l'
	negated bool   // kind '['
	members []rune // kind '[': single characters
	ranges  [][2]rune
}

// parseName splits a file-name pattern into tokens with fnmatch's rules. It returns a
// problem description for a class that can never match or is too wide; otherwise "".
func parseName(pat string) ([]patternToken, string) {
	var toks []patternToken
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, patternToken{kind: 'l', literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pat); {
		switch c := pat[i]; c {
		case '*':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != '*' {
				toks = append(toks, patternToken{kind: '*'})
			}
			i++
		case '?':
			flush()
			toks = append(toks, patternToken{kind: '?'})
			i++
		case '[':
			end := classEnd(pat, i)
			if end < 0 { // unclosed: a literal "[", as in fnmatch
				lit.WriteByte('[')
				i++
				continue
			}
			flush()
			tok, problem := parseClass(pat[i+1 : end])
			if problem != "" {
				return nil, problem
			}
			toks = append(toks, tok)
			i = end + 1
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return toks, ""
}

// classEnd returns the index of the "]" closing the class opened at pat[open], or -1.
func classEnd(pat string, open int) int {
	j := open + 1
	if j < len(pat) && pat[j] == '!' {
		j++
	}
	if j < len(pat) && pat[j] == ']' {
		j++
	}
	for j < len(pat) && pat[j] != ']' {
		j++
	}
	if j >= len(pat) {
		return -1
	}
	return j
}

// parseClass parses the inside of [...]: an optional leading "!", then members, where x-y is a
// range when "-" stands between two characters and a literal "-" otherwise.
func parseClass(body string) (patternToken, string) {
	tok := patternToken{kind: '['}
	if strings.HasPrefix(body, "!") {
		tok.negated = true
		body = body[1:]
	}
	rs := []rune(body)
	for k := 0; k < len(rs); {
		if k+2 < len(rs) && rs[k+1] == '-' {
			lo, hi := rs[k], rs[k+2]
			if lo > hi {
				return tok, "character class range " + string(lo) + "-" + string(hi) +
					" is empty; write ranges low to high, e.g. [a-z]"
			}
			tok.ranges = append(tok.ranges, [2]rune{lo, hi})
			k += 3
			continue
		}
		tok.members = append(tok.members, rs[k])
		k++
	}
	return tok, ""
}

// compileName compiles a file-name pattern for matching with gobwas/glob.
func compileName(pat string, toks []patternToken) (*namePattern, string) {
	var b strings.Builder
	for _, t := range toks {
		switch t.kind {
		case 'l':
			writeEscaped(&b, t.literal)
		case '*':
			b.WriteByte('*')
		case '?':
			b.WriteByte('?')
		case '[':
			if problem := writeClass(&b, t); problem != "" {
				return nil, problem
			}
		}
	}
	g, err := glob.Compile(b.String())
	if err != nil {
		// The translation only produces valid syntax; reaching this is a bug, reported as such.
		return nil, "pattern could not be compiled (" + err.Error() + "); simplify the character classes"
	}
	return &namePattern{source: pat, glob: g, matchHidden: strings.HasPrefix(pat, ".")}, ""
}

// writeEscaped writes s as gobwas literals: every character that is not a letter or digit is
// escaped, so braces, commas and backslashes in file names stay literal.
func writeEscaped(b *strings.Builder, s string) {
	for _, r := range s {
		if r < utf8.RuneSelf && !isAlnum(byte(r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// writeClass writes a class in gobwas syntax. gobwas accepts one range or a list of characters,
// so a single plain range is kept and anything else becomes an escaped list.
func writeClass(b *strings.Builder, t patternToken) string {
	b.WriteByte('[')
	if t.negated {
		b.WriteByte('!')
	}
	if len(t.members) == 0 && len(t.ranges) == 1 && isAlnumRune(t.ranges[0][0]) && isAlnumRune(t.ranges[0][1]) {
		b.WriteRune(t.ranges[0][0])
		b.WriteByte('-')
		b.WriteRune(t.ranges[0][1])
		b.WriteByte(']')
		return ""
	}
	n := len(t.members)
	for _, r := range t.ranges {
		n += int(r[1]-r[0]) + 1
		if n > maxClassRunes {
			return "character class is too wide (over 4096 characters); use a narrower class"
		}
	}
	set := make([]rune, 0, n)
	seen := make(map[rune]bool, n)
	add := func(r rune) {
		if !seen[r] {
			seen[r] = true
			set = append(set, r)
		}
	}
	for _, r := range t.members {
		add(r)
	}
	for _, rg := range t.ranges {
		for r := rg[0]; r <= rg[1]; r++ {
			add(r)
		}
	}
	// gobwas reads "x-" at the start of a class as a range, and an escaped first character is
	// still "\" followed by that character; so a "-" member goes first, unescaped, and every
	// other member is escaped.
	if seen['-'] {
		b.WriteByte('-')
	}
	for _, r := range set {
		if r != '-' {
			b.WriteByte('\\')
			b.WriteRune(r)
		}
	}
	b.WriteByte(']')
	return ""
}

func isAlnumRune(r rune) bool { return r < utf8.RuneSelf && isAlnum(byte(r)) }

// literalExtension returns the literal extension a wildcard pattern ends in (".py" for
// "*_test.py"), or "" when the text after the last wildcard has no "." followed by at least one
// character. "data.*", "*", "*.", "*.p?" and "*.[ch]" have none.
func literalExtension(toks []patternToken) string {
	if len(toks) == 0 || toks[len(toks)-1].kind != 'l' {
		return ""
	}
	tail := toks[len(toks)-1].literal
	dot := strings.LastIndexByte(tail, '.')
	if dot < 0 || dot == len(tail)-1 {
		return ""
	}
	return tail[dot:]
}
