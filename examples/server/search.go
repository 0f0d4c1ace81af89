package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// searchWiring is what buildSearch produces.
type searchWiring struct {
	searcher *search.Searcher // nil when search is disabled
	vault    *search.Vault    // non-nil when an embedder needs the caller's key asynchronously
}

// buildSearch wires file_search: an index fed from the store's outbox by the indexer (in
// memory, or search/pgindex next to the files with -database-url), and the Searcher, which also
// scans files the index has not caught up with.
// Embeddings come from the hashing embedder (no network) unless -embeddings-url names an
// OpenAI-compatible endpoint; that one is called with the caller's own API key, which the
// indexer gets from a Vault of sealed envelopes (in Redis with -redis-url). -rerank adds the
// Cohere-compatible reranker of settings.mcp.files.search.rerank, also with the caller's key.
func (a *app) buildSearch(ctx context.Context, c config, scfg search.Config, logger *slog.Logger) (searchWiring, error) {
	var w searchWiring
	if !scfg.Search.Enabled {
		if c.redisURL != "" || c.embeddingsURL != "" {
			return w, errors.New("-redis-url and -embeddings-url need search, which settings.mcp.files.search.enabled turns off")
		}
		a.setup = append(a.setup, "search: disabled by settings.mcp.files.search.enabled")
		return w, nil
	}
	var embedder search.Embedder = search.NewHashingEmbedder(search.DefaultHashingDimensions)
	embedNote := "hashing embedder (no network)"
	if c.embeddingsURL != "" {
		e, err := search.NewOpenAIEmbedder(search.OpenAIEmbedderConfig{
			Endpoint: c.embeddingsURL, Model: c.embeddingsModel, Dimensions: c.embeddingsDims, Logger: logger,
		})
		if err != nil {
			return w, fmt.Errorf("-embeddings-url: %w", err)
		}
		embedder = e
		embedNote = "embeddings from " + c.embeddingsURL + " with each caller's key"
		vcfg := scfg.Security.VaultConfig()
		vcfg.Logger = logger
		if c.redisURL != "" {
			rs, err := openRedis(ctx, c.redisURL)
			if err != nil {
				return w, err
			}
			a.closers = append(a.closers, rs.close)
			vcfg.Store = rs
			embedNote += "; sealed keys in Redis"
		}
		if w.vault, err = search.NewVault(vcfg); err != nil {
			return w, fmt.Errorf("-embeddings-url needs the caller's key sealed for the indexer (-config): %w", err)
		}
	} else if c.redisURL != "" {
		return w, errors.New("-redis-url keeps the sealed caller keys that -embeddings-url needs; with the hashing embedder there is nothing to keep in Redis, so drop it or add -embeddings-url")
	}
	var reranker search.Reranker
	if c.rerank {
		r, err := search.NewCohereReranker(search.CohereRerankerConfig{
			Endpoint: scfg.Search.Rerank.Endpoint, Model: scfg.Search.Rerank.Model,
			Timeout: scfg.Search.Rerank.Timeout, Logger: logger,
		})
		if err != nil {
			return w, fmt.Errorf("-rerank: %w", err)
		}
		reranker = r
		embedNote += "; reranked by " + scfg.Search.Rerank.Endpoint
	}

	var index search.Index = memindex.New()
	where := "in-memory index"
	if pg, ok := a.store.(*pgstore.Store); ok {
		// The index lives next to the files, shared by every server on the database: a file
		// indexed by one process is found through all of them.
		pix, err := pgindex.New(ctx, pg.Pool(), pgindex.Options{Logger: logger})
		if err != nil {
			return w, fmt.Errorf("-database-url: search index: %w", err)
		}
		a.closers = append(a.closers, pix.Close)
		index = pix
		where = "PostgreSQL index (BM25 postings and vectors, shared by every server on the database)"
	}
	chunker := search.NewChunker(search.ChunkerConfig{
		TargetBytes:  scfg.Index.ChunkTargetBytes,
		OverlapBytes: scfg.Index.ChunkOverlapBytes,
	})
	var err error
	w.searcher, err = search.NewSearcher(search.SearcherConfig{
		Store: a.store, Index: index, Embedder: embedder, Reranker: reranker, Chunker: chunker,
		Search: scfg.Search, Logger: logger,
	})
	if err != nil {
		return w, fmt.Errorf("search: %w", err)
	}
	icfg := search.IndexerConfig{
		Store: a.store, Index: index, Embedder: embedder, Chunker: chunker,
		Settings: scfg.Index, Logger: logger,
	}
	if w.vault != nil {
		icfg.Credentials = w.vault
	}
	if a.indexer, err = search.NewIndexer(icfg); err != nil {
		return w, fmt.Errorf("indexer: %w", err)
	}
	a.setup = append(a.setup, "search: hybrid BM25 + "+embedNote+", "+where)
	return w, nil
}
