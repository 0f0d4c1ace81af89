package grepbench

import (
	"math"
	"slices"
)

// Word returns an ASCII word of at least six letters that occurs in the share of files
// nearest to fraction (0.01: about one file in a hundred), for a grep whose answer is about
// that share of a corpus that was not generated (Prose.Word does the same for generated
// prose from its own counts). A word is a run of ASCII letters; ties go to the word first in
// byte order, so the same files give the same word.
func Word(files []File, fraction float64) string {
	df := map[string]int{}
	seen := map[string]bool{}
	for _, f := range files {
		clear(seen)
		c := f.Content
		for i := 0; i < len(c); {
			if !isLetter(c[i]) {
				i++
				continue
			}
			j := i
			for j < len(c) && isLetter(c[j]) {
				j++
			}
			if j-i >= 6 && !seen[string(c[i:j])] {
				w := string(c[i:j])
				seen[w] = true
				df[w]++
			}
			i = j
		}
	}
	words := make([]string, 0, len(df))
	for w := range df {
		words = append(words, w)
	}
	slices.Sort(words)
	want := fraction * float64(len(files))
	best, bestDiff := "", math.Inf(1)
	for _, w := range words {
		if d := math.Abs(float64(df[w]) - want); d < bestDiff {
			best, bestDiff = w, d
		}
	}
	return best
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
