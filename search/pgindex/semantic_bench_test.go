package pgindex_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// denseEmbedder stands in for a hosted embedding model: every text gets a dense, normalised
// vector (the sum of its words' fixed pseudo-random Gaussian vectors), so texts that share
// words are close, and no vector has exact int8 codes.
type denseEmbedder struct {
	dims  int
	mu    sync.Mutex
	words map[string][]float32
}

func (e *denseEmbedder) Model() string   { return "dense-bench" }
func (e *denseEmbedder) Dimensions() int { return e.dims }

func (e *denseEmbedder) word(w string) []float32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.words[w]; ok {
		return v
	}
	h := fnv.New64a()
	h.Write([]byte(w))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	v := make([]float32, e.dims)
	for j := range v {
		v[j] = float32(r.NormFloat64())
	}
	e.words[w] = v
	return v
}

func (e *denseEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		sum := make([]float64, e.dims)
		for _, w := range indexdriver.Tokenize(t) {
			for j, x := range e.word(w) {
				sum[j] += float64(x)
			}
		}
		var n float64
		for _, x := range sum {
			n += x * x
		}
		v := make([]float32, e.dims)
		for j, x := range sum {
			if n > 0 {
				v[j] = float32(x / math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// BenchmarkSemanticScale measures semantic (Index.Semantic, TopK 10) and hybrid
// (Searcher.Search, limit 10) query latency on one project of 1,536-dimension dense vectors,
// on memindex and on pgindex with its default settings, and on pgindex with a vector cache that
// holds three quarters of the project (a project bigger than its cache: the rest is streamed
// from PostgreSQL by every query). Every pgindex
// answer is checked against memindex's (exact search: recall 1). The pgindex lines report p95
// as a multiple of memindex's; the default one also reports the Go heap its caches hold for
// the project (cache-MiB). 10k chunks by default, 100k with AGENTFILES_BENCH_100K=1.
//
//	go test -run '^$' -bench SemanticScale -benchtime 100x ./search/pgindex/
//	AGENTFILES_BENCH_100K=1 go test -run '^$' -bench SemanticScale -benchtime 200x -timeout 1h ./search/pgindex/
func BenchmarkSemanticScale(b *testing.B) {
	for _, size := range benchSizes() {
		b.Run(fmt.Sprintf("chunks=%d/dims=1536", size), func(b *testing.B) {
			benchSemanticScale(b, size, 1536)
		})
	}
}

// denseBench is the setting of a benchmark over dense vectors: a database with a file store,
// the embedder, one project, and memindex over a memory store (the exact reference).
type denseBench struct {
	url   string
	pgs   *pgstore.Store
	emb   *denseEmbedder
	scope driver.Scope
	mem   *backend
}

func newDenseBench(b *testing.B, dims int) *denseBench {
	url := pgtest.New(b)
	pgs, err := pgstore.Open(context.Background(), url, pgstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgs.Close)
	return &denseBench{
		url:   url,
		pgs:   pgs,
		emb:   &denseEmbedder{dims: dims, words: make(map[string][]float32)},
		scope: driver.Scope{Tenant: agentfiles.NewAuthContext(benchKey, "").APIKeyHash, Project: "semantic"},
		mem:   &backend{name: "memindex", store: memstore.New(memstore.Options{}), index: memindex.New()},
	}
}

func benchSemanticScale(b *testing.B, chunks, dims int) {
	ctx := context.Background()
	d := newDenseBench(b, dims)
	url, pgs, emb, scope, mem := d.url, d.pgs, d.emb, d.scope, d.mem
	pgDefault, err := pgindex.Open(ctx, url, pgindex.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgDefault.Close)
	// A cache whose project share (half) holds three quarters of the project's codes.
	pgSmall, err := pgindex.Open(ctx, url, pgindex.Options{VectorCacheBytes: int64(float64(chunks) * (1536 + 12 + 10) * 2 * 0.75)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pgSmall.Close)
	backends := []*backend{mem, {name: "pgindex", store: pgs, index: pgDefault}, {name: "pgindex-75pct-cached", store: pgs, index: pgSmall}}
	start := time.Now()
	loadDense(b, scope, mem, backends[1], chunks, emb)
	if _, err := pgs.Pool().Exec(ctx, "DELETE FROM mcp_file_index_jobs"); err != nil {
		b.Fatal(err)
	}
	storetest.CompleteJobs(b, mem.store)
	if err := pgDefault.Merge(ctx, scope); err != nil {
		b.Fatal(err)
	}
	if _, err := pgs.Pool().Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d chunks of %d dims in %v", chunks, dims, time.Since(start).Round(time.Millisecond))
	for _, be := range backends {
		be.searcher, err = search.NewSearcher(be.store, be.index, search.SearcherOptions{Embedder: emb, Chunker: benchChunker})
		if err != nil {
			b.Fatal(err)
		}
	}
	qctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext(benchKey, "bench"))
	queries := benchQueries(rand.New(rand.NewPCG(3, uint64(chunks))), 200)
	vecs, _ := emb.Embed(ctx, queries)
	semantic := func(be *backend, i int) ([]indexdriver.Candidate, error) {
		return be.index.Semantic(qctx, scope, indexdriver.SemanticQuery{Vector: vecs[i], Model: emb.Model(), TopK: 10})
	}
	// The Go heap the default pgindex holds for the project once its caches are warm.
	var heapBefore, heapAfter runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heapBefore)
	if _, err := semantic(backends[1], 0); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&heapAfter)
	cacheMiB := float64(int64(heapAfter.HeapAlloc)-int64(heapBefore.HeapAlloc)) / (1 << 20)
	// Exact: every pgindex answer is memindex's.
	for i := range queries[:20] {
		want, err := semantic(mem, i)
		if err != nil {
			b.Fatal(err)
		}
		for _, be := range backends[1:] {
			got, err := semantic(be, i)
			if err != nil {
				b.Fatal(err)
			}
			// The stores' versions differ (two stores, two clocks); the rest is compared.
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(indexdriver.Candidate{}, "FileUpdatedAt")); diff != "" {
				b.Fatalf("%s differs from memindex on %q (-memindex +pgindex):\n%s", be.name, queries[i], diff)
			}
		}
	}
	kinds := map[string]func(be *backend, i int) error{
		"semantic": func(be *backend, i int) error { _, err := semantic(be, i); return err },
		"hybrid": func(be *backend, i int) error {
			_, err := be.searcher.Search(qctx, search.Query{Project: scope.Project, Query: queries[i], Limit: 10})
			return err
		},
	}
	for _, kind := range []string{"semantic", "hybrid"} {
		var memP95 time.Duration
		for _, be := range backends {
			b.Run(kind+"/"+be.name, func(b *testing.B) {
				lat := make(indextest.Latencies, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					if err := kinds[kind](be, i%len(queries)); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				_, p95 := lat.Report(b)
				switch {
				case be.name == "memindex":
					memP95 = p95
				case memP95 > 0:
					b.ReportMetric(float64(p95)/float64(memP95), "x-memindex-p95")
				}
				if be.name == "pgindex" && kind == "semantic" {
					b.ReportMetric(cacheMiB, "caches-MiB")
				}
			})
		}
	}
}

// loadDense writes files of about ten 400-byte chunks to both backends' stores and indexes
// them (pgindex from two goroutines) until chunks chunks are indexed.
func loadDense(b *testing.B, scope driver.Scope, mem, pg *backend, chunks int, emb *denseEmbedder) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, uint64(chunks)))
	work := make(chan indexdriver.IndexedFile, 64)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if err := pg.index.ReplaceFile(ctx, scope, f); err != nil {
					errs <- err
					for range work {
					}
					return
				}
			}
		}()
	}
	total := 0
	for i := 0; total < chunks; i++ {
		content := benchFile(r)
		path := fmt.Sprintf("/dir%02d/file%05d.txt", i%50, i)
		var f indexdriver.IndexedFile
		for _, be := range []*backend{mem, pg} {
			var info driver.FileInfo
			err := be.store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				var err error
				info, err = tx.Put(ctx, path, []byte(content), driver.PutOptions{})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			f = denseFile(path, info.UpdatedAt, content, emb)
			if be == mem {
				if err := mem.index.ReplaceFile(ctx, scope, f); err != nil {
					b.Fatal(err)
				}
			}
		}
		work <- f // the pgstore version: the Searcher checks it
		total += len(f.Chunks)
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// denseFile cuts content as the Indexer does and embeds it with emb.
func denseFile(path string, version time.Time, content string, emb *denseEmbedder) indexdriver.IndexedFile {
	f := indexedFile(path, version, content, benchChunker, nil)
	texts := make([]string, len(f.Chunks))
	for i, c := range f.Chunks {
		texts[i] = c.Text
	}
	vecs, _ := emb.Embed(context.Background(), texts)
	for i := range f.Chunks {
		f.Chunks[i].Vector = vecs[i]
	}
	f.EmbeddingModel = emb.Model()
	return f
}

// rawCodesRead returns the median of five plain reads (rows discarded) of the int8 codes of the
// files past the first share bytes of codes in path order: about what a query past a cache
// of twice share streams, a floor for its time.
func rawCodesRead(b *testing.B, pgs *pgstore.Store, share int64) time.Duration {
	ctx := context.Background()
	var from string
	err := pgs.Pool().QueryRow(ctx, `SELECT coalesce(min(file_path), '') FROM (
    SELECT file_path, sum(octet_length(codes)) OVER (ORDER BY file_path) AS upto FROM mcp_search_vectors) c
WHERE upto > $1`, share).Scan(&from)
	if err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	for range 5 {
		t0 := time.Now()
		rows, err := pgs.Pool().Query(ctx, "SELECT codes FROM mcp_search_vectors WHERE file_path >= $1", from)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	return took[len(took)/2]
}

// BenchmarkSemanticPastCache measures Index.Semantic (TopK 10) on one project of 1,536-dimension
// dense vectors larger than its share of the vector cache: with VectorCacheBytes 64 MiB (a
// project share of 32 MiB, about 40% of the project's int8 codes at 50k chunks) and with no
// cache, against the default cache, which holds the whole project (the reference, same run).
// For each it reports the median of warm queries (p50-ms, and x-in-cache-p50, the ratio to the
// reference's) and the median over five restarts of the first query of a new Index (first-ms:
// cold process caches, warm database; x-in-cache-first likewise). read-rest-ms is a floor for
// the median past the cache: one plain read of the codes past the project's cache share (all
// of them without a cache), which every such query streams. Every answer of the first 20
// queries is checked against memindex's (exact search). 50k chunks by default;
// AGENTFILES_BENCH_CHUNKS sets another size.
//
//	go test -run '^$' -bench SemanticPastCache -benchtime 50x -timeout 30m ./search/pgindex/
func BenchmarkSemanticPastCache(b *testing.B) {
	chunks := 50_000
	if s := os.Getenv("AGENTFILES_BENCH_CHUNKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("AGENTFILES_BENCH_CHUNKS=%q: want a positive number of chunks", s)
		}
		chunks = n
	}
	b.Run(fmt.Sprintf("chunks=%d/dims=1536", chunks), func(b *testing.B) {
		benchSemanticPastCache(b, chunks, 1536)
	})
}

func benchSemanticPastCache(b *testing.B, chunks, dims int) {
	ctx := context.Background()
	d := newDenseBench(b, dims)
	url, pgs, emb, scope, mem := d.url, d.pgs, d.emb, d.scope, d.mem
	variants := []struct {
		name string
		opts pgindex.Options
	}{
		{"in-cache", pgindex.Options{}},
		{"cache=64MiB", pgindex.Options{VectorCacheBytes: 64 << 20}},
		{"no-cache", pgindex.Options{VectorCacheBytes: -1}},
	}
	indexes := make([]*pgindex.Index, len(variants))
	for i, v := range variants {
		var err error
		if indexes[i], err = pgindex.Open(ctx, url, v.opts); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(indexes[i].Close)
	}
	start := time.Now()
	loadDense(b, scope, mem, &backend{name: "pgindex", store: pgs, index: indexes[0]}, chunks, emb)
	if err := indexes[0].Merge(ctx, scope); err != nil {
		b.Fatal(err)
	}
	if _, err := pgs.Pool().Exec(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d chunks of %d dims in %v", chunks, dims, time.Since(start).Round(time.Millisecond))
	queries := benchQueries(rand.New(rand.NewPCG(3, uint64(chunks))), 200)
	vecs, _ := emb.Embed(ctx, queries)
	semantic := func(ix indexdriver.Index, i int) ([]indexdriver.Candidate, error) {
		return ix.Semantic(ctx, scope, indexdriver.SemanticQuery{Vector: vecs[i%len(vecs)], Model: emb.Model(), TopK: 10})
	}
	for i := range 20 {
		want, err := semantic(mem.index, i)
		if err != nil {
			b.Fatal(err)
		}
		for vi, ix := range indexes {
			got, err := semantic(ix, i)
			if err != nil {
				b.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(indexdriver.Candidate{}, "FileUpdatedAt")); diff != "" {
				b.Fatalf("%s differs from memindex on %q (-memindex +pgindex):\n%s", variants[vi].name, queries[i], diff)
			}
		}
	}
	var refWarm, refFirst time.Duration
	for vi, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			// The first query of a new Index (a restarted process; the database stays warm).
			first := make([]time.Duration, 0, 5)
			for r := range 5 {
				ix, err := pgindex.Open(ctx, url, v.opts)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				_, err = semantic(ix, 100+r)
				first = append(first, time.Since(t0))
				ix.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			lat := make(indextest.Latencies, 0, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := semantic(indexes[vi], i); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			p50, _ := lat.Report(b)
			if v.opts.VectorCacheBytes != 0 {
				// The floor: one plain read of the codes the cache share leaves out (all of them
				// without a cache).
				b.ReportMetric(float64(rawCodesRead(b, pgs, max(0, v.opts.VectorCacheBytes/2)).Microseconds())/1000, "read-rest-ms")
			}
			slices.Sort(first)
			firstP50 := first[len(first)/2]
			b.ReportMetric(float64(firstP50.Microseconds())/1000, "first-ms")
			if vi == 0 {
				refWarm, refFirst = p50, firstP50
			} else if refWarm > 0 && refFirst > 0 {
				b.ReportMetric(float64(p50)/float64(refWarm), "x-in-cache-p50")
				b.ReportMetric(float64(firstP50)/float64(refFirst), "x-in-cache-first")
			}
		})
	}
}
