package indexdriver

import "math"

// BM25 holds the Okapi BM25 parameters. The scoring function lives here, in package search, so
// that every [Index] (in memory, SQL) only supplies postings and statistics and all of them
// produce bit-identical scores for the same data. The zero value is not useful: use
// [DefaultBM25] or set both fields.
type BM25 struct {
	K1 float64 // term-frequency saturation; 1.2 by default (Lucene, Elasticsearch)
	B  float64 // length normalisation in [0, 1]; 0.75 by default
}

// DefaultBM25 returns the usual parameters k1=1.2, b=0.75.
func DefaultBM25() BM25 { return BM25{K1: 1.2, B: 0.75} }

// CorpusStats are the per-project statistics BM25 needs: the number of indexed chunks and the
// sum of their lengths in terms.
type CorpusStats struct {
	Chunks     int64 // N: chunks in the project
	TotalTerms int64 // sum of the term counts (document lengths) of those chunks
}

// avgChunkTerms is avgdl, the mean chunk length in terms (0 for an empty corpus).
func (s CorpusStats) avgChunkTerms() float64 {
	if s.Chunks == 0 {
		return 0
	}
	return float64(s.TotalTerms) / float64(s.Chunks)
}

// idf is the Robertson/Lucene inverse document frequency ln(1 + (N - df + 0.5)/(df + 0.5)),
// always positive.
func (p BM25) idf(df, n int64) float64 {
	if df > n {
		n = df
	}
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// TermScore is one query term's contribution to a chunk's score:
// idf · tf·(k1+1) / (tf + k1·(1 - b + b·dl/avgdl)). It equals
// p.Scorer(df, stats).Score(tf, chunkTerms) bit for bit.
func (p BM25) TermScore(tf, chunkTerms int, df int64, stats CorpusStats) float64 {
	return p.Scorer(df, stats).Score(tf, chunkTerms)
}

// TermScorer scores one term against many chunks with idf and avgdl computed once. Indexes use
// it in their inner loop; it gives exactly TermScore's floats (times the term's weight, see
// Weighted).
type TermScorer struct {
	idf, k1, b, avg float64
	weight          float64
}

// Scorer returns the TermScorer of a term with document frequency df, of weight 1.
func (p BM25) Scorer(df int64, stats CorpusStats) TermScorer {
	return TermScorer{idf: p.idf(df, stats.Chunks), k1: p.K1, b: p.B, avg: stats.avgChunkTerms(), weight: 1}
}

// Weighted returns s with its contributions multiplied by w: the scorer of a term of a weighted
// query (LexicalQuery.Weights). Weight 1 gives s's floats bit for bit.
func (s TermScorer) Weighted(w float64) TermScorer {
	s.weight = w
	return s
}

// Score is the term's contribution for a chunk of chunkTerms terms containing it tf times:
// weight · idf · tf·(k1+1) / (tf + k1·(1 - b + b·dl/avgdl)).
func (s TermScorer) Score(tf, chunkTerms int) float64 {
	if tf <= 0 {
		return 0
	}
	norm := 1.0
	if s.avg > 0 {
		norm = 1 - s.b + s.b*float64(chunkTerms)/s.avg
	}
	f := float64(tf)
	return s.weight * (s.idf * f * (s.k1 + 1) / (f + s.k1*norm))
}

// QueryTerms analyses a query into its distinct terms in first-occurrence order. Scores are
// summed over the terms in this order, so every index must use it to get identical floats.
func QueryTerms(query string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, t := range Tokenize(query) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
