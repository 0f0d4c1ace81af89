package indexdriver

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// TokenizerName identifies the analysis below. It is stored with every indexed file
// (IndexedFile.Tokenizer, FileState.Tokenizer): a file indexed by another analysis is not
// current (FileState.Current), so its terms are never scored against queries analysed by this
// one — the Searcher scans it like a file not indexed yet, and the Indexer re-indexes it.
//
// v2: apostrophes join words and possessive 's is dropped, dotted abbreviations are one term,
// the Snowball stop-word list.
const TokenizerName = "unicode-lower-stop-snowball_en-v2"

// maxTokenBytes caps one token; longer runs (base64, hashes) are cut at a character boundary.
const maxTokenBytes = 64

// Tokenize splits text into index terms:
//
//   - a term is a maximal run of Unicode letters, digits and combining marks; everything else
//     separates terms, except an apostrophe (U+0027 or U+2019) between two letters, which is
//     part of the word ("don't", "O'Brien"; U+2019 is read as U+0027);
//   - single letters each followed by a dot are one term: "e.g." is "eg", "U.S.A." is "usa";
//   - ideographic and kana/hangul characters, which are not separated by spaces, are one term each;
//   - terms are lower-cased (Unicode simple folding);
//   - English stop words ("the", "and", "of", "i'm", "don't", ...: the Snowball list, see
//     [IsStopWord]) are dropped, then a possessive "'s" ("John's" is "john");
//   - terms made only of ASCII letters (and apostrophes) are reduced with the Snowball English
//     stemmer, so "indexing", "indexed" and "indexes" all become "index".
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

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' }

// forEachTerm emits the analysed terms of text in order.
func forEachTerm(text string, emit func(string)) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isSingleRuneTerm(r):
			emit(string(unicode.ToLower(r)))
			i += size
		case !isWordRune(r):
			i += size
		default:
			if i+size < len(text) && text[i+size] == '.' { // maybe "e.g.": a letter and a dot
				if abbr, n := abbreviation(text[i:]); n > 0 {
					if t, ok := normaliseTerm(abbr); ok {
						emit(t)
					}
					i += n
					continue
				}
			}
			end, apostrophes := wordEnd(text, i)
			raw := text[i:end]
			if apostrophes {
				raw = strings.ReplaceAll(raw, "\u2019", "'")
			}
			if t, ok := normaliseTerm(raw); ok {
				emit(t)
			}
			i = end
		}
	}
}

// wordEnd returns the end of the word that starts at text[start] (a word rune): the run of word
// runes, joined across apostrophes that have a letter on each side. It also reports whether the
// word contains an apostrophe.
func wordEnd(text string, start int) (end int, apostrophes bool) {
	prev := rune(-1)
	for i := start; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWordRune(r) && !isSingleRuneTerm(r):
		case isApostrophe(r) && (unicode.IsLetter(prev) || unicode.Is(unicode.Mn, prev)) && i+size < len(text):
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if !unicode.IsLetter(next) || isSingleRuneTerm(next) {
				return i, apostrophes
			}
			apostrophes = true
		default:
			return i, apostrophes
		}
		prev = r
		i += size
	}
	return len(text), apostrophes
}

// abbreviation recognises single letters each followed by a dot, at least two of them and not
// followed by a word character ("e.g.", "U.S.A.", but not "a.b.c" or "x.y"), at the start of
// s. It returns the letters joined ("eg", "USA") and the bytes consumed, or n 0.
func abbreviation(s string) (string, int) {
	var letters []byte
	var buf [16]byte
	letters = buf[:0]
	i := 0
	for {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) || isSingleRuneTerm(r) || i+size >= len(s) || s[i+size] != '.' {
			break
		}
		letters = utf8.AppendRune(letters, r)
		i += size + 1
		if i == len(s) {
			break
		}
	}
	if utf8.RuneCount(letters) < 2 {
		return "", 0
	}
	if i < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[i:]); isWordRune(r) || isSingleRuneTerm(r) {
			return "", 0
		}
	}
	return string(letters), i
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
	if IsStopWord(t) {
		return "", false
	}
	if strings.HasSuffix(t, "'s") {
		if t = t[:len(t)-2]; IsStopWord(t) {
			return "", false
		}
	}
	if isASCIIWord(t) {
		t = english.Stem(t, true)
	}
	return t, t != ""
}

// isASCIIWord reports whether s is made of ASCII lower-case letters and apostrophes only.
func isASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '\'' {
			return false
		}
	}
	return true
}
