package blevebench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synth generates deterministic English-like text for speed measurements: content words are
// drawn from a Zipf distribution (s = 1.1) over a vocabulary of pronounceable letter-only
// pseudo-words (so both stemmers run on them), and about a third of the tokens are common
// English stop words (so both analyzers do the stop-word work real text costs). It is not safe
// for concurrent use.
type Synth struct {
	vocab []string
	r     *rand.Rand
	zipf  *rand.Zipf
}

var syllables = []string{"ka", "lo", "mi", "ne", "ru", "ta", "shi", "vo", "ze", "pa", "qui", "dor", "len", "gar", "bis", "tem", "sul", "fra"}

var stopWords = []string{"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "with", "on", "be", "by", "this", "are", "from"}

// NewSynth returns a generator over a vocabulary of vocabWords distinct words (at least 2).
func NewSynth(seed uint64, vocabWords int) *Synth {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	vocab := make([]string, vocabWords)
	for i := range vocab {
		// The base-len(syllables) digits of i+len(syllables), so every word has at least two
		// syllables and all words are distinct.
		var b strings.Builder
		for n := i + len(syllables); n > 0; n /= len(syllables) {
			b.WriteString(syllables[n%len(syllables)])
		}
		vocab[i] = b.String()
	}
	// Shuffle so a word's frequency rank is unrelated to its spelling.
	r.Shuffle(len(vocab), func(i, j int) { vocab[i], vocab[j] = vocab[j], vocab[i] })
	return &Synth{vocab: vocab, r: r, zipf: rand.NewZipf(r, 1.1, 2, uint64(vocabWords-1))}
}

// Text returns words tokens of text, with a full stop every 15 words.
func (s *Synth) Text(words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			if i%15 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		if s.r.IntN(3) == 0 {
			b.WriteString(stopWords[s.r.IntN(len(stopWords))])
		} else {
			b.WriteString(s.vocab[s.zipf.Uint64()])
		}
	}
	return b.String()
}

// Docs returns n documents of wordsPerDoc words with IDs "c0000000", "c0000001", ...
func (s *Synth) Docs(n, wordsPerDoc int) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("c%07d", i), Text: s.Text(wordsPerDoc)}
	}
	return docs
}

// Queries returns n queries of 2 to 4 content words drawn from the same distribution.
func (s *Synth) Queries(n int) []string {
	qs := make([]string, n)
	for i := range qs {
		words := make([]string, 2+s.r.IntN(3))
		for j := range words {
			words[j] = s.vocab[s.zipf.Uint64()]
		}
		qs[i] = strings.Join(words, " ")
	}
	return qs
}
