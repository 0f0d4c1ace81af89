package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// TokenizerName identifies the analysis below. It is stored with every chunk so that an index
// built by one version is never scored against queries analysed by another.
const TokenizerName = "unicode-lower-stop-snowball_en-v1"

// maxTokenBytes caps one token; longer runs (base64, hashes) are cut at a character boundary.
const maxTokenBytes = 64

// Tokenize splits text into index terms:
//
//   - a term is a maximal run of Unicode letters, digits and combining marks; everything else
//     separates terms;
//   - ideographic and kana/hangul characters, which are not separated by spaces, are one term each;
//   - terms are lower-cased (Unicode simple folding);
//   - English stop words ("the", "and", "of", ... the Snowball list) are dropped;
//   - terms made only of ASCII letters are reduced with the Snowball English stemmer, so
//     "indexing", "indexed" and "indexes" all become "index".
//
// The same function analyses documents and queries. It is safe for concurrent use.
func Tokenize(text string) []string {
	var terms []string
	forEachTerm(text, func(t string) { terms = append(terms, t) })
	return terms
}

// TermCounts returns the frequency of each term of text and the number of terms (the BM25
// document length).
func TermCounts(text string) (map[string]int, int) {
	counts := make(map[string]int)
	n := 0
	forEachTerm(text, func(t string) {
		counts[t]++
		n++
	})
	return counts, n
}

func forEachTerm(text string, emit func(string)) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if t, ok := normaliseTerm(text[start:end]); ok {
				emit(t)
			}
			start = -1
		}
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isSingleRuneTerm(r):
			flush(i)
			emit(string(unicode.ToLower(r)))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
		i += size
	}
	flush(len(text))
}

func isSingleRuneTerm(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func normaliseTerm(raw string) (string, bool) {
	if len(raw) > maxTokenBytes {
		cut := maxTokenBytes
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		raw = raw[:cut]
	}
	t := strings.ToLower(raw)
	if english.IsStopWord(t) {
		return "", false
	}
	if isASCIILetters(t) {
		t = english.Stem(t, false)
	}
	return t, t != ""
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
