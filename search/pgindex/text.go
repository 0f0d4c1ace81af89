package pgindex

import "strings"

// PostgreSQL's TEXT cannot hold U+0000, which valid UTF-8 file content may contain. The index
// stores no chunk text (see the package doc, "Content"); in LexicalTSVector mode the chunk text
// passed to to_tsvector is escaped: U+0001 becomes U+0001 U+0001 and U+0000 becomes U+0001
// U+0002. The mapping is a bijection from every string to the strings without U+0000, and the
// identity on text that has neither character (the common case, which costs one scan); both
// characters are separators to to_tsvector. Terms and BM25 scores are computed in Go from the
// original text and are unaffected. Migration 0003 escaped the chunk text stored before it;
// migration 0004 dropped the stored text.

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
