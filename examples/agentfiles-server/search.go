package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/agentfiles/agentfiles/search/vault"
)

// searchWiring is what buildSearch produces.
type searchWiring struct {
	searcher *search.Searcher // nil when search is disabled
	vault    *vault.Vault     // non-nil when an embedder needs the caller's key asynchronously
}

// buildSearch wires file_search: an index fed from the store's outbox by the indexer (in
// memory, or search/pgindex next to the files with -database-url), and the Searcher, which also
// scans files the index has not caught up with.
// Embeddings come from the hashing embedder (no network) unless -embeddings-url names an
// OpenAI-compatible endpoint; that one is called with the caller's own API key, which the
// indexer gets from a Vault of sealed envelopes (in Redis with -redis-url). -rerank adds the
// Cohere-compatible reranker of settings.mcp.files.search.rerank, also with the caller's key.
// limiter is the file service's per-tenant rate limiter (nil: none), which file_search shares.
func (a *app) buildSearch(ctx context.Context, c config, scfg search.Config, limiter *fileio.RateLimiter, logger *slog.Logger) (searchWiring, error) {
	var w searchWiring
	if !scfg.Search.Enabled {
		if c.redisURL != "" || c.embeddingsURL != "" {
			return w, errors.New(flagRef("redis-url") + " and " + flagRef("embeddings-url") + " need search, which settings.mcp.files.search.enabled turns off")
		}
		a.setup = append(a.setup, "search: disabled by settings.mcp.files.search.enabled")
		return w, nil
	}
	if err := checkEmbeddings(c, scfg); err != nil {
		return w, err
	}
	var embedder search.Embedder = search.NewHashingEmbedder(search.DefaultHashingDimensions)
	embedNote := "hashing embedder (no network)"
	if c.embeddingsURL != "" {
		e, err := provider.NewOpenAIEmbedder(c.embeddingsURL, c.embeddingsModel, c.embeddingsDims, provider.OpenAIEmbedderOptions{Logger: logger})
		if err != nil {
			return w, fmt.Errorf("%s: %w", flagRef("embeddings-url"), err)
		}
		embedder = e
		embedNote = "embeddings from " + c.embeddingsURL + " with each caller's key"
		vopts := scfg.Security.VaultOptions()
		vopts.Logger = logger
		if c.redisURL != "" {
			rs, err := openRedis(ctx, c.redisURL)
			if err != nil {
				return w, err
			}
			a.closers = append(a.closers, rs.close)
			a.addBackend("redis", "redis", rs.ping)
			vopts.Store = rs
			embedNote += "; sealed keys in Redis"
		}
		if w.vault, err = vault.New(scfg.Security.EncryptionKEKs, vopts); err != nil {
			return w, fmt.Errorf("%s needs the caller's key sealed for the indexer: settings.mcp.files.security in -config: %w", flagRef("embeddings-url"), err)
		}
	}
	var reranker search.Reranker
	if c.rerank {
		if scfg.Search.Rerank.Endpoint == "" {
			return w, agentfiles.NewError(agentfiles.CodeInvalidConfig, flagRef("rerank")+" needs settings.mcp.files.search.rerank.endpoint in the -config file: "+
				"the URL of a Cohere-compatible rerank API such as https://api.cohere.com/v2/rerank (there is no default, so queries and keys go only to a host you name)",
				"settings.mcp.files.search.rerank.endpoint")
		}
		ropts := provider.RerankOptions(scfg.Search.Rerank)
		ropts.Logger = logger
		r, err := provider.NewCohereReranker(scfg.Search.Rerank.Endpoint, ropts)
		if err != nil {
			return w, fmt.Errorf("%s (settings.mcp.files.search.rerank in -config): %w", flagRef("rerank"), err)
		}
		reranker = r
		embedNote += "; reranked by " + scfg.Search.Rerank.Endpoint
	}

	var index indexdriver.Index = memindex.New()
	where := "in-memory index"
	indexKind, indexCheck := "memory", (func(context.Context) error)(nil) // for /healthz
	if pg, ok := a.store.(*pgstore.Store); ok {
		// The index lives next to the files, shared by every server on the database: a file
		// indexed by one process is found through all of them.
		pix, err := pgindex.New(ctx, pg.Pool(), pgindex.Options{Logger: logger, Embedder: pgindex.IdentityOf(embedder)})
		if err != nil {
			return w, fmt.Errorf("%s: search index: %w", flagRef("database-url"), err)
		}
		a.closers = append(a.closers, pix.Close)
		index = pix
		indexKind, indexCheck = "postgresql", pgCheck(pg.Pool())
		where = "PostgreSQL index (BM25 postings and vectors, shared by every server on the database)"
	}
	a.addBackend("index", indexKind, indexCheck)
	sopts := scfg.SearcherOptions()
	sopts.Embedder, sopts.Reranker, sopts.Logger = embedder, reranker, logger
	if pg, ok := a.store.(*pgstore.Store); ok && sopts.MaxConcurrent == 0 {
		// A search holds up to two connections at once (its semantic and lexical reads) and
		// greps may hold half the pool: searches of all tenants get a quarter of it, so that
		// short calls always find a connection.
		sopts.MaxConcurrent = searchSlots(pg.Pool().Config().MaxConns)
	}
	if limiter != nil {
		sopts.RateLimiter = limiter // the file service's buckets: one limit per tenant for both
	}
	var err error
	if w.searcher, err = search.NewSearcher(a.store, index, sopts); err != nil {
		return w, fmt.Errorf("search: %w", err)
	}
	iopts := scfg.IndexerOptions()
	iopts.Embedder, iopts.Logger = embedder, logger
	if w.vault != nil {
		iopts.Credentials = w.vault
	}
	if a.indexer, err = search.NewIndexer(a.store, index, iopts); err != nil {
		return w, fmt.Errorf("indexer: %w", err)
	}
	a.setup = append(a.setup, "search: hybrid BM25 + "+embedNote+", "+where)
	return w, nil
}

