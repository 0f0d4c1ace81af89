// Package posixre translates POSIX regular expressions as GNU grep and sed read them —
// basic (BRE) and extended (ERE), with GNU's extensions — into Go's RE2 syntax, so the
// commands match in time linear in their input.
//
// # What translates
//
// Groups, alternation (\| in a BRE), the repetitions * \+ \? \{m,n\} (+ ? {m,n} in an ERE,
// {,n} meaning {0,n}), anchors where POSIX makes them anchors (a BRE's ^ only at the start
// of the expression or of a group or alternative, $ only at its end; elsewhere they are
// literal), a leading * as a literal, bracket expressions with ] first, [:class:], [=c=] and
// [.c.], backslashes inside brackets as literal, \w \W \s \S, \b \B, \< \> (as \b), \` \'
// and, for sed, \n and \t.
//
// # Where grep and sed part ways
//
// GNU reads some odd patterns differently in grep and in sed, and Flags.Sed picks sed's
// reading: an ERE repetition with nothing to repeat ("+a", "a|*b", "(?x)") is dropped by
// grep with a warning (TranslateWarn returns its text) and refused by sed ("Invalid
// preceding regular expression"); a BRE's leading \{m,n\} is the text "{m,n}" for grep and
// an error for sed; sed refuses a BRE repetition of a repetition ("a**") and an ERE ")" or
// "{" without its partner, which grep reads as text. A BRE repetition after ^ or an
// assertion (\b, \<) is literal in both.
//
// # What is refused
//
// Backreferences (\1 … \9): RE2 has none, and a regexp with them can take exponential
// time. Repetition counts above 1000 (RE2's bound). Errors carry GNU's text ("Unmatched (
// or \(", "Invalid content of \{\}", "Trailing backslash") where GNU has one.
//
// # What differs
//
// Go matches UTF-8 runes where LC_ALL=C matches bytes: "." matches "é" as one character,
// not two. \< and \> both become \b, which also matches at the other edge of a word.
package posixre

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Flags change how a pattern reads.
type Flags struct {
	// ERE reads an extended expression (grep -E, sed -E); else a basic one.
	ERE bool
	// Sed accepts sed's escapes \n and \t (and \cX style is not read).
	Sed bool
}

// Error is a pattern that cannot be translated; its text is GNU's where GNU has one.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// ErrBackref is wrapped by the error of a pattern with a backreference.
var ErrBackref = errors.New("backreferences are not supported")

type backrefError struct{ n byte }

func (e *backrefError) Error() string {
	return fmt.Sprintf("backreference \\%c is not supported: matching is RE2 (linear time), which has no backreferences", e.n)
}
func (e *backrefError) Unwrap() error { return ErrBackref }

const maxRepeat = 1000

type translator struct {
	warnings []string
	src      string
	i        int
	ere      bool
	sed      bool
	out      strings.Builder
	depth    int
	// atomStart is the output offset where the last atom began (-1 when there is none to
	// repeat); quantified says that atom already carries a repetition.
	atomStart  int
	quantified bool
}

// Translate returns the RE2 form of the POSIX pattern p.
func Translate(p string, f Flags) (string, error) {
	re, _, err := TranslateWarn(p, f)
	return re, err
}

// TranslateWarn is Translate, with the warnings GNU grep prints for the pattern ("* at
// start of expression": an ERE repetition with nothing to repeat, which grep drops).
func TranslateWarn(p string, f Flags) (string, []string, error) {
	t := &translator{src: p, ere: f.ERE, sed: f.Sed, atomStart: -1}
	if err := t.run(); err != nil {
		return "", nil, err
	}
	out := t.out.String()
	// What translates must compile; what RE2 still refuses is GNU's error where one fits.
	if _, err := regexp.Compile(out); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		if strings.Contains(msg, "invalid character class range") {
			msg = "Invalid range end"
		}
		return "", nil, &Error{msg}
	}
	return out, t.warnings, nil
}

