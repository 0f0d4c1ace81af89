// Package utf8cut shortens text to a byte budget without splitting a UTF-8 character: the one
// way agentfiles cuts error arguments, log previews and provider messages.
package utf8cut

import "unicode/utf8"

// Cut returns s when it is at most n bytes long, and otherwise its longest prefix of at most n
// bytes that ends on a character boundary, with cut true. n < 0 counts as 0.
func Cut(s string, n int) (prefix string, cut bool) {
	if len(s) <= n {
		return s, false
	}
	end := max(n, 0)
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end], true
}

// Shorten returns s when it is at most n bytes long, and otherwise Cut's prefix followed by mark
// (such as "…"), which shows that something was left out.
func Shorten(s string, n int, mark string) string {
	if prefix, cut := Cut(s, n); cut {
		return prefix + mark
	}
	return s
}
