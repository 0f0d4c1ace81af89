package fileid

import "bytes"

// foldFinder finds an ASCII literal case-insensitively without a case-folded copy of the
// file: it scans with bytes.IndexByte (vectorized) for both cases of the literal's rarest byte
// and compares the bytes around each occurrence, ASCII-folded, with the literal. Folding a
// copy of every file first cost a write and a read of the whole corpus per search, which
// made case-insensitive literal search as slow as ripgrep on real text.
//
// A foldFinder is immutable and safe for concurrent use.
type foldFinder struct {
	lit    []byte // lower-cased ASCII
	k      int    // index of the byte scanned for
	lo, up byte   // its two cases (equal for a byte without case)
}

func newFoldFinder(lit []byte) *foldFinder {
	f := &foldFinder{lit: lit}
	for i, c := range lit {
		if byteRank(c) < byteRank(lit[f.k]) {
			f.k = i
		}
	}
	f.lo, f.up = lit[f.k], lit[f.k]
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - ('a' - 'A')
	}
	return f
}

// letterOrder lists the letters from the most to the least frequent in English text.
const letterOrder = "etaoinsrhldcumfpgwybvkxjqz"

// byteRank estimates how often c (both cases, for a letter) occurs in documentation text;
// lower is rarer. Exactness does not matter, only that rare bytes rank below common ones.
func byteRank(c byte) int {
	switch {
	case c == ' ':
		return 1000
	case 'a' <= c && c <= 'z':
		return 200 - 4*bytes.IndexByte([]byte(letterOrder), c)
	case '0' <= c && c <= '9':
		return 60
	case bytes.IndexByte([]byte(".,-=*#_/:()`'\"\t"), c) >= 0:
		return 100 // punctuation of prose and Markdown
	}
	return 30
}

// nextIn returns the candidate function of candidateLines for haystack: the offset of the
// first occurrence of the literal at or after pos, or -1. pos only grows between calls; the
// next occurrence of each case of the scanned byte is kept until the scan passes it.
func (f *foldFinder) nextIn(haystack []byte) func(pos int) int {
	nLo, nUp := -2, -2 // -2: not searched yet; -1: none left
	if f.lo == f.up {
		nUp = -1
	}
	find := func(b byte, from int) int {
		if from >= len(haystack) {
			return -1
		}
		if i := bytes.IndexByte(haystack[from:], b); i >= 0 {
			return from + i
		}
		return -1
	}
	return func(pos int) int {
		for from := pos + f.k; ; {
			if nLo != -1 && nLo < from {
				nLo = find(f.lo, from)
			}
			if nUp != -1 && nUp < from {
				nUp = find(f.up, from)
			}
			c := nLo
			if c < 0 || nUp >= 0 && nUp < c {
				c = nUp
			}
			if c < 0 {
				return -1
			}
			if start := c - f.k; start+len(f.lit) <= len(haystack) && equalFoldLower(haystack[start:start+len(f.lit)], f.lit) {
				return start
			}
			from = c + 1
		}
	}
}

// equalFoldLower reports whether b equals the lower-case ASCII lit with A-Z folded to a-z.
func equalFoldLower(b, lit []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}
