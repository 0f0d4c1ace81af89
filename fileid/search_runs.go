package fileid

import (
	"regexp/syntax"
	"unicode/utf8"
)

// runFilter is a necessary condition for a line to match an expression that has neither a
// required literal nor a small start-byte set: every match is a run of at least minBytes
// consecutive bytes, each of which is in set. For `[a-z]{12,}` the set is a-z and minBytes
// is 12, so lines made of short words are skipped without running the expression at all;
// for `\d{4}-\d{2}` the set is 0-9 and '-' with minBytes 7.
//
// Why it is exact enough to trust: the regexp package reads a line rune by rune, a stray byte
// of invalid UTF-8 as U+FFFD of width 1. A match of k runes is therefore at least k bytes
// long, and each of its bytes is either an ASCII byte some part of the expression accepts or
// a byte ≥ 0x80, which the set holds whenever any part accepts a non-ASCII rune (U+FFFD
// included). '\n' is never in the set: matches are looked for within one line.
//
// A runFilter is immutable and safe for concurrent use.
type runFilter struct {
	set      [256]bool
	minBytes int
}

// maxRunBytes caps the computed minimum length; RE2 bounds repetition counts, so this only
// guards the arithmetic.
const maxRunBytes = 1 << 20

// newRunFilter returns the filter for re, or nil when it would not skip anything worth the
// scan: re can match the empty string, or every byte but '\n' can start a one-byte match.
func newRunFilter(re *syntax.Regexp) *runFilter {
	f := &runFilter{}
	n, ok := f.add(re)
	if !ok || n == 0 {
		return nil
	}
	f.set['\n'] = false
	if n == 1 && countSet(&f.set) == len(f.set)-1 {
		return nil
	}
	f.minBytes = n
	return f
}

// add puts every byte a match of re can contain into the set and returns the minimum length
// of a match in bytes. ok is false for an operator it does not know.
func (f *runFilter) add(re *syntax.Regexp) (n int, ok bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			f.addRune(r, re.Flags&syntax.FoldCase != 0)
		}
		return len(re.Rune), true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= min(hi, utf8.RuneSelf-1); r++ {
				f.set[r] = true
			}
			if hi >= utf8.RuneSelf {
				addNonASCII(&f.set)
			}
		}
		return 1, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for b := range f.set {
			f.set[b] = true
		}
		return 1, true
	case syntax.OpCapture, syntax.OpPlus:
		return f.add(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		_, ok := f.add(re.Sub[0])
		return 0, ok
	case syntax.OpRepeat:
		n, ok := f.add(re.Sub[0])
		return min(n*re.Min, maxRunBytes), ok
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			m, ok := f.add(sub)
			if !ok {
				return 0, false
			}
			n = min(n+m, maxRunBytes)
		}
		return n, true
	case syntax.OpAlternate:
		n = maxRunBytes
		for _, sub := range re.Sub {
			m, ok := f.add(sub)
			if !ok {
				return 0, false
			}
			n = min(n, m)
		}
		return n, true
	}
	return 0, false
}

// addRune adds the UTF-8 bytes of r and, when fold is set, of its case variants; any
// non-ASCII variant adds every byte ≥ 0x80.
func (f *runFilter) addRune(r rune, fold bool) {
	for v := range variants(r, fold) {
		if v < utf8.RuneSelf {
			f.set[v] = true
		} else {
			addNonASCII(&f.set)
		}
	}
}

// runAt reports whether b[at:] starts with a run of at least minBytes set bytes.
func (f *runFilter) runAt(b []byte, at int) bool {
	if at+f.minBytes > len(b) {
		return false
	}
	for _, c := range b[at : at+f.minBytes] {
		if !f.set[c] {
			return false
		}
	}
	return true
}

// next returns the start of the first run of at least minBytes set bytes in b[from:], or -1.
// It probes the last byte of each candidate window and scans backwards from it: a byte outside
// the set at q rules out every run starting at or before q, so the window jumps past it. Each
// byte is read at most twice, and in text of short words most are not read at all.
func (f *runFilter) next(b []byte, from int) int {
	for start := from; start+f.minBytes <= len(b); {
		q := start + f.minBytes - 1
		for q >= start && f.set[b[q]] {
			q--
		}
		if q < start {
			return start
		}
		start = q + 1
	}
	return -1
}