// atStart reports whether position i starts the expression, a group or an alternative
// (where a BRE's ^ is an anchor and * is literal).
func (t *translator) atStart(i int) bool {
	if i == 0 {
		return true
	}
	prev := t.src[:i]
	if t.ere {
		return strings.HasSuffix(prev, "(") && !strings.HasSuffix(prev, `\(`) || strings.HasSuffix(prev, "|") && !strings.HasSuffix(prev, `\|`)
	}
	return strings.HasSuffix(prev, `\(`) || strings.HasSuffix(prev, `\|`)
}

func (t *translator) atom(s string) {
	t.atomStart = t.out.Len()
	t.quantified = false
	t.out.WriteString(s)
}

func (t *translator) literal(b byte) {
	t.atom(quoteByte(b))
}

func quoteByte(b byte) string {
	if strings.IndexByte(`\.+*?()|[]{}^$`, b) >= 0 {
		return `\` + string(b)
	}
	return string([]byte{b})
}

func (t *translator) noAtom() {
	t.atomStart = -1
	t.quantified = false
}

// quantify applies the repetition q to the last atom (a literal when there is none).
func (t *translator) quantify(q string, literal string) error {
	if t.atomStart < 0 {
		t.atom(literal)
		return nil
	}
	if t.quantified && t.sed && !t.ere {
		return &Error{"Invalid preceding regular expression"} // sed: "a**", "a*\{2\}"
	}
	if t.quantified {
		s := t.out.String()
		t.out.Reset()
		t.out.WriteString(s[:t.atomStart])
		t.out.WriteString("(?:" + s[t.atomStart:] + ")")
	}
	t.out.WriteString(q)
	t.quantified = true
	return nil
}

func (t *translator) run() error {
	groupStarts := []int{}
	for t.i < len(t.src) {
		c := t.src[t.i]
		start := t.i
		t.i++
		switch {
		case c == '\\':
			if t.i >= len(t.src) {
				return &Error{"Trailing backslash"}
			}
			e := t.src[t.i]
			t.i++
			switch {
			case !t.ere && e == '(':
				groupStarts = append(groupStarts, t.out.Len())
				t.out.WriteString("(")
				t.noAtom()
				t.depth++
			case !t.ere && e == ')':
				if t.depth == 0 {
					return &Error{`Unmatched ) or \)`}
				}
				t.depth--
				t.out.WriteString(")")
				t.atomStart = groupStarts[len(groupStarts)-1]
				groupStarts = groupStarts[:len(groupStarts)-1]
				t.quantified = false
			case !t.ere && e == '|':
				t.out.WriteString("|")
				t.noAtom()
			case !t.ere && (e == '+' || e == '?'):
				if t.atStart(start) {
					t.literal(e)
				} else {
					if err := t.quantify(string(e), quoteByte(e)); err != nil {
						return err
					}
				}
			case !t.ere && e == '{':
				if err := t.interval(); err != nil {
					return err
				}
			case e >= '1' && e <= '9':
				return &backrefError{e}
			case e == 'w' || e == 'W' || e == 's' || e == 'S':
				t.atom(`\` + string(e))
			case e == 'b' || e == 'B' || e == '<' || e == '>':
				// A repetition after an assertion: literal in a BRE ("a\b*" matches "a*"),
				// the assertion repeated in grep -E, refused by sed -E.
				a := `\b`
				if e == 'B' {
					a = `\B`
				}
				if t.ere && !t.sed {
					t.atom(`(?:` + a + `)`)
				} else {
					t.out.WriteString(a)
					t.noAtom()
				}
			case e == '`':
				t.out.WriteString(`\A`)
				t.noAtom()
			case e == '\'':
				t.out.WriteString(`\z`)
				t.noAtom()
			case t.sed && e == 'n':
				t.atom(`\n`)
			case t.sed && e == 't':
				t.atom(`\t`)
			case t.sed && e == 'r':
				t.atom(`\r`)
			case t.sed && e == 'f':
				t.atom(`\f`)
			case t.sed && e == 'v':
				t.atom(`\v`)
			case t.sed && e == 'a':
				t.atom(`\x07`)
			case e >= utf8.RuneSelf:
				t.i = t.utf8Atom(t.i - 1)
			default:
				t.literal(e)
			}
		case c == '[':
			if err := t.bracket(); err != nil {
				return err
			}
		case c == '.':
			t.atom(".")
		case c == '*':
			switch {
			case t.ere && t.atomStart < 0:
				if err := t.leadingQuantifier("*"); err != nil {
					return err
				}
			case !t.ere && (t.atStart(start) || (start > 0 && t.src[start-1] == '^' && t.atStart(start-1))):
				t.literal('*')
			default:
				if t.quantified && strings.HasSuffix(t.out.String(), "*") && !(t.sed && !t.ere) {
					continue // a** is a*
				}
				if err := t.quantify("*", `\*`); err != nil {
					return err
				}
			}
		case c == '^':
			if t.ere || t.atStart(start) {
				t.out.WriteString("^")
				t.noAtom()
			} else {
				t.literal('^')
			}
		case c == '$':
			rest := t.src[t.i:]
			if t.ere && !t.sed {
				t.atom("(?:$)") // grep -E: "${1,2}" repeats the anchor
			} else if t.ere {
				t.out.WriteString("$")
				t.noAtom()
			} else if rest == "" || strings.HasPrefix(rest, `\)`) || strings.HasPrefix(rest, `\|`) {
				t.out.WriteString("$")
				t.noAtom()
			} else {
				t.literal('$')
			}
		case t.ere && c == '(':
			groupStarts = append(groupStarts, t.out.Len())
			t.out.WriteString("(")
			t.noAtom()
			t.depth++
		case t.ere && c == ')':
			if t.depth == 0 {
				if t.sed {
					return &Error{`Unmatched ) or \)`}
				}
				t.literal(')') // grep -E reads a lone ")" as itself
				continue
			}
			t.depth--
			t.out.WriteString(")")
			t.atomStart = groupStarts[len(groupStarts)-1]
			groupStarts = groupStarts[:len(groupStarts)-1]
			t.quantified = false
		case t.ere && c == '|':
			t.out.WriteString("|")
			t.noAtom()
		case t.ere && (c == '+' || c == '?'):
			if t.atomStart < 0 {
				if err := t.leadingQuantifier(string(c)); err != nil {
					return err
				}
				continue
			}
			if err := t.quantify(string(c), quoteByte(c)); err != nil {
				return err
			}
		case t.ere && c == '{' && t.sed:
			// sed -E: "{" always starts a count.
			switch {
			case t.atomStart < 0:
				return &Error{"Invalid preceding regular expression"}
			case strings.IndexByte(t.src[t.i:], '}') < 0:
				return &Error{`Unmatched \{`}
			case !validInterval(t.src[t.i:]):
				return &Error{`Invalid content of \{\}`}
			}
			if err := t.interval(); err != nil {
				return err
			}
		case t.ere && c == '{':
			if !validInterval(t.src[t.i:]) {
				t.literal('{')
				continue
			}
			if t.atomStart < 0 {
				if err := t.leadingQuantifier("{...}"); err != nil {
					return err
				}
				t.i += strings.IndexByte(t.src[t.i:], '}') + 1
				continue
			}
			if err := t.interval(); err != nil {
				return err
			}
		case c >= utf8.RuneSelf:
			// A UTF-8 character is one atom; a byte that is not UTF-8 matches what Go reads
			// there (U+FFFD).
			t.i = t.utf8Atom(start)
		default:
			t.literal(c)
		}
	}
	if t.depth > 0 {
		return &Error{`Unmatched ( or \(`}
	}
	return nil
}

