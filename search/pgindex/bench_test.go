package pgindex_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Benchmarks compare pgindex with memindex on the same corpus in the same run. The corpus is
// synthetic: a Zipf vocabulary of 5,000 words without its 50 most frequent (the stop words), 400-byte chunks (about 60 terms), ten chunks per file,
// 64-dimension hashing-embedder vectors. 10k chunks per project run by default; set
// AGENTFILES_BENCH_100K=1 for 100k (slow to build: about 5 million postings).
//
//	go test -run '^$' -bench . -benchtime 200x ./search/pgindex/
//	AGENTFILES_BENCH_100K=1 go test -run '^$' -bench 'Query' -benchtime 100x -timeout 1h ./search/pgindex/

const benchDims = 64

func benchSizes() []int {
	if os.Getenv("AGENTFILES_BENCH_100K") == "1" {
		return []int{10_000, 100_000}
	}
	return []int{10_000}
}

var benchChunker = search.NewChunker(search.ChunkerOptions{TargetBytes: 400, OverlapBytes: -1})

// benchVocabulary is w0…w4999; rank r is drawn with probability ~ 1/(r+1), except that the
// 50 most frequent ranks are never drawn: they play the stop words the tokenizer removes.
var benchVocabulary = func() []string {
	v := make([]string, 5000)
	for i := range v {
		v[i] = "w" + strconv.FormatInt(int64(i), 36) + "x"
	}
	return v
}()

func zipfWord(r *rand.Rand) string {
	// Inverse CDF of a continuous 1/x law over [51, n+1).
	lo, hi := math.Log(51), math.Log(float64(len(benchVocabulary))+1)
	return benchVocabulary[min(int(math.Exp(lo+r.Float64()*(hi-lo)))-1, len(benchVocabulary)-1)]
}

