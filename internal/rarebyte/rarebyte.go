// Package rarebyte finds a literal in text by its rarest bytes, as ripgrep's memchr-based
// searchers do.
//
// # Why
//
// bytes.Index skips to each occurrence of the literal's first byte. When that byte is common
// in the text (most words of English prose start with a common letter), it stops every few
// bytes to compare. A Finder instead skips with bytes.IndexByte (vectorized) to the literal's
// rarest byte by a static table of byte frequencies in typical text, checks its second rarest
// byte, and only then compares the whole literal. Case-insensitive ASCII literals work the
// same way with both cases of the rare byte.
//
// # Worst case
//
// Text full of the "rare" byte (the table is a guess about the text) would make IndexByte stop
// every few bytes. Once the hits that were no match outnumber one per 32 bytes passed, the
// Finder hands the rest of the text to bytes.Index, which compares many offsets at once (one
// per 8 bytes ignoring case, to asciifold.Index, which stays linear), so a search never costs
// much more than theirs.
package rarebyte

import (
	"bytes"

	"github.com/agentfiles/agentfiles/internal/asciifold"
)

// Finder finds one literal. The zero Finder finds the empty literal at offset 0. It is
// immutable and safe for concurrent use.
type Finder struct {
	lit        string // with ASCII letters in lower case when fold
	fold       bool
	off1, off2 int // offsets in lit of its rarest and second rarest bytes
}

// New returns the Finder of lit; with ignoreCase, ASCII letters compare case-insensitively
// (and every other byte exactly), as asciifold does.
func New(lit string, ignoreCase bool) Finder {
	f := Finder{lit: lit, fold: ignoreCase}
	if ignoreCase {
		f.lit = lower(lit)
	}
	if len(f.lit) < 2 {
		return f
	}
	cost := func(i int) int {
		c := f.lit[i]
		if f.fold && c >= 'a' && c <= 'z' {
			// Both cases occur and both must be scanned for.
			return max(Rank(c), Rank(c-'a'+'A')) + 8
		}
		return Rank(c)
	}
	f.off1 = 0
	for i := 1; i < len(f.lit); i++ {
		if cost(i) < cost(f.off1) {
			f.off1 = i
		}
	}
	// The second byte: the rarest of those that differ from the first (the same byte again
	// says less), else the rarest other one.
	key := func(i int) int {
		if f.lit[i] == f.lit[f.off1] {
			return 1<<16 + cost(i)
		}
		return cost(i)
	}
	f.off2 = (f.off1 + 1) % len(f.lit)
	for i := range len(f.lit) {
		if i != f.off1 && key(i) < key(f.off2) {
			f.off2 = i
		}
	}
	return f
}

// Rank is how frequent b is in typical text (source code and English prose): 0 for a byte
// that does not occur there, up to 255 for the space.
func Rank(b byte) int { return int(rank[b]) }

// Literal is the literal f finds, lower-cased when it ignores case.
func (f Finder) Literal() string { return f.lit }

// Index returns the offset of the first occurrence of the literal in s, or -1.
func (f Finder) Index(s []byte) int {
	n := len(f.lit)
	switch {
	case n == 0:
		return 0
	case n > len(s):
		return -1
	case f.fold:
		return f.indexFold(s)
	case n == 1:
		return bytes.IndexByte(s, f.lit[0])
	}
	b1, b2 := f.lit[f.off1], f.lit[f.off2]
	last := len(s) - n // the last offset where the literal fits
	for start, fails := 0, 0; start <= last; {
		k := bytes.IndexByte(s[start+f.off1:last+f.off1+1], b1)
		if k < 0 {
			return -1
		}
		at := start + k
		if s[at+f.off2] == b2 && string(s[at:at+n]) == f.lit {
			return at
		}
		start = at + 1
		// Too many hits for their distance: the "rare" byte is common here, where IndexByte
		// spends more time starting than scanning. bytes.Index compares many offsets at once.
		if fails++; fails > (start+16)/denseGap {
			if k := bytes.Index(s[start:], []byte(f.lit)); k >= 0 {
				return start + k
			}
			return -1
		}
	}
	return -1
}

// denseGap: once the rare byte's hits that were not a match come closer than denseGap bytes
// apart on average, Index hands the rest of the text to bytes.Index.
const denseGap = 32

// indexFold is Index ignoring ASCII case: the rare byte is looked for in both cases, in
// windows that start small and double, so that a case that does not occur near the next hit
// (or at all) costs no more than the distance to that hit, however often Index is called.
func (f Finder) indexFold(s []byte) int {
	n := len(f.lit)
	c1, c2 := f.lit[f.off1], upper(f.lit[f.off1])
	last := len(s) - n
	hi := last + f.off1 + 1 // the rare byte lies in s[start+off1 : hi]
	for start, fails := 0, 0; start <= last; {
		p := -1
		for lo, span := start+f.off1, 256; p < 0 && lo < hi; lo, span = lo+span, span*2 {
			w := s[lo:min(lo+span, hi)]
			k := bytes.IndexByte(w, c1)
			if c2 != c1 {
				if k >= 0 {
					w = w[:k]
				}
				if j := bytes.IndexByte(w, c2); j >= 0 {
					k = j
				}
			}
			if k >= 0 {
				p = lo + k
			}
		}
		if p < 0 {
			return -1
		}
		at := p - f.off1
		if lowerByte(s[at+f.off2]) == f.lit[f.off2] && asciifold.Equal(s[at:at+n], f.lit) {
			return at
		}
		start = at + 1
		if fails++; fails > (start+16)/8 {
			if k := asciifold.Index(s[start:], f.lit); k >= 0 {
				return start + k
			}
			return -1
		}
	}
	return -1
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

// Earliest finds where the first of several literals occurs in one text at or after a
// position that only grows, as a scan of the text's lines needs it: each literal is searched
// for again only once the position has passed where it was found last, so the whole scan is
// linear in the text for each literal. F is a Finder, or any searcher with its Index method.
type Earliest[F interface{ Index(s []byte) int }] struct {
	finders []F
	next    []int // where finders[i] was found last; -1: nowhere after, -2: not searched yet
}

// NewEarliest returns an Earliest over the literals of finders, for one text.
func NewEarliest[F interface{ Index(s []byte) int }](finders []F) *Earliest[F] {
	next := make([]int, len(finders))
	for i := range next {
		next[i] = -2
	}
	return &Earliest[F]{finders: finders, next: next}
}

// Index returns the smallest offset at or after pos at which one of the literals occurs in
// text, or -1. Across calls, text must be the same and pos must not decrease.
func (e *Earliest[F]) Index(text []byte, pos int) int {
	at := -1
	for i, f := range e.finders {
		if e.next[i] != -1 && e.next[i] < pos {
			e.next[i] = -1
			if k := f.Index(text[pos:]); k >= 0 {
				e.next[i] = pos + k
			}
		}
		if e.next[i] >= 0 && (at < 0 || e.next[i] < at) {
			at = e.next[i]
		}
	}
	return at
}