// leadingQuantifier handles an ERE repetition with nothing before it (at the start of the
// expression, a group or an alternative, or after ^): sed refuses it, grep drops it with a
// warning.
func (t *translator) leadingQuantifier(what string) error {
	if t.sed {
		return &Error{"Invalid preceding regular expression"}
	}
	t.warnings = append(t.warnings, what+" at start of expression")
	return nil
}

// utf8Atom adds the UTF-8 character at pos as one atom (U+FFFD, what Go reads there, for a
// byte that is not UTF-8) and returns the position after it.
func (t *translator) utf8Atom(pos int) int {
	r, size := utf8.DecodeRuneInString(t.src[pos:])
	if r == utf8.RuneError && size == 1 {
		t.atom(`\x{fffd}`)
	} else {
		t.atom(t.src[pos : pos+size])
	}
	return pos + size
}

func validInterval(s string) bool {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return false
	}
	body := s[:end]
	lo, hi, comma := strings.Cut(body, ",")
	if lo == "" && (!comma || hi == "") {
		return lo == "" && comma && hi != ""
	}
	for _, part := range []string{lo, hi} {
		for _, ch := range part {
			if ch < '0' || ch > '9' {
				return false
			}
		}
	}
	return true
}

// interval reads m,n} (after { or \{) and applies it.
func (t *translator) interval() error {
	closing := "}"
	if !t.ere {
		closing = `\}`
	}
	end := strings.Index(t.src[t.i:], closing)
	if end < 0 {
		if t.ere {
			return &Error{"Unmatched { or \\{"}
		}
		return &Error{`Unmatched \{`}
	}
	body := t.src[t.i : t.i+end]
	t.i += end + len(closing)
	lo, hi, comma := strings.Cut(body, ",")
	if lo == "" {
		lo = "0"
	}
	n, err := strconv.Atoi(lo)
	if err != nil {
		return &Error{`Invalid content of \{\}`}
	}
	q := "{" + lo
	m := n
	if comma {
		q += ","
		if hi != "" {
			m, err = strconv.Atoi(hi)
			if err != nil || m < n {
				return &Error{`Invalid content of \{\}`}
			}
			q += hi
		}
	}
	q += "}"
	if n > maxRepeat || m > maxRepeat {
		return &Error{fmt.Sprintf("Regular expression too big: repetition counts above %d are not supported", maxRepeat)}
	}
	if t.atomStart < 0 {
		if t.sed {
			return &Error{"Invalid preceding regular expression"}
		}
		// grep reads a BRE's leading \{m,n\} as the text "{m,n}".
		t.atom(`\{` + strings.ReplaceAll(body, "}", `\}`) + `\}`)
		return nil
	}
	return t.quantify(q, "")
}

