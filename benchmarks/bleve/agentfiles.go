package blevebench

import (
	"context"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// Agentfiles is the agentfiles side: a search/memindex holding each document as the single
// chunk of a file named "/<ID>", ranked by memindex's Lexical with indexdriver.DefaultBM25, exactly
// as package search's Searcher asks it for lexical candidates. Add and Search may be called
// concurrently (memindex is safe for concurrent use).
type Agentfiles struct {
	analyzer Analyzer
	idx      *memindex.Index
	scope    driver.Scope
}

// NewAgentfiles returns an empty in-memory index that analyses with a.
func NewAgentfiles(a Analyzer) *Agentfiles {
	return &Agentfiles{analyzer: a, idx: memindex.New(), scope: driver.Scope{Tenant: "bench", Project: "bench"}}
}

// Name implements Engine.
func (e *Agentfiles) Name() string { return "agentfiles BM25, " + e.analyzer.name + " analyzer" }

var indexedAt = time.Unix(1700000000, 0).UTC()

// Add implements Engine: it analyses each document and replaces its file in the index. The
// content hash a real indexer stores is left empty; it plays no part in ranking.
func (e *Agentfiles) Add(docs []Doc) error {
	ctx := context.Background()
	for _, d := range docs {
		terms, n := e.analyzer.counts(d.Text)
		f := indexdriver.IndexedFile{
			Path:          "/" + d.ID,
			FileUpdatedAt: indexedAt,
			Tokenizer:     e.analyzer.name,
			Chunks: []indexdriver.IndexedChunk{{
				Chunk:      indexdriver.Chunk{EndByte: int64(len(d.Text)), Text: d.Text},
				Terms:      terms,
				ChunkTerms: n,
			}},
		}
		if err := e.idx.ReplaceFile(ctx, e.scope, f); err != nil {
			return err
		}
	}
	return nil
}

// Search implements Engine.
func (e *Agentfiles) Search(query string, k int) ([]string, error) {
	q := indexdriver.LexicalQuery{Terms: e.analyzer.terms(query), BM25: indexdriver.DefaultBM25(), TopK: k}
	res, err := e.idx.Lexical(context.Background(), e.scope, q)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Candidates))
	for i, c := range res.Candidates {
		ids[i] = strings.TrimPrefix(c.Path, "/")
	}
	return ids, nil
}

// Close implements Engine; a memindex holds nothing but memory.
func (e *Agentfiles) Close() error { return nil }
