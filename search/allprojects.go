package search

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
)

// AllProjects is the Query.Project that searches every project of the caller.
const AllProjects = "*"

// MaxAllProjects is how many projects a Query with Project "*" searches: the caller's first
// MaxAllProjects projects by name. Result.ProjectsTruncated says when there are more.
const MaxAllProjects = 100

// allProjectsParallel bounds how many projects are searched at once.
const allProjectsParallel = 4

// searchAll runs q in every project of tenant (see AllProjects): the query is embedded once,
// each project yields its candidates with fused scores, and the merged candidates are ordered
// by those scores and then, when a Reranker is configured, reranked in one call (the best
// rerankMax of them) and checked against the store. Fused scores come from each project's own
// statistics (BM25 document frequencies, min-max fusion over its own candidates): comparable
// in range, not calibrated against each other; a reranker's scores are on one scale.
func (s *Searcher) searchAll(ctx context.Context, tenant string, q scopeQuery, res Result) (Result, error) {
	lister, ok := s.store.(fileio.ProjectLister)
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

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		res   Result
		cands []*candidate
		err   error
	}
	outs := make([]outcome, len(projects))
	sem := make(chan struct{}, allProjectsParallel)
	var wg sync.WaitGroup
	for i, p := range projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				outs[i].err = ctx.Err()
				return
			}
			o := &outs[i]
			o.res = res
			o.cands, o.err = s.searchScope(ctx, fileio.Scope{Tenant: tenant, Project: p}, q, &o.res)
			if o.err != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := firstError(outs, func(o outcome) error { return o.err }); err != nil {
		return Result{}, err
	}
	var all []*candidate
	for i, o := range outs {
		res.Candidates += o.res.Candidates
		res.Qualified += o.res.Qualified
		res.PendingFiles += o.res.PendingFiles
		res.PendingScanned += o.res.PendingScanned
		if res.SemanticError == "" && o.res.SemanticError != "" {
			res.SemanticError = o.res.SemanticError
			if !q.embedded || q.embedErr == nil {
				res.SemanticError = fmt.Sprintf("project %d of %d: %s", i+1, len(projects), o.res.SemanticError)
			}
		}
		all = append(all, o.cands...)
	}
	sortCandidates(all) // by fused score: each project's own scale
	all, err = s.rerankAndCheck(ctx, tenant, q.query, all, s.rerankMax(), &res)
	if err != nil {
		return Result{}, err
	}
	return s.finish(ctx, tenant, res, all), nil
}

// rerankMax is how many of the merged candidates of "*" go to the reranker: as many as one
// project's search proposes at most, so a query over many projects costs one rerank call of
// the usual size.
func (s *Searcher) rerankMax() int {
	return max(s.opts.VectorCandidates, 0) + max(s.opts.BM25Candidates, 0) + s.opts.PendingScanMaxFiles
}

// firstError returns the first error of outs, preferring one that is not context.Canceled
// (which a failing project causes in the others).
func firstError[T any](outs []T, errOf func(T) error) error {
	var first error
	for _, o := range outs {
		if err := errOf(o); err != nil {
			if err != context.Canceled {
				return err
			}
			if first == nil {
				first = err
			}
		}
	}
	return first
}
