package expr

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxExpressionBytes is the longest expression [Parse] accepts.
const MaxExpressionBytes = 4096

// Expression is a parsed content expression: one or more terms separated by commas. The zero
// value is an empty expression. An Expression is a plain value; it is safe for concurrent reads.
type Expression struct {
	Terms []Term
}

// Term is one comma-separated part of an expression: a category or collection name and,
// optionally, the patterns written after its "/".
type Term struct {
	// Name is the category or collection name, with surrounding whitespace removed.
	Name string
	// Patterns are the "+"-separated glob patterns after the first "/", each trimmed. Nil when
	// the term has no "/": the collection's overrides or the category's defaults then apply.
	Patterns []string
}

// String returns the canonical form of e: terms joined by ",", each "name" or
// "name/p1+p2", with no extra whitespace. Parsing it gives back an equal Expression.
func (e *Expression) String() string {
	var b strings.Builder
	for i, t := range e.Terms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.String())
	}
	return b.String()
}

// String returns the canonical form of the term: "name" or "name/p1+p2".
func (t Term) String() string {
	if len(t.Patterns) == 0 {
		return t.Name
	}
	return t.Name + "/" + strings.Join(t.Patterns, "+")
}

// Parse parses a content expression.
//
//	expression := term ("," term)*
//	term       := name ["/" pattern ("+" pattern)*]
//
// Comma binds loosest, then slash, then plus, so "lang/python+java,docs" is the two terms
// lang/(python+java) and docs. Only the first "/" of a term separates the name, so patterns
// may contain directories ("docs/guides/*.md"). Commas and plus signs inside "{...}" and
// "[...]" belong to the pattern ("docs/{intro,setup}.md"), and "\" escapes the next byte.
// Whitespace around names and patterns is ignored.
//
// Names are checked leniently: anything without a separator is accepted here (including a
// leading "_" for system categories) and looked up when the expression is resolved. Errors are
// *agentfiles.Error with code PARSE_ERROR whose message says what is wrong, where, and how to
// fix it; their cause is a *[SyntaxError] with the byte position, the offending text and the
// suggestion.
func Parse(s string) (*Expression, error) {
	if len(s) > MaxExpressionBytes {
		return nil, parseErr(MaxExpressionBytes, s[:32]+"...",
			"expression is longer than "+strconv.Itoa(MaxExpressionBytes)+" bytes",
			"split it into several calls, or store it as a collection with collection_add")
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, parseErr(i, s[i:i+1], "expression is not valid UTF-8", "")
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f:
			return nil, parseErr(i, s[i:i+size], "expression contains a control character",
				"remove it")
		}
		i += size
	}
	if strings.TrimSpace(s) == "" {
		return nil, parseErr(0, s, "expression is empty",
			"name a category or collection, e.g. docs or lang/python+java; call category_list and collection_list to see the names")
	}
	p := parser{s: s}
	e := &Expression{Terms: make([]Term, 0, strings.Count(s, ",")+1)}
	for i := 0; ; {
		t, next, err := p.term(i)
		if err != nil {
			return nil, err
		}
		e.Terms = append(e.Terms, t)
		if next >= len(s) {
			return e, nil
		}
		i = next + 1 // skip the comma
	}
}

type parser struct{ s string }