// bracket reads a bracket expression after its '['.
func (t *translator) bracket() error {
	var b strings.Builder
	b.WriteByte('[')
	if t.i < len(t.src) && t.src[t.i] == '^' {
		b.WriteByte('^')
		t.i++
	}
	first := true
	for {
		if t.i >= len(t.src) {
			return &Error{"Unmatched [, [^, [:, [., or [="}
		}
		c := t.src[t.i]
		if c == ']' && !first {
			t.i++
			b.WriteByte(']')
			break
		}
		first = false
		if c == '[' && t.i+1 < len(t.src) && strings.IndexByte(":=.", t.src[t.i+1]) >= 0 {
			kind := t.src[t.i+1]
			end := strings.Index(t.src[t.i+2:], string(kind)+"]")
			if end < 0 {
				return &Error{"Unmatched [, [^, [:, [., or [="}
			}
			name := t.src[t.i+2 : t.i+2+end]
			t.i += 2 + end + 2
			switch kind {
			case ':':
				switch name {
				case "alpha", "digit", "alnum", "upper", "lower", "space", "blank", "punct", "print", "graph", "cntrl", "xdigit":
					b.WriteString("[:" + name + ":]")
				default:
					return &Error{"Invalid character class name"}
				}
			default:
				if len(name) != 1 {
					return &Error{"Invalid collation character"}
				}
				b.WriteString(bracketByte(name[0]))
			}
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(t.src[t.i:])
			t.i += size
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\x{fffd}`)
			} else {
				b.WriteRune(r)
			}
			continue
		}
		t.i++
		b.WriteString(bracketByte(c))
	}
	t.atom(b.String())
	return nil
}

func bracketByte(c byte) string {
	switch c {
	case '\\', '[', ']', '^':
		return `\` + string(c)
	}
	return string([]byte{c})
}
