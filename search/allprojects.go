package search

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// AllProjects is the Query.Project that searches every project of the caller.
const AllProjects = "*"

// MaxAllProjects is how many projects a Query with Project "*" searches: the caller's first
// MaxAllProjects projects by name. Result.ProjectsTruncated says when there are more.
const MaxAllProjects = 100

// allProjectsParallel bounds how many projects are searched at once.
const allProjectsParallel = 4

// searchAll runs q in every project of tenant (see AllProjects) so that scores from different
// projects are on one scale: the query is embedded once; each project proposes its semantic
// and lexical candidates; the projects' BM25 statistics and document frequencies are added up;
// with expansion, the feedback chunks are the best of all projects' first passes on that
// shared scale, and each project's lexical candidates come from the one expanded query; every
// indexed candidate is scored again with the shared statistics (Index.ScoreChunks), so that
// BM25 ranks as if the caller's projects were one corpus; the union of all candidates is fused at
// once (one min-max range, or one ranking for RRF), ordered, and then, when a Reranker is
// configured, reranked in one call (the best rerankMax of them) and checked against the store.
// Fusing each project alone would give every project's best chunk the top score.
func (s *Searcher) searchAll(ctx context.Context, tenant string, q scopeQuery, res Result) (Result, error) {
	lister, ok := s.store.(driver.ProjectLister)
	if !ok {
		return Result{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"this file store cannot list projects, so project \"*\" is not available; search one project at a time", "project")
	}
	projects, err := lister.ListProjects(ctx, tenant, MaxAllProjects+1)
	if err != nil {
		return Result{}, backendError("listing the projects failed", err)
	}
	if len(projects) > MaxAllProjects {
		projects, res.ProjectsTruncated = projects[:MaxAllProjects], true
	}
	res.Projects = len(projects)
	res.Ranking = RankingFused
	if len(projects) == 0 {
		return res, nil
	}
	if s.opts.Embedder != nil && s.opts.VectorCandidates > 0 {
		q.embedded = true
		q.qvec, q.embedErr = s.embedQuery(ctx, q.query)
		if q.embedErr != nil && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
	}

	results := make([]Result, len(projects))
	found := make([]*gathered, len(projects))
	err = eachProject(ctx, len(projects), func(ctx context.Context, i int) error {
		results[i] = res
		var err error
		found[i], err = s.gather(ctx, driver.Scope{Tenant: tenant, Project: projects[i]}, q, &results[i])
		return err
	})
	if err != nil {
		return Result{}, err
	}
	shared := sharedLexical(found, len(q.terms))
	if s.expands(q) {
		var scale *indexdriver.LexicalResult
		if len(projects) > 1 {
			scale = &shared
		}
		if q.terms, q.weights, err = s.feedback(ctx, found, q, scale); err != nil {
			return Result{}, err
		}
		res.ExpandedQuery = weightedTerms(q.terms, q.weights)
		err = eachProject(ctx, len(projects), func(ctx context.Context, i int) error {
			return s.secondPass(ctx, found[i], q)
		})
		if err != nil {
			return Result{}, err
		}
		shared = sharedLexical(found, len(q.terms))
	}
	cands := make([][]*candidate, len(projects))
	err = eachProject(ctx, len(projects), func(ctx context.Context, i int) error {
		var err error
		cands[i], err = s.candidates(ctx, found[i], q, shared, len(projects) > 1, &results[i])
		return err
	})
	if err != nil {
		return Result{}, err
	}
	var all []*candidate
	for i, r := range results {
		res.Candidates += r.Candidates
		res.Qualified += r.Qualified
		res.PendingFiles += r.PendingFiles
		res.PendingScanned += r.PendingScanned
		if res.SemanticError == "" && r.SemanticError != "" {
			res.SemanticError = r.SemanticError
			if !q.embedded || q.embedErr == nil {
				res.SemanticError = fmt.Sprintf("project %d of %d: %s", i+1, len(projects), r.SemanticError)
			}
		}
		all = append(all, cands[i]...)
	}
	if len(all) > 0 {
		s.rankFused(all)
	}
	all, err = s.rerankAndCheck(ctx, tenant, q.query, all, s.rerankMax(), &res)
	if err != nil {
		return Result{}, err
	}
	return s.finish(ctx, tenant, res, all), nil
}

// sharedLexical adds up the projects' BM25 statistics and the document frequencies of the
// query's terms, as one corpus of all their chunks would have them.
func sharedLexical(found []*gathered, terms int) indexdriver.LexicalResult {
	out := indexdriver.LexicalResult{DocFreq: make([]int64, terms)}
	for _, g := range found {
		out.Stats.Chunks += g.lex.Stats.Chunks
		out.Stats.TotalTerms += g.lex.Stats.TotalTerms
		for i, df := range g.lex.DocFreq {
			if i < terms {
				out.DocFreq[i] += df
			}
		}
	}
	return out
}

// eachProject calls fn for projects 0…n-1, allProjectsParallel at a time, and returns the first
// error (preferring one that is not context.Canceled, which a failing project causes in the
// others); the first failure cancels the calls still running.
func eachProject(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	sem := make(chan struct{}, allProjectsParallel)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			if errs[i] = fn(ctx, i); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return firstError(errs)
}

// rerankMax is how many of the merged candidates of "*" go to the reranker: as many as one
// project's search proposes at most, so a query over many projects costs one rerank call of
// the usual size.
func (s *Searcher) rerankMax() int {
	return max(s.opts.VectorCandidates, 0) + max(s.opts.BM25Candidates, 0) + s.opts.PendingScanMaxFiles
}

// firstError returns the first error of errs, preferring one that is not context.Canceled
// (which a failing project causes in the others).
func firstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				return err
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}