// term parses the term starting at byte i and returns it with the index of the comma that
// ends it (or len(s)).
func (p parser) term(start int) (Term, int, error) {
	s := p.s
	j := start
	for j < len(s) && s[j] != ',' && s[j] != '/' && s[j] != '+' {
		j++
	}
	name := strings.TrimSpace(s[start:j])
	if name == "" {
		switch {
		case j < len(s) && s[j] == '/':
			return Term{}, 0, parseErr(j, s[j:p.termEnd(j)], "missing category or collection name before '/'",
				"write name/pattern, e.g. docs"+s[j:p.termEnd(j)]+"; call category_list to see the names")
		case j < len(s) && s[j] == '+':
			return Term{}, 0, parseErr(j, "+", "'+' without a name before it",
				"write name/pattern1+pattern2, e.g. lang/python+java")
		case j < len(s): // a comma
			return Term{}, 0, parseErr(j, ",", "empty term: two commas with nothing between them, or a leading comma",
				remove(s, j, j+1))
		default:
			return Term{}, 0, parseErr(start, s[start:], "empty term after the last comma",
				strings.TrimSpace(s[:max(start-1, 0)]))
		}
	}
	if j == len(s) || s[j] == ',' {
		return Term{Name: name}, j, nil
	}
	if s[j] == '+' {
		return Term{}, 0, parseErr(j, name+"+", "'+' separates patterns and must come after '/'",
			"to combine names use ',' ("+strings.Replace(s[start:p.termEnd(j)], "+", ",", -1)+
				"); to combine patterns of one category write name/pattern1+pattern2")
	}
	// s[j] == '/': patterns follow.
	var pats []string
	k := j + 1
	for {
		pstart := k
		braces, bracketAt, braceAt := 0, -1, -1
	scan:
		for ; k < len(s); k++ {
			c := s[k]
			switch {
			case bracketAt >= 0:
				if c == ']' {
					bracketAt = -1
				}
			case c == '\\':
				if k+1 == len(s) {
					return Term{}, 0, parseErr(k, `\`, `dangling '\' at the end of a pattern`,
						`remove it, or escape a character after it (\*)`)
				}
				k++
			case c == '[':
				bracketAt = k
			case c == '{':
				if braces == 0 {
					braceAt = k
				}
				braces++
			case c == '}':
				if braces == 0 {
					return Term{}, 0, parseErr(k, "}", "'}' without a matching '{'",
						"write alternatives as {a,b}, e.g. docs/{intro,setup}.md")
				}
				braces--
			case braces == 0 && (c == ',' || c == '+'):
				break scan
			}
		}
		if bracketAt >= 0 {
			return Term{}, 0, parseErr(bracketAt, s[bracketAt:k], "'[' without a closing ']'",
				"close the character class, e.g. docs/[a-c]*.md")
		}
		if braces > 0 {
			return Term{}, 0, parseErr(braceAt, s[braceAt:k], "'{' without a closing '}'",
				"close the alternatives, e.g. docs/{intro,setup}.md")
		}
		pat := strings.TrimSpace(s[pstart:k])
		if pat == "" {
			return Term{}, 0, p.emptyPattern(start, j, pstart, k, name, pats)
		}
		if trailingBackslashes(pat)%2 == 1 { // "b\ " trimmed to "b\": the escaped space is gone
			return Term{}, 0, parseErr(pstart, pat, `a pattern cannot end with an escaping '\'`,
				`remove it, or escape a character after it (\*)`)
		}
		if err := checkPatternShape(pstart, pat); err != nil {
			return Term{}, 0, err
		}
		pats = append(pats, pat)
		if k < len(s) && s[k] == '+' {
			k++
			continue
		}
		return Term{Name: name, Patterns: pats}, k, nil
	}
}

// emptyPattern explains an empty pattern: "a/", "a/+b", "a/b++c" or "a/b+".
func (p parser) emptyPattern(start, slash, pstart, k int, name string, pats []string) error {
	s := p.s
	switch {
	case len(pats) == 0 && (k == len(s) || s[k] == ','):
		return parseErr(slash, name+"/", "empty pattern after '/'",
			name+" (the category's default patterns) or "+name+"/pattern, e.g. "+name+"/*.md")
	case len(pats) == 0:
		return parseErr(pstart, "+", "empty pattern before '+'", remove(s, k, k+1))
	case k == len(s) || s[k] == ',':
		return parseErr(pstart-1, "+", "trailing '+' with no pattern after it", remove(s, pstart-1, pstart))
	default:
		return parseErr(pstart, "++", "empty pattern between two '+'", remove(s, k, k+1))
	}
}

// checkPatternShape rejects patterns that could never stay inside a category directory.
func checkPatternShape(pos int, pat string) error {
	if strings.HasPrefix(pat, "/") {
		return parseErr(pos, pat, "patterns are relative to the category directory and cannot start with '/'",
			strings.TrimLeft(pat, "/"))
	}
	for _, seg := range strings.Split(pat, "/") {
		if seg == ".." {
			return parseErr(pos, pat, "patterns cannot contain '..': documents never come from outside their category directory",
				"add a category for the other directory with category_add")
		}
	}
	return nil
}

// termEnd returns the index of the comma ending the term that contains i, or len(s).
func (p parser) termEnd(i int) int {
	if n := strings.IndexByte(p.s[i:], ','); n >= 0 {
		return i + n
	}
	return len(p.s)
}

func remove(s string, from, to int) string {
	return strings.TrimSpace(s[:from] + s[to:])
}

func trailingBackslashes(s string) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n
}
