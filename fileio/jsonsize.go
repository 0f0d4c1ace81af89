package fileio

import (
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// answerSize counts the bytes of an answer as its adapter sends them
// (agentfiles.AnswerEncoding). With twice set the answer goes out as JSON and again as a JSON
// string holding that JSON (MCP): a string then counts its JSON bytes plus those escaped
// again, and the punctuation around it (field names, commas, brackets) three times, as a
// quote in it becomes two bytes in the text copy.
type answerSize struct{ twice bool }

func answerSizeOf(e agentfiles.AnswerEncoding) answerSize {
	return answerSize{twice: e == agentfiles.AnswerJSONAndText}
}

// AnswerStringBytes returns the bytes the text s takes inside a JSON string of an answer sent
// with encoding e, without the quotes (see answerSize.str): what output capped "as sent" counts
// (package fileio/shell caps a command's stdout and stderr with it).
func AnswerStringBytes(e agentfiles.AnswerEncoding, s string) int {
	a := answerSizeOf(e)
	return a.str(s) - a.quotes()
}

// str is the size of s as a JSON string, quotes included, as encoding/json writes it with
// HTML escaping (the larger of the forms the adapters send): a control character takes six
// bytes ("\u0001"), "<", ">" and "&" six, a quote or backslash two, an invalid byte six
// ("\ufffd"). Sent twice it adds the text copy: "\u0001" escaped again is seven bytes, "\""
// four, "\n" three.
func (a answerSize) str(s string) int {
	n := a.quotes()
	ascii := &asciiSize[0]
	if a.twice {
		ascii = &asciiSize[1]
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			n += int(ascii[c])
			i++
			continue
		}
		w, size := a.char(s[i:])
		n += w
		i += size
	}
	return n
}

// asciiSize is char's answer for each ASCII byte, sent once and twice.
var asciiSize = func() (t [2][utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		for k, a := range []answerSize{{}, {twice: true}} {
			w, _ := a.char(string(rune(c)))
			t[k][c] = uint8(w)
		}
	}
	return t
}()

// quotes is the size of the two quotes around a string.
func (a answerSize) quotes() int {
	if a.twice {
		return 2 + 4
	}
	return 2
}

// punct is the size of n bytes of JSON outside strings.
func (a answerSize) punct(n int) int {
	if a.twice {
		return 3 * n
	}
	return n
}

// char is the encoded size of the character starting s, and its length in s.
func (a answerSize) char(s string) (w, size int) {
	c := s[0]
	if c < utf8.RuneSelf {
		return a.escaped(jsonByteLen(c), c == '"' || c == '\\'), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
		return a.escaped(6, false), size
	}
	if a.twice {
		return 2 * size, size
	}
	return size, size
}

// escaped is the size of a character whose JSON form takes w bytes; quoteOrBackslash: that
// form is a backslash and the character itself, both escaped again in the text copy.
func (a answerSize) escaped(w int, quoteOrBackslash bool) int {
	switch {
	case !a.twice:
		return w
	case w == 1:
		return 2
	case quoteOrBackslash:
		return w + 4 // \" → \\\"
	}
	return w + w + 1 // \n → \\n, \u0001 → \\u0001
}

// jsonStringLen is the size of s as one JSON string (see answerSize.str).
func jsonStringLen(s string) int { return answerSize{}.str(s) }

// jsonByteLen is the encoded size of one ASCII byte inside a JSON string.
func jsonByteLen(c byte) int {
	switch {
	case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
		return 2
	case c < 0x20 || c == '<' || c == '>' || c == '&':
		return 6
	}
	return 1
}

// prefix returns the longest prefix of s, cut at a character boundary, whose string takes at
// most budget bytes.
func (a answerSize) prefix(s string, budget int) string {
	n := a.quotes()
	for i := 0; i < len(s); {
		w, size := a.char(s[i:])
		if n+w > budget {
			return s[:i]
		}
		n += w
		i += size
	}
	return s
}

// jsonPrefix is answerSize.prefix for one JSON string.
func jsonPrefix(s string, budget int) string { return answerSize{}.prefix(s, budget) }

// grepMatchOverhead is the JSON of a match besides its strings: field names, line number,
// brackets and commas.
const grepMatchOverhead = 96

// size is the size of m in an answer.
func (m *GrepMatch) size(a answerSize) int64 {
	n := a.punct(grepMatchOverhead) + a.str(m.Path) + a.str(m.Line)
	for _, l := range m.Before {
		n += a.str(l) + a.punct(1)
	}
	for _, l := range m.After {
		n += a.str(l) + a.punct(1)
	}
	return int64(n)
}

// fit cuts m to at most budget bytes of answer: context lines first, the farthest from the
// match first, then the line itself. It reports whether it cut anything.
func (m *GrepMatch) fit(a answerSize, budget int64) bool {
	cut := false
	for m.size(a) > budget && len(m.Before)+len(m.After) > 0 {
		if len(m.Before) > len(m.After) {
			m.Before = m.Before[1:]
		} else {
			m.After = m.After[:len(m.After)-1]
		}
		cut = true
	}
	if size := m.size(a); size > budget {
		keep := max(int64(a.str(m.Line))-(size-budget), int64(a.quotes()))
		m.Line = a.prefix(m.Line, int(keep))
		m.LineTruncated = true
		cut = true
	}
	if len(m.Before) == 0 {
		m.Before = nil
	}
	if len(m.After) == 0 {
		m.After = nil
	}
	return cut
}
