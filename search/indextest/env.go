package indextest

import (
	"context"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/vault"
)

// Env is a complete search stack for tests: a fileio.Service over memstore with a credential
// Vault as its sealer, an Indexer and a Searcher over the index under test.
type Env struct {
	T        testing.TB
	Store    *memstore.Store
	Service  *fileio.Service
	Index    indexdriver.Index
	Indexer  *search.Indexer
	Searcher *search.Searcher
	Vault    *vault.Vault
	Clock    *Clock
}

// EnvOptions customise NewEnv. The zero value gives the hashing embedder, no reranker, and
// default settings.
type EnvOptions struct {
	Embedder search.Embedder // nil: search.NewHashingEmbedder(64)
	NoEmbed  bool            // lexical-only: no embedder at all
	Reranker search.Reranker
	// RerankTimeout bounds each rerank call of the Searcher (default 2s).
	RerankTimeout time.Duration
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
func NewEnv(t testing.TB, idx indexdriver.Index, o EnvOptions) *Env {
	t.Helper()
	e := &Env{T: t, Store: memstore.New(memstore.Options{}), Index: idx, Clock: &Clock{}}
	v, err := vault.New(map[string]string{"1": "first-test-kek-secret-0123456789"}, vault.Options{TTL: time.Minute, Now: e.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.Vault = v
	fcfg := fileio.DefaultConfig()
	fcfg.RateLimitPerSecond = 0 // the suite's own traffic must not be throttled
	e.Service, err = fileio.NewService(e.Store, fileio.Options{Config: fcfg, CredentialSealer: v})
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
	e.Indexer, err = search.NewIndexer(e.Store, idx, search.IndexerOptions{
		Embedder: emb, Credentials: v, Chunker: o.Chunker, Workers: 2, RetryMax: retry, RetryBackoff: time.Millisecond,
		PollInterval: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rerankTimeout := o.RerankTimeout
	if rerankTimeout == 0 {
		rerankTimeout = 2 * time.Second
	}
	e.Searcher, err = search.NewSearcher(e.Store, idx, search.SearcherOptions{
		Embedder: emb, Reranker: o.Reranker, Chunker: o.Chunker, RerankTimeout: rerankTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Ctx returns a context authenticated as the caller with apiKey.
func Ctx(apiKey string) context.Context {
	return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(apiKey, "test"))
}

// Scope returns the scope of apiKey's project.
func Scope(apiKey, project string) driver.Scope {
	return driver.Scope{Tenant: agentfiles.NewAuthContext(apiKey, "").APIKeyHash, Project: project}
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
	if err := e.Service.Delete(ctx, fileio.DeleteRequest{Project: project, Path: path, Recursive: true}); err != nil {
		e.T.Fatalf("delete %s: %v", path, err)
	}
}

// Drain runs the indexer until the outbox is empty, failing the test after 20 seconds.
func (e *Env) Drain() {
	e.T.Helper()
	Drain(e.T, e.Indexer, e.Store, 20*time.Second)
}

// Drain runs indexer batches inline (indexer.ProcessBatch) until outbox has no pending job,
// waiting for jobs that back off, and fails t when that takes longer than timeout.
func Drain(t testing.TB, indexer *search.Indexer, outbox driver.Outbox, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	err := poll.Until(ctx, timeout, "the outbox drained by the indexer", func() (bool, error) {
		for {
			n, err := indexer.ProcessBatch(ctx)
			if err != nil {
				return false, err
			}
			if n == 0 { // the rest, if any, are backing off
				break
			}
		}
		pending, err := outbox.PendingJobs(ctx)
		return pending == 0, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// WaitIdle waits until outbox has no pending job while indexers run elsewhere (Indexer.Start,
// other processes), and fails t when that takes longer than timeout.
func WaitIdle(t testing.TB, outbox driver.Outbox, timeout time.Duration) {
	t.Helper()
	err := poll.Until(context.Background(), timeout, "the outbox emptied by the running indexers", func() (bool, error) {
		pending, err := outbox.PendingJobs(context.Background())
		return pending == 0, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Latencies collects per-operation durations in a benchmark.
type Latencies []time.Duration

// Report reports the 50th, 95th and 99th percentiles (nearest rank) of l as b's metrics p50-ms,
// p95-ms and p99-ms, and returns the first two.
func (l Latencies) Report(b *testing.B) (p50, p95 time.Duration) {
	p50, p95 = l.Percentiles()
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(l.at(99).Microseconds())/1000, "p99-ms")
	return p50, p95
}

// Percentiles returns the 50th and 95th percentiles (nearest rank) of l.
func (l Latencies) Percentiles() (p50, p95 time.Duration) { return l.at(50), l.at(95) }

// at is the p-th percentile (nearest rank) of l.
func (l Latencies) at(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := append(Latencies(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[max(0, min(int(p/100*float64(len(s))+0.999999)-1, len(s)-1))]
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
