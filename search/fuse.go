package search

import "sort"

// FuseMethod is how semantic and lexical scores are combined when no reranker answers.
type FuseMethod string

const (
	// FuseTMM is theoretical min-max fusion (TM2C2 in Bruch et al., "An Analysis of Fusion
	// Functions for Hybrid Retrieval", 2023): each score is scaled from the least it can be —
	// 0 for BM25, −1 for a cosine similarity — to the best candidate's, and the two are added
	// with the configured weights, divided by the weight sum. The best candidate of a leg
	// scores 1 there, and every result scores above 0: a result has a query term (BM25 above
	// 0) or a similarity above MinSemanticScore on a leg of positive weight, and a similarity
	// is −1 only for the query's opposite. Every indexed candidate has both scores, computed
	// (Index.ScoreChunks), whichever retriever proposed it; a candidate that has no similarity
	// at all (a chunk of a file not embedded or not indexed yet) counts as a similarity of 0.
	// This is the default.
	FuseTMM FuseMethod = "tmm"
	// FuseMinMax scales each score to [0, 1] with min-max normalisation over the candidates
	// (a candidate without a similarity counts as 0, and the range includes 0) and adds them
	// as FuseTMM does. The candidate lowest on both legs scores 0 although it matched.
	FuseMinMax FuseMethod = "minmax"
	// FuseRRF is weighted reciprocal-rank fusion: Σ weight / (60 + rank), rank 1-based, each
	// candidate ranked among all candidates by each score.
	FuseRRF FuseMethod = "rrf"
)

// rrfK is the usual reciprocal-rank-fusion constant.
const rrfK = 60

// fuse sets c.fused for every candidate.
func fuse(cands []*candidate, method FuseMethod, semW, lexW float64) {
	if semW+lexW <= 0 {
		semW, lexW = 0.5, 0.5
	}
	switch method {
	case FuseRRF:
		semRank := ranks(cands, func(c *candidate) (float64, bool) { return c.semantic, c.hasSemantic })
		lexRank := ranks(cands, func(c *candidate) (float64, bool) { return c.lexical, c.hasLexical })
		for i, c := range cands {
			s := 0.0
			if r := semRank[i]; r > 0 {
				s += semW / float64(rrfK+r)
			}
			if r := lexRank[i]; r > 0 {
				s += lexW / float64(rrfK+r)
			}
			c.fused = s
		}
	case FuseMinMax:
		semLo, semHi := bounds(cands, func(c *candidate) (float64, bool) { return c.semantic, c.hasSemantic })
		lexLo, lexHi := bounds(cands, func(c *candidate) (float64, bool) { return c.lexical, c.hasLexical })
		for _, c := range cands {
			// c.semantic and c.lexical are 0 when absent: a raw score of 0, inside the range.
			s := semW*scale(c.semantic, semLo, semHi) + lexW*scale(c.lexical, lexLo, lexHi)
			c.fused = s / (semW + lexW)
		}
	default:
		// Scores absent are 0 in c.semantic and c.lexical: a similarity of 0, no query term.
		semHi, lexHi := float64(leastSimilarity), 0.0
		for _, c := range cands {
			semHi, lexHi = max(semHi, c.semantic), max(lexHi, c.lexical)
		}
		for _, c := range cands {
			sem := scale(max(c.semantic, leastSimilarity), leastSimilarity, semHi)
			lex := scale(max(c.lexical, 0), 0, lexHi)
			c.fused = (semW*sem + lexW*lex) / (semW + lexW)
		}
	}
}

// leastSimilarity is the least cosine similarity, FuseTMM's floor for semantic scores.
const leastSimilarity = -1.0

// bounds returns the range of a score over the candidates; when some candidates lack the score
// (they have no vector, or the query no terms), 0 is in the range.
func bounds(cands []*candidate, get func(*candidate) (float64, bool)) (lo, hi float64) {
	first, missing := true, false
	defer func() {
		if missing && !first {
			lo = min(lo, 0)
		}
	}()
	for _, c := range cands {
		v, ok := get(c)
		if !ok {
			missing = true
			continue
		}
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
	}
	return lo, hi
}

// scale maps v from [lo, hi] to [0, 1]; when every value is the same, each counts fully.
func scale(v, lo, hi float64) float64 {
	if hi <= lo {
		if v == 0 && hi == 0 {
			return 0
		}
		return 1
	}
	return (v - lo) / (hi - lo)
}

// ranks returns the 1-based rank of each candidate by the score get returns (0 when absent).
func ranks(cands []*candidate, get func(*candidate) (float64, bool)) []int {
	idx := make([]int, 0, len(cands))
	for i, c := range cands {
		if _, ok := get(c); ok {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool {
		a, b := idx[x], idx[y]
		va, _ := get(cands[a])
		vb, _ := get(cands[b])
		if va != vb {
			return va > vb
		}
		return cands[a].less(cands[b])
	})
	out := make([]int, len(cands))
	for r, i := range idx {
		out[i] = r + 1
	}
	return out
}
