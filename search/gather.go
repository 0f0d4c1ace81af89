package search

import (
	"context"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// searchScope runs q in one project and returns its qualified candidates ordered by their fused
// scores (final = fused), to be reranked and checked again by rerankAndCheck, without the limit
// applied. It fills the fields of res that describe the project's search (SemanticError,
// Candidates, Qualified, PendingFiles, PendingScanned).
func (s *Searcher) searchScope(ctx context.Context, scope driver.Scope, q scopeQuery, res *Result) ([]*candidate, error) {
	g, err := s.gather(ctx, scope, q, res)
	if err != nil {
		return nil, err
	}
	if s.expands(q) {
		if q.terms, q.weights, err = s.feedback(ctx, []*gathered{g}, q, nil); err != nil {
			return nil, err
		}
		res.ExpandedQuery = weightedTerms(q.terms, q.weights)
		if err := s.secondPass(ctx, g, q); err != nil {
			return nil, err
		}
	}
	cands, err := s.candidates(ctx, g, q, g.lex, false, res)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	s.rankFused(cands)
	return cands, nil
}

// rankFused fuses the candidates' scores (see fuse), makes them final and sorts by them.
func (s *Searcher) rankFused(cands []*candidate) {
	fuse(cands, s.opts.FuseMethod, s.opts.SemanticWeight, s.opts.LexicalWeight)
	for _, c := range cands {
		c.final = c.fused
	}
	sortCandidates(cands)
}

// gathered is what one project's retrievers proposed for a query.
type gathered struct {
	scope   driver.Scope
	exclude map[string]bool   // files the index has not caught up with
	pending []driver.FileInfo // of those, the active ones, to scan
	sem     []indexdriver.Candidate
	qvec    []float32 // nil: no semantic scores (no embedder, or it failed)
	lex     indexdriver.LexicalResult
}

// gather runs the first steps of a search in one project: which files the index has not caught
// up with, then the semantic and lexical candidates, concurrently. It sets res.PendingFiles and
// res.SemanticError.
func (s *Searcher) gather(ctx context.Context, scope driver.Scope, q scopeQuery, res *Result) (*gathered, error) {
	// Which files the index has not caught up with: from the outbox's pending jobs of the
	// project (and the index's files of an older analysis), not from a listing of the project.
	g := &gathered{scope: scope}
	var err error
	g.exclude, g.pending, err = s.notCurrent(ctx, scope, q.prefix)
	if err != nil {
		return nil, err
	}
	res.PendingFiles = len(g.pending)

	var (
		wg     sync.WaitGroup
		semErr error
		lexErr error
	)
	if s.opts.Embedder != nil && s.opts.VectorCandidates > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.sem, g.qvec, semErr = s.semantic(ctx, scope, q, g.exclude)
		}()
	}
	if len(q.terms) > 0 {
		lexErr = s.lexicalPass(ctx, g, q, s.firstPassCandidates())
	}
	wg.Wait()
	if lexErr != nil {
		return nil, lexErr
	}
	if semErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.SemanticError = errorText(semErr)
		s.log.WarnContext(ctx, "semantic candidates unavailable; continuing lexical-only", "error", res.SemanticError)
		g.qvec = nil
	}
	return g, nil
}

// candidates turns what gather found into scored, live, qualified candidates (not fused yet):
// it merges and de-duplicates the indexed candidates, then, concurrently, one store read keeps
// those whose file is active at their version and reads their text from the file (indexes keep
// offsets, not text), while the index gives every candidate its true score on the leg that did
// not propose it; files not indexed yet are scanned. Lexical scores are on the scale of lex's
// statistics: g.lex's for one project; with relex, every indexed candidate is scored again
// with lex (statistics shared by several projects, see searchAll). It sets res.Candidates,
// res.Qualified and res.PendingScanned.
func (s *Searcher) candidates(ctx context.Context, g *gathered, q scopeQuery, lex indexdriver.LexicalResult, relex bool, res *Result) ([]*candidate, error) {
	scope, terms := g.scope, q.terms
	merged := make(map[candKey]*candidate)
	var cands []*candidate
	get := func(path string, version time.Time, ch indexdriver.Chunk, src HitSource) *candidate {
		k := candKey{path, version.UnixNano(), ch.StartByte, ch.EndByte}
		if c, ok := merged[k]; ok {
			return c
		}
		c := &candidate{project: scope.Project, path: path, version: version, chunk: ch, source: src}
		merged[k] = c
		cands = append(cands, c)
		return c
	}
	for _, sc := range g.sem {
		c := get(sc.Path, sc.FileUpdatedAt, sc.Chunk, SourceIndex)
		c.semantic, c.hasSemantic = sc.Score, true
	}
	for _, lc := range g.lex.Candidates {
		c := get(lc.Path, lc.FileUpdatedAt, lc.Chunk, SourceIndex)
		c.lexical, c.hasLexical = lc.Score, true
	}
	var (
		wg      sync.WaitGroup
		live    map[candKey]string
		liveErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		live, liveErr = s.liveChunks(ctx, scope, cands)
	}()
	scoreErr := s.completeScores(ctx, scope, cands, terms, q.weights, lex, g.qvec, relex)
	wg.Wait()
	if liveErr != nil {
		return nil, liveErr
	}
	if scoreErr != nil {
		return nil, backendError("scoring the candidates failed", scoreErr)
	}
	kept := cands[:0]
	for _, c := range cands {
		if text, ok := live[c.key()]; ok {
			c.chunk.Text = text
			kept = append(kept, c)
		} else {
			delete(merged, c.key())
		}
	}
	cands = kept
	if len(g.pending) > 0 && len(terms) > 0 {
		pending := keepGlob(q.glob, g.pending, func(f driver.FileInfo) string { return f.Path })
		scanned, n, err := s.scanPending(ctx, scope, pending, terms, q.weights, lex)
		if err != nil {
			return nil, err
		}
		res.PendingScanned = n
		for _, sc := range scanned {
			c := get(sc.Path, sc.FileUpdatedAt, sc.Chunk, SourceScan)
			c.lexical, c.hasLexical = sc.Score, true
		}
	}
	res.Candidates = len(cands)
	cands = s.qualified(cands, q.minSemantic)
	res.Qualified = len(cands)
	res.Ranking = RankingFused
	return cands, nil
}
