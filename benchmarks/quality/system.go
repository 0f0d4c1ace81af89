package quality

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// project and docDir name where System stores a collection's documents: one file per document,
// /docs/<ID>.txt, in one project of one tenant.
const (
	project = "quality"
	docDir  = "/docs/"
)

// System is a collection indexed through the library's public API, exactly as a user's files
// are: each document is written as a file with fileio.Service over a memstore, and a
// search.Indexer with the given embedder cuts, embeds and indexes it into the given index.
// Queries then go through a search.Searcher built with each mode's options.
type System struct {
	store    driver.Store
	index    indexdriver.Index
	embedder search.Embedder
	ctx      context.Context // carries the tenant's identity
	projects int             // more than 1: documents spread over projects, queried with "*"
}

// NewSystem writes every document of c as a file and indexes them all into index with
// embedder (nil: lexical only). It returns when the outbox is drained.
func NewSystem(ctx context.Context, c *Collection, index indexdriver.Index, embedder search.Embedder) (*System, error) {
	return NewSplitSystem(ctx, c, index, embedder, 1)
}

// NewSplitSystem is NewSystem with the documents dealt round-robin over the given number of
// projects of the tenant; with more than one, Run searches them all at once (search.AllProjects),
// so the ranking measured is the one that puts scores from different projects on one scale.
func NewSplitSystem(ctx context.Context, c *Collection, index indexdriver.Index, embedder search.Embedder, projects int) (*System, error) {
	projects = max(projects, 1)
	store := memstore.New(memstore.Options{})
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0 // a bulk load, not an agent
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		return nil, err
	}
	ctx = agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("quality-harness", "quality"))
	for i, d := range c.Docs {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: projectOf(i, projects), Path: docPath(d.ID), Content: d.Text, Mode: fileio.ModeTruncate}); err != nil {
			return nil, fmt.Errorf("writing document %s: %w", d.ID, err)
		}
	}
	indexer, err := search.NewIndexer(store, index, search.IndexerOptions{Embedder: embedder})
	if err != nil {
		return nil, err
	}
	err = poll.Until(ctx, 10*time.Minute, "indexing the collection", func() (bool, error) {
		if _, err := indexer.ProcessBatch(ctx); err != nil {
			return false, err
		}
		n, err := store.PendingJobs(ctx)
		return n == 0, err
	})
	if err != nil {
		return nil, err
	}
	return &System{store: store, index: index, embedder: embedder, ctx: ctx, projects: projects}, nil
}

// projectOf is the project of document i of a collection spread over n projects.
func projectOf(i, n int) string {
	if n == 1 {
		return project
	}
	return fmt.Sprintf("%s-%d", project, i%n)
}

func docPath(id string) string { return docDir + id + ".txt" }

// Mode is one way of ranking: the Searcher options it runs with. The System supplies the store,
// the index, and its embedder unless Lexical is set.
type Mode struct {
	Name    string
	Lexical bool // BM25 only: no embedder, whatever the System was built with
	Options search.SearcherOptions
}

// Run answers every topic with mode, asking for depth chunks, and maps chunk hits back to
// documents: a document's score is its best chunk's score.
func (s *System) Run(topics []Topic, mode Mode, depth int) (Run, error) {
	opts := mode.Options
	if !mode.Lexical && opts.Embedder == nil {
		opts.Embedder = s.embedder
	}
	if mode.Lexical {
		opts.Embedder = nil
	}
	opts.LimitMax = depth
	if opts.BM25Candidates == 0 {
		opts.BM25Candidates = depth
	}
	if opts.VectorCandidates == 0 {
		opts.VectorCandidates = depth
	}
	searcher, err := search.NewSearcher(s.store, s.index, opts)
	if err != nil {
		return nil, err
	}
	run := Run{}
	query := project
	if s.projects > 1 {
		query = search.AllProjects
	}
	for _, t := range topics {
		res, err := searcher.Search(s.ctx, search.Query{Project: query, Query: t.Query, Limit: depth})
		if err != nil {
			return nil, fmt.Errorf("topic %s: %w", t.ID, err)
		}
		seen := map[string]bool{}
		for _, h := range res.Hits {
			id := strings.TrimSuffix(strings.TrimPrefix(h.Path, docDir), ".txt")
			if !seen[id] {
				seen[id] = true
				run[t.ID] = append(run[t.ID], Scored{DocID: id, Score: h.Score})
			}
		}
	}
	return run, nil
}
