package search

import (
	"cmp"
	"context"
	"slices"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// Expansion is pseudo-relevance feedback into the lexical leg: RM3, as Anserini runs it. The
// first lexical pass's best chunks are taken as relevant; the terms most frequent in them are
// added to the query, weighted, and the lexical candidates and every candidate's BM25 come from
// the expanded query. Zero fields mean the defaults (DefaultExpansion).
type Expansion struct {
	// FeedbackChunks is how many of the first pass's best chunks the feedback model is read
	// from (Anserini's fbDocs; default 10, at most MaxFeedback; negative: no expansion).
	FeedbackChunks int
	// FeedbackTerms is how many terms the feedback model keeps, and how many of its most
	// frequent terms each feedback chunk offers (fbTerms; default 10, at most MaxFeedback;
	// negative: no expansion). The expanded query has at most SearcherOptions.MaxQueryTerms
	// terms: a query near that bound gets fewer feedback terms.
	FeedbackTerms int
	// OriginalWeight is the share of the query's own terms in the expanded query's weights,
	// the feedback terms sharing the rest (originalQueryWeight; default 0.5; in (0, 1], and 1
	// means no expansion).
	OriginalWeight float64
}

// WeightedTerm is one term of an expanded query (Result.ExpandedQuery): an analysed term
// (indexdriver.Tokenize) and the factor of its BM25 contribution.
type WeightedTerm struct {
	Term   string
	Weight float64
}

// weightedTerms pairs terms with their weights (nil without weights).
func weightedTerms(terms []string, weights []float64) []WeightedTerm {
	if weights == nil {
		return nil
	}
	out := make([]WeightedTerm, len(terms))
	for i, t := range terms {
		out[i] = WeightedTerm{Term: t, Weight: weights[i]}
	}
	return out
}

// MaxFeedback bounds Expansion.FeedbackChunks and FeedbackTerms.
const MaxFeedback = 100

// DefaultExpansion returns Anserini's RM3 defaults: 10 feedback chunks, 10 feedback terms,
// original query weight 0.5.
func DefaultExpansion() Expansion {
	return Expansion{FeedbackChunks: 10, FeedbackTerms: 10, OriginalWeight: 0.5}
}

// on reports whether e expands queries.
func (e Expansion) on() bool {
	return e.FeedbackChunks > 0 && e.FeedbackTerms > 0 && e.OriginalWeight < 1
}

// valid reports whether e's fields are within their bounds (after defaults).
func (e Expansion) valid() bool {
	return e.FeedbackChunks <= MaxFeedback && e.FeedbackTerms <= MaxFeedback && e.OriginalWeight > 0 && e.OriginalWeight <= 1
}

// Feedback terms are between minFeedbackRunes and maxFeedbackRunes characters long (Anserini's
// 2 and 20): single characters and long runs (identifiers, hashes) make poor expansions.
const (
	minFeedbackRunes = 2
	maxFeedbackRunes = 20
)

func feedbackTerm(t string) bool {
	n := utf8.RuneCountInString(t)
	return n >= minFeedbackRunes && n <= maxFeedbackRunes
}

// feedbackChunk is one chunk taken as relevant: its text and its first-pass BM25.
type feedbackChunk struct {
	text  string
	score float64
}

// termWeight is a term with its weight in a feature vector.
type termWeight struct {
	term   string
	weight float64
}

// byWeight orders term weights by weight descending, then term.
func byWeight(a, b termWeight) int {
	if c := cmp.Compare(b.weight, a.weight); c != 0 {
		return c
	}
	return cmp.Compare(a.term, b.term)
}

// expandedQuery is RM3's query for terms and the feedback chunks docs, with at most maxAdded
// terms added. Each chunk's vector is its analysed terms (indexdriver.TermCounts, the index's
// analysis) of feedback length with their frequencies, cut to its FeedbackTerms most frequent;
// the model weighs a term by Σ over chunks of tf / Σtf of the cut vector · the chunk's score,
// keeps its FeedbackTerms heaviest terms and scales them to sum 1; the query's own terms weigh
// 1/len(terms) each; the two are mixed OriginalWeight : 1 − OriginalWeight. The original terms
// come first, in their order, then the added ones by weight; every weight is above 0. Ties
// break by term, so the query is deterministic. Without feedback, or with maxAdded 0, the
// terms come back as they are, with nil weights.
func expandedQuery(terms []string, docs []feedbackChunk, e Expansion, maxAdded int) ([]string, []float64) {
	model := map[string]float64{}
	for _, d := range docs {
		if !(d.score > 0) {
			continue
		}
		counts, _ := indexdriver.TermCounts(d.text)
		vec := make([]termWeight, 0, len(counts))
		for t, tf := range counts {
			if feedbackTerm(t) {
				vec = append(vec, termWeight{t, float64(tf)})
			}
		}
		slices.SortFunc(vec, byWeight)
		vec = vec[:min(len(vec), e.FeedbackTerms)]
		norm := 0.0
		for _, tw := range vec {
			norm += tw.weight
		}
		for _, tw := range vec {
			model[tw.term] += tw.weight / norm * d.score
		}
	}
	rm := make([]termWeight, 0, len(model))
	for t, w := range model {
		rm = append(rm, termWeight{t, w})
	}
	slices.SortFunc(rm, byWeight)
	rm = rm[:min(len(rm), e.FeedbackTerms)]
	total := 0.0
	for _, tw := range rm {
		total += tw.weight
	}
	if len(rm) == 0 || !(total > 0) || len(terms) == 0 || maxAdded <= 0 {
		return terms, nil // nothing to learn, or no room for a term: the query as it is
	}
	weight := make(map[string]float64, len(terms)+len(rm))
	for _, t := range terms {
		weight[t] = e.OriginalWeight / float64(len(terms))
	}
	var added []termWeight
	for _, tw := range rm {
		if _, original := weight[tw.term]; !original {
			added = append(added, tw)
		}
	}
	added = added[:min(len(added), max(maxAdded, 0))]
	for _, tw := range rm {
		weight[tw.term] += (1 - e.OriginalWeight) * tw.weight / total
	}
	outTerms := slices.Clip(slices.Clone(terms))
	weights := make([]float64, 0, len(terms)+len(added))
	for _, t := range terms {
		weights = append(weights, weight[t])
	}
	for _, tw := range added {
		outTerms = append(outTerms, tw.term)
		weights = append(weights, weight[tw.term])
	}
	return outTerms, weights
}

// expansionCandidates is how many chunks the first lexical pass proposes: BM25Candidates, and
// at least the feedback chunks when queries are expanded.
func (s *Searcher) firstPassCandidates() int {
	n := max(s.opts.BM25Candidates, 0)
	if s.opts.Expansion.on() {
		n = max(n, s.opts.Expansion.FeedbackChunks)
	}
	return n
}

// expands reports whether q is expanded: expansion is on and the query has terms.
func (s *Searcher) expands(q scopeQuery) bool {
	return s.opts.Expansion.on() && len(q.terms) > 0
}

// feedback returns the expanded query of q from the first lexical pass of every project in
// found: the best FeedbackChunks chunks of them all, their text read from the store (one read
// per project that holds one). With shared statistics (several projects, see searchAll) the
// chunks are ranked by their BM25 computed again from their text with those statistics, so
// that the feedback chunks are the best on one scale; otherwise by the index's scores.
func (s *Searcher) feedback(ctx context.Context, found []*gathered, q scopeQuery, shared *indexdriver.LexicalResult) ([]string, []float64, error) {
	e := s.opts.Expansion
	byProject := make([][]*candidate, len(found))
	for i, g := range found {
		first := g.lex.Candidates[:min(len(g.lex.Candidates), e.FeedbackChunks)]
		for _, c := range first {
			byProject[i] = append(byProject[i], &candidate{project: g.scope.Project, path: c.Path, version: c.FileUpdatedAt, chunk: c.Chunk, lexical: c.Score, source: SourceIndex})
		}
	}
	err := eachProject(ctx, len(found), func(ctx context.Context, i int) error {
		if len(byProject[i]) == 0 {
			return nil
		}
		live, err := s.liveChunks(ctx, found[i].scope, byProject[i])
		if err != nil {
			return err
		}
		kept := byProject[i][:0]
		for _, c := range byProject[i] {
			if text, ok := live[c.key()]; ok {
				c.chunk.Text = text
				kept = append(kept, c)
			}
		}
		byProject[i] = kept
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var all []*candidate
	for _, cs := range byProject {
		all = append(all, cs...)
	}
	if shared != nil {
		scorers := indexdriver.LexicalQuery{Terms: q.terms, BM25: s.opts.BM25}.TermScorers(shared.DocFreq, shared.Stats)
		for _, c := range all {
			counts, n := indexdriver.TermCounts(c.chunk.Text)
			c.lexical = 0
			for i, t := range q.terms {
				c.lexical += scorers[i].Score(counts[t], n)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b *candidate) int {
		if c := cmp.Compare(b.lexical, a.lexical); c != 0 {
			return c
		}
		if a.less(b) {
			return -1
		}
		return 1
	})
	all = all[:min(len(all), e.FeedbackChunks)]
	docs := make([]feedbackChunk, len(all))
	for i, c := range all {
		docs[i] = feedbackChunk{text: c.chunk.Text, score: c.lexical}
	}
	maxAdded := e.FeedbackTerms
	if limit := s.opts.MaxQueryTerms; limit > 0 {
		maxAdded = min(maxAdded, limit-len(q.terms))
	}
	terms, weights := expandedQuery(q.terms, docs, e, maxAdded)
	return terms, weights, nil
}

// lexicalPass runs q's lexical query in g's project (g.exclude, q.prefix and q.glob apply) and
// makes it g's lexical answer.
func (s *Searcher) lexicalPass(ctx context.Context, g *gathered, q scopeQuery, topK int) error {
	lex, err := s.index.Lexical(ctx, g.scope, indexdriver.LexicalQuery{
		Terms: q.terms, Weights: q.weights, BM25: s.opts.BM25, PathPrefix: q.prefix, ExcludePaths: g.exclude, TopK: q.candidates(topK),
	})
	if err != nil {
		return backendError("lexical search failed", err)
	}
	lex.Candidates = keepGlob(q.glob, lex.Candidates, func(c indexdriver.Candidate) string { return c.Path })
	g.lex = lex
	return nil
}

// secondPass makes g's lexical answer q's: the expanded query's candidates, or, when feedback
// did not expand it (q.weights nil), the first pass's cut to BM25Candidates.
func (s *Searcher) secondPass(ctx context.Context, g *gathered, q scopeQuery) error {
	topK := max(s.opts.BM25Candidates, 0)
	if q.weights == nil {
		g.lex.Candidates = g.lex.Candidates[:min(len(g.lex.Candidates), q.candidates(topK))]
		return nil
	}
	return s.lexicalPass(ctx, g, q, topK)
}
