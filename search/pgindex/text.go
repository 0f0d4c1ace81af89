package pgindex

import "strings"

// PostgreSQL's TEXT cannot hold U+0000, which valid UTF-8 file content may contain, so chunk
// text is stored escaped: U+0001 becomes U+0001 U+0001 and U+0000 becomes U+0001 U+0002. The
// mapping is a bijection from every string to the strings without U+0000, and the identity on
// text that has neither character (the common case, which costs one scan). Terms are computed
// in Go from the original text, so scores are unaffected; only the stored chunk_content (and,
// in tsvector mode, what to_tsvector reads, where both characters are separators anyway) is
// escaped. Migration 0003 escaped the U+0001 of chunks stored before.

const (
	textEscape = "\x01"
	escapedNUL = "\x01\x02"
	escapedEsc = "\x01\x01"
)

var (
	textEncoder = strings.NewReplacer(textEscape, escapedEsc, "\x00", escapedNUL)
	textDecoder = strings.NewReplacer(escapedEsc, textEscape, escapedNUL, "\x00")
)

// encodeText returns s in its stored form (see above).
func encodeText(s string) string {
	if strings.IndexByte(s, 0) < 0 && strings.IndexByte(s, 1) < 0 {
		return s
	}
	return textEncoder.Replace(s)
}

// decodeText is the inverse of encodeText.
func decodeText(s string) string {
	if strings.IndexByte(s, 1) < 0 {
		return s
	}
	return textDecoder.Replace(s)
}
