package indextest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
)

// Env is a complete search stack for tests: a fileio.Service over memstore with a credential
// Vault as its sealer, an Indexer and a Searcher over the index under test.
type Env struct {
	T        testing.TB
	Store    *memstore.Store
	Service  *fileio.Service
	Index    search.Index
	Indexer  *search.Indexer
	Searcher *search.Searcher
	Vault    *search.Vault
	Clock    *Clock
}

// EnvOptions customise NewEnv. The zero value gives the hashing embedder, no reranker, and
// default settings.
type EnvOptions struct {
	Embedder search.Embedder // nil: search.NewHashingEmbedder(64)
	NoEmbed  bool            // lexical-only: no embedder at all
	Reranker search.Reranker
	// Search overrides the search settings (zero: defaults).
	Search search.SearchConfig
	// RetryMax for the indexer (default 2); backoff is 1ms so retries come quickly.
	RetryMax int
	Chunker  search.Chunker
}

// Clock is a settable clock: real time plus an offset. Safe for concurrent use.
type Clock struct{ offset atomic.Int64 }

// Now returns time.Now() plus the offset.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// NewEnv builds an Env over idx.
func NewEnv(t testing.TB, idx search.Index, o EnvOptions) *Env {
	t.Helper()
	e := &Env{T: t, Store: memstore.New(), Index: idx, Clock: &Clock{}}
	v, err := search.NewVault(search.VaultConfig{
		KEKs: map[string]string{"1": "first-test-kek-secret-0123456789"}, TTL: time.Minute, Now: e.Clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Vault = v
	fcfg := fileio.DefaultConfig()
	fcfg.RateLimitPerSecond = 0 // the suite's own traffic must not be throttled
	e.Service, err = fileio.NewService(e.Store, fcfg, fileio.WithCredentialSealer(v))
	if err != nil {
		t.Fatal(err)
	}
	emb := o.Embedder
	if emb == nil && !o.NoEmbed {
		emb = search.NewHashingEmbedder(64)
	}
	retry := o.RetryMax
	if retry == 0 {
		retry = 2
	}
	settings := search.DefaultConfig().Index
	settings.RetryMax, settings.RetryBackoff, settings.Workers = retry, time.Millisecond, 2
	e.Indexer, err = search.NewIndexer(search.IndexerConfig{
		Store: e.Store, Index: idx, Embedder: emb, Credentials: v, Chunker: o.Chunker, Settings: settings,
		PollInterval: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := o.Search
	if sc == (search.SearchConfig{}) {
		sc = search.DefaultConfig().Search
		sc.Rerank.Timeout = 2 * time.Second
	}
	e.Searcher, err = search.NewSearcher(search.SearcherConfig{
		Store: e.Store, Index: idx, Embedder: emb, Reranker: o.Reranker, Search: sc, Chunker: o.Chunker,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Ctx returns a context authenticated as the caller with apiKey.
func Ctx(apiKey string) context.Context {
	return fileio.WithAuth(context.Background(), fileio.NewAuthContext(apiKey, "test"))
}

// Scope returns the scope of apiKey's project.
func Scope(apiKey, project string) fileio.Scope {
	return fileio.Scope{Tenant: fileio.NewAuthContext(apiKey, "").APIKeyHash, Project: project}
}

// Write stores content at path (TRUNCATE), failing the test on error.
func (e *Env) Write(ctx context.Context, project, path, content string) {
	e.T.Helper()
	if _, err := e.Service.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
		e.T.Fatalf("write %s: %v", path, err)
	}
}

// Delete removes path, failing the test on error.
func (e *Env) Delete(ctx context.Context, project, path string) {
	e.T.Helper()
	if err := e.Service.Delete(ctx, project, path, true); err != nil {
		e.T.Fatalf("delete %s: %v", path, err)
	}
}

// Drain runs the indexer until the outbox is empty, polling with a 20-second deadline.
func (e *Env) Drain() {
	e.T.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := e.Indexer.ProcessBatch(ctx)
		if err != nil {
			e.T.Fatalf("indexer: %v", err)
		}
		pending, err := e.Store.PendingJobs(ctx)
		if err != nil {
			e.T.Fatal(err)
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("outbox not drained within 20s: %d jobs pending", pending)
		}
		if n == 0 { // jobs exist but are backing off: wait for one to become available
			_ = e.Store.WaitForJobs(ctx, 2*time.Millisecond)
		}
	}
}

// Search runs a query, failing the test on error.
func (e *Env) Search(ctx context.Context, q search.Query) search.Result {
	e.T.Helper()
	res, err := e.Searcher.Search(ctx, q)
	if err != nil {
		e.T.Fatalf("search %+v: %v", q, err)
	}
	return res
}
