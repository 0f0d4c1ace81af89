// Package asciifold finds and compares text with ASCII letters folded to lower case and every
// other byte compared exactly: the case-insensitive comparison of grep's index literals.
package asciifold

import "bytes"

// Index is bytes.Index with ASCII letters compared case-insensitively; lit is lower
// case. It skips to candidates with IndexByte and compares each; once the comparisons cost
// more than a few times the bytes passed (a long literal over repetitive text), it finishes
// with Knuth-Morris-Pratt, so the whole search is linear in len(s) + len(lit).
func Index(s []byte, lit string) int {
	if lit == "" {
		return 0
	}
	// Anchor on the first byte that is not a letter, if any: one IndexByte finds it.
	anchor := -1
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c < 'a' || c > 'z' {
			anchor = i
			break
		}
	}
	compared := 0
	for start := 0; start+len(lit) <= len(s); {
		if compared > 4*start+4096 {
			if k := indexKMP(s[start:], lit); k >= 0 {
				return start + k
			}
			return -1
		}
		var at int
		if anchor >= 0 {
			k := bytes.IndexByte(s[start+anchor:], lit[anchor])
			if k < 0 {
				return -1
			}
			at = start + k
		} else {
			k := indexEitherByte(s[start:], lit[0], lit[0]-'a'+'A')
			if k < 0 {
				return -1
			}
			at = start + k
		}
		if at+len(lit) > len(s) {
			return -1
		}
		if Equal(s[at:at+len(lit)], lit) {
			return at
		}
		compared += len(lit)
		start = at + 1
	}
	return -1
}

// indexKMP is Index by Knuth-Morris-Pratt: at most 2 × len(s) comparisons
// after a table of len(lit).
func indexKMP(s []byte, lit string) int {
	fail := make([]int, len(lit)) // fail[i]: the longest proper border of lit[:i+1]
	for i, k := 1, 0; i < len(lit); i++ {
		for k > 0 && lit[i] != lit[k] {
			k = fail[k-1]
		}
		if lit[i] == lit[k] {
			k++
		}
		fail[i] = k
	}
	for i, k := 0, 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		for k > 0 && c != lit[k] {
			k = fail[k-1]
		}
		if c == lit[k] {
			k++
		}
		if k == len(lit) {
			return i - len(lit) + 1
		}
	}
	return -1
}

// indexEitherByte is the first index of a or b in s, -1 if neither occurs.
func indexEitherByte(s []byte, a, b byte) int {
	i := bytes.IndexByte(s, a)
	limit := s
	if i >= 0 {
		limit = s[:i]
	}
	if j := bytes.IndexByte(limit, b); j >= 0 {
		return j
	}
	return i
}

func Equal(s []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
