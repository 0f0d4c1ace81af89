package fileio

import "unicode/utf8"

// jsonStringLen is the size of s as a JSON string, quotes included, as encoding/json writes it
// with HTML escaping (the larger of the two forms the adapters send): a control character
// takes six bytes ("\u0001"), "<", ">" and "&" six, a quote or backslash two, an invalid byte
// six ("\ufffd"). The answer cap counts these bytes, not the raw ones.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n += jsonByteLen(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

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

// jsonPrefix returns the longest prefix of s, cut at a character boundary, whose JSON string
// takes at most budget bytes.
func jsonPrefix(s string, budget int) string {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := size
		switch {
		case r < utf8.RuneSelf:
			w = jsonByteLen(s[i])
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			w = 6
		}
		if n+w > budget {
			return s[:i]
		}
		n += w
		i += size
	}
	return s
}

// grepMatchOverhead is the JSON of a match besides its strings: field names, line number,
// brackets and commas.
const grepMatchOverhead = 96

// jsonSize is the size of m in a JSON answer (see jsonStringLen).
func (m *GrepMatch) jsonSize() int64 {
	n := grepMatchOverhead + jsonStringLen(m.Path) + jsonStringLen(m.Line)
	for _, l := range m.Before {
		n += jsonStringLen(l) + 1
	}
	for _, l := range m.After {
		n += jsonStringLen(l) + 1
	}
	return int64(n)
}

// fitJSON cuts m to at most budget bytes of JSON: context lines first, the farthest from the
// match first, then the line itself. It reports whether it cut anything.
func (m *GrepMatch) fitJSON(budget int64) bool {
	cut := false
	for m.jsonSize() > budget && len(m.Before)+len(m.After) > 0 {
		if len(m.Before) > len(m.After) {
			m.Before = m.Before[1:]
		} else {
			m.After = m.After[:len(m.After)-1]
		}
		cut = true
	}
	if size := m.jsonSize(); size > budget {
		keep := max(int64(jsonStringLen(m.Line))-(size-budget), 2)
		m.Line = jsonPrefix(m.Line, int(keep))
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