// checkEmbeddings reports, in one error, everything an API embedder still needs: -redis-url
// keeps the sealed caller keys of -embeddings-url, which needs a model, its vector size and a
// key-encryption key to seal the keys with.
func checkEmbeddings(c config, scfg search.Config) error {
	if c.redisURL == "" && c.embeddingsURL == "" && c.embeddingsModel == "" && c.embeddingsDims == 0 {
		return nil
	}
	var missing []string
	if c.embeddingsURL == "" {
		missing = append(missing, flagRef("embeddings-url")+": an OpenAI-compatible endpoint such as https://api.openai.com/v1/embeddings")
	}
	if c.embeddingsModel == "" {
		missing = append(missing, flagRef("embeddings-model")+": the model, e.g. text-embedding-3-small")
	}
	if c.embeddingsDims <= 0 {
		missing = append(missing, flagRef("embeddings-dims")+": its vector size, e.g. 1536")
	}
	if len(scfg.Security.EncryptionKEKs) == 0 {
		missing = append(missing, "settings.mcp.files.security.encryption_keks in the -config file: an id mapped to a secret of at least 16 bytes "+
			"(e.g. `k1: <output of openssl rand -base64 32>`), which seals each caller's key for the indexer")
	}
	if len(missing) == 0 {
		return nil
	}
	what := flagRef("embeddings-url")
	switch {
	case c.redisURL != "" && c.embeddingsURL == "":
		what = flagRef("redis-url") + " keeps the caller keys that an embeddings API needs for indexing; it"
	case c.embeddingsURL == "":
		what = "the embeddings settings"
	}
	return fmt.Errorf("%s also need(s), all of:\n  - %s\nSee config.example.yaml (embeddings: and settings.mcp.files.security:)", what, strings.Join(missing, "\n  - "))
}

// searchSlots is how many searches of all tenants run at once on a PostgreSQL pool of maxConns
// connections (settings.mcp.files.search.max_concurrent unless the file sets it): a quarter of
// the pool, at least 1.
func searchSlots(maxConns int32) int { return max(1, int(maxConns)/4) }