// benchFile is a file of about ten 400-byte chunks.
func benchFile(r *rand.Rand) string {
	var b strings.Builder
	for b.Len() < 3900 {
		for i := range 12 {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(zipfWord(r))
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// benchQueries mixes frequent and rare words, two to four terms each.
func benchQueries(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		terms := make([]string, 2+r.IntN(3))
		for j := range terms {
			terms[j] = zipfWord(r)
		}
		out[i] = strings.Join(terms, " ")
	}
	return out
}

// backend is one store+index pair loaded with the corpus.
type backend struct {
	name     string
	store    driver.Store
	index    indexdriver.Index
	searcher *search.Searcher // the defaults
	// plain is the Searcher without query expansion: the ranking before it.
	plain *search.Searcher
	// storeTrips and indexTrips count the PostgreSQL round trips of the store's and the index's
	// pools (nil for memindex).
	storeTrips, indexTrips *roundTrips
}

// roundTrips counts the statements and the batches sent on a pool's connections: one round
// trip each (a batch is pipelined).
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// tracedPool opens a pool on url whose round trips trips counts.
func tracedPool(b *testing.B, url string, trips *roundTrips) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

type benchEnv struct {
	chunks   int
	scope    driver.Scope
	backends []*backend // memindex first, then pgindex
	queries  []string
	emb      *search.HashingEmbedder
}

const benchKey = "sk-bench-000000000000000000000000"

func newBenchEnv(b *testing.B, chunks int) *benchEnv {
	b.Helper()
	url := pgtest.New(b)
	ctx := context.Background()
	storeTrips, indexTrips := &roundTrips{}, &roundTrips{}
	pgs, err := pgstore.New(ctx, tracedPool(b, url, storeTrips), pgstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgs.Close)
	// The Index runs its statements on a pool of its own made from the given one's
	// configuration, tracer included.
	pgi, err := pgindex.New(ctx, tracedPool(b, url, indexTrips), pgindex.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgi.Close)
	e := &benchEnv{
		chunks: chunks,
		scope:  driver.Scope{Tenant: agentfiles.NewAuthContext(benchKey, "").APIKeyHash, Project: "bench"},
		emb:    search.NewHashingEmbedder(benchDims),
		backends: []*backend{
			{name: "memindex", store: memstore.New(memstore.Options{}), index: memindex.New()},
			{name: "pgindex", store: pgs, index: pgi, storeTrips: storeTrips, indexTrips: indexTrips},
		},
	}
	r := rand.New(rand.NewPCG(1, uint64(chunks)))
	e.queries = benchQueries(r, 200)
	total := 0
	start := time.Now()
	for i := 0; total < chunks; i++ {
		content := benchFile(r)
		path := fmt.Sprintf("/dir%02d/file%05d.txt", i%50, i)
		for _, be := range e.backends {
			var info driver.FileInfo
			err := be.store.Update(ctx, e.scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				var err error
				info, err = tx.Put(ctx, path, []byte(content), driver.PutOptions{})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			f := indexedFile(path, info.UpdatedAt, content, benchChunker, e.emb)
			if err := be.index.ReplaceFile(ctx, e.scope, f); err != nil {
				b.Fatal(err)
			}
			if be.name == "memindex" {
				total += len(f.Chunks)
			}
		}
	}
	// The outbox rows of the setup writes are not needed: the index was filled directly. (The
	// Searcher reads a project's pending jobs to find files not indexed yet, so they must go
	// from both stores.)
	if _, err := pgs.Pool().Exec(ctx, "DELETE FROM mcp_file_index_jobs"); err != nil {
		b.Fatal(err)
	}
	for {
		jobs, err := e.backends[0].store.ClaimJobs(ctx, 1000, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		if len(jobs) == 0 {
			break
		}
		for _, j := range jobs {
			if err := e.backends[0].store.CompleteJob(ctx, j); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := pgs.Pool().Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d chunks into both indexes in %v", total, time.Since(start).Round(time.Millisecond))
	for _, be := range e.backends {
		be.searcher, err = search.NewSearcher(be.store, be.index, search.SearcherOptions{Embedder: e.emb, Chunker: benchChunker})
		if err != nil {
			b.Fatal(err)
		}
		be.plain, err = search.NewSearcher(be.store, be.index, search.SearcherOptions{Embedder: e.emb, Chunker: benchChunker, Expansion: search.Expansion{FeedbackChunks: -1}})
		if err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// BenchmarkQuery measures query latency per kind (hybrid = Searcher.Search with the hashing
// embedder and the default query expansion, no reranker; bm25 = Index.Lexical top 30;
// semantic = Index.Semantic top 30) on memindex and pgindex. The pgindex line reports its p95
// as a multiple of memindex's (x-memindex-p95) from the same run, and its PostgreSQL round
// trips per query (index-trips/op, store-trips/op). The hybrid line also runs each query
// without expansion (the ranking before it), alternating with the expanded one so that both
// see the same machine, and reports that reference's percentiles (plain-p50-ms, plain-p95-ms)
// and the expanded query's as multiples of them (x-plain-p50, x-plain-p95); its ns/op and
// round trips count both queries.
func BenchmarkQuery(b *testing.B) {
	for _, size := range benchSizes() {
		b.Run(fmt.Sprintf("chunks=%d", size), func(b *testing.B) {
			e := newBenchEnv(b, size)
			ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(benchKey, "bench"))
			kinds := map[string]func(be *backend, q string) error{
				"hybrid": func(be *backend, q string) error {
					_, err := be.searcher.Search(ctx, search.Query{Project: e.scope.Project, Query: q, Limit: 5})
					return err
				},

				"bm25": func(be *backend, q string) error {
					_, err := be.index.Lexical(ctx, e.scope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(q), BM25: indexdriver.DefaultBM25(), TopK: 30})
					return err
				},
				"semantic": func(be *backend, q string) error {
					v, _ := e.emb.Embed(ctx, []string{q})
					_, err := be.index.Semantic(ctx, e.scope, indexdriver.SemanticQuery{Vector: v[0], Model: e.emb.Model(), TopK: 30})
					return err
				},
			}
			for _, kind := range []string{"hybrid", "bm25", "semantic"} {
				var memP95 time.Duration
				for _, be := range e.backends {
					b.Run(kind+"/"+be.name, func(b *testing.B) {
						lat := make(indextest.Latencies, 0, b.N)
						plain := make(indextest.Latencies, 0, b.N)
						var storeTrips, indexTrips int64
						if be.storeTrips != nil {
							storeTrips, indexTrips = be.storeTrips.n.Load(), be.indexTrips.n.Load()
						}
						for i := 0; i < b.N; i++ {
							q := e.queries[i%len(e.queries)]
							if kind == "hybrid" {
								t0 := time.Now()
								if _, err := be.plain.Search(ctx, search.Query{Project: e.scope.Project, Query: q, Limit: 5}); err != nil {
									b.Fatal(err)
								}
								plain = append(plain, time.Since(t0))
							}
							t0 := time.Now()
							if err := kinds[kind](be, q); err != nil {
								b.Fatal(err)
							}
							lat = append(lat, time.Since(t0))
						}
						p50, p95 := lat.Report(b)
						if kind == "hybrid" {
							r50, r95 := plain.Percentiles()
							b.ReportMetric(float64(r50.Microseconds())/1000, "plain-p50-ms")
							b.ReportMetric(float64(r95.Microseconds())/1000, "plain-p95-ms")
							b.ReportMetric(float64(p50)/float64(r50), "x-plain-p50")
							b.ReportMetric(float64(p95)/float64(r95), "x-plain-p95")
						}
						if be.storeTrips != nil {
							b.ReportMetric(float64(be.indexTrips.n.Load()-indexTrips)/float64(b.N), "index-trips/op")
							b.ReportMetric(float64(be.storeTrips.n.Load()-storeTrips)/float64(b.N), "store-trips/op")
						}
						if be.name == "memindex" {
							memP95 = p95
						} else if memP95 > 0 {
							b.ReportMetric(float64(p95)/float64(memP95), "x-memindex-p95")
						}
					})
				}
			}
		})
	}
}

// BenchmarkIndexFile measures ReplaceFile throughput (one op = one new version of a file of
// about ten chunks, vectors included) on a project already holding 10k chunks, for both
// indexes, and reports chunks/s; pgindex also reports its rate as a fraction of memindex's.
func BenchmarkIndexFile(b *testing.B) {
	e := newBenchEnv(b, 10_000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	files := make([]indexdriver.IndexedFile, 64)
	base := time.Now()
	for i := range files {
		files[i] = indexedFile(fmt.Sprintf("/new/file%03d.txt", i), base, benchFile(r), benchChunker, e.emb)
	}
	var memRate float64
	for _, be := range e.backends {
		b.Run(be.name, func(b *testing.B) {
			chunks := 0
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				f := files[i%len(files)]
				f.FileUpdatedAt = base.Add(time.Duration(i+1) * time.Microsecond)
				if err := be.index.ReplaceFile(ctx, e.scope, f); err != nil {
					b.Fatal(err)
				}
				chunks += len(f.Chunks)
			}
			rate := float64(chunks) / time.Since(t0).Seconds()
			b.ReportMetric(rate, "chunks/s")
			if be.name == "memindex" {
				memRate = rate
			} else if memRate > 0 {
				b.ReportMetric(rate/memRate, "x-memindex-rate")
			}
		})
	}
}

// BenchmarkQueryWhileWriting measures hybrid latency while another goroutine keeps writing
// (ReplaceFile of a new version of a 10-chunk file every 5 ms: 200 files, 2,000 chunks a second,
// a heavy ingest), so that nearly every query finds the project changed since the previous one:
// pgindex then refreshes its view of the project (file states, pending files, segment
// directories) in the query's snapshot, and its merger runs. Writes/s during the queries is
// reported with the latency.
//
//	AGENTFILES_BENCH_100K=1 go test -run '^$' -bench QueryWhileWriting -benchtime 200x -timeout 1h ./search/pgindex/
func BenchmarkQueryWhileWriting(b *testing.B) {
	for _, size := range benchSizes() {
		b.Run(fmt.Sprintf("chunks=%d", size), func(b *testing.B) {
			e := newBenchEnv(b, size)
			ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext(benchKey, "bench"))
			r := rand.New(rand.NewPCG(5, 6))
			files := make([]indexdriver.IndexedFile, 32)
			for i := range files {
				files[i] = indexedFile(fmt.Sprintf("/dir%02d/file%05d.txt", i%50, i), time.Now(), benchFile(r), benchChunker, e.emb)
			}
			for _, be := range e.backends {
				b.Run(be.name, func(b *testing.B) {
					stop := make(chan struct{})
					done := make(chan int)
					go func() {
						tick := time.NewTicker(5 * time.Millisecond)
						defer tick.Stop()
						n := 0
						for ; ; n++ {
							select {
							case <-stop:
								done <- n
								return
							case <-tick.C:
							}
							f := files[n%len(files)]
							f.FileUpdatedAt = time.Now()
							if err := be.index.ReplaceFile(context.Background(), e.scope, f); err != nil {
								b.Error(err)
								done <- n
								return
							}
						}
					}()
					lat := make(indextest.Latencies, 0, b.N)
					start := time.Now()
					for i := 0; i < b.N; i++ {
						t0 := time.Now()
						if _, err := be.searcher.Search(ctx, search.Query{Project: e.scope.Project, Query: e.queries[i%len(e.queries)], Limit: 5}); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(t0))
					}
					close(stop)
					writes := <-done
					lat.Report(b)
					b.ReportMetric(float64(writes)/time.Since(start).Seconds(), "writes/s")
				})
			}
		})
	}
}
