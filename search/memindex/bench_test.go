package memindex

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

var benchLarge = flag.Bool("search.large", false, "also run the 100k-chunk benchmarks (slow to build)")

// semFixture is a project of hashing-embedded chunks (256 dims, 10 chunks per file) with its
// vectors also kept row-major for the flat reference scan.
type semFixture struct {
	ix     *Index
	scope  driver.Scope
	emb    *search.HashingEmbedder
	paths  []string
	rows   [][][]float32 // per file, per chunk
	sparse [][]float32   // queries of 3 words: about 10% of the dimensions are non-zero
	dense  [][]float32   // queries of 200 words: almost every dimension is non-zero
}

func buildSemFixture(b *testing.B, chunks int) *semFixture {
	b.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%xq%d", r.Uint32()%0xffff, i%7)
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	text := func(n int) string {
		var s strings.Builder
		for range n {
			s.WriteString(vocab[zipf.Uint64()])
			s.WriteByte(' ')
		}
		return s.String()
	}
	fx := &semFixture{ix: New(), scope: driver.Scope{Tenant: "t", Project: "p"}, emb: search.NewHashingEmbedder(search.DefaultHashingDimensions)}
	for f := 0; f*10 < chunks; f++ {
		texts := make([]string, 10)
		for i := range texts {
			texts[i] = text(45)
		}
		path := fmt.Sprintf("/dir%03d/file%05d.txt", f%100, f)
		doc := embedFile(b, fx.emb, path, time.Unix(1, 0), texts)
		if err := fx.ix.ReplaceFile(context.Background(), fx.scope, doc); err != nil {
			b.Fatal(err)
		}
		var rows [][]float32
		for _, c := range doc.Chunks {
			rows = append(rows, c.Vector)
		}
		fx.paths = append(fx.paths, path)
		fx.rows = append(fx.rows, rows)
	}
	for range 100 {
		v, _ := fx.emb.Embed(context.Background(), []string{text(3), text(200)})
		fx.sparse, fx.dense = append(fx.sparse, v[0]), append(fx.dense, v[1])
	}
	return fx
}

// flat is the reference: indexdriver.Dot against every row into the same top-K heap, split across
// CPUs from parallelScanChunks on (the scan memindex did before vectors were tiled).
func (fx *semFixture) flat(q []float32, k int) []indexdriver.Candidate {
	parts := 1
	if len(fx.rows)*10 >= parallelScanChunks {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	heaps := make([]*indexdriver.TopK[indexdriver.Candidate], parts)
	var wg sync.WaitGroup
	for i := range parts {
		heaps[i] = indexdriver.NewTopK[indexdriver.Candidate](k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := heaps[i]
			for f := i * len(fx.rows) / parts; f < (i+1)*len(fx.rows)/parts; f++ {
				for c, v := range fx.rows[f] {
					if score := float64(indexdriver.Dot(v, q)); h.Wants(score) {
						cand := indexdriver.Candidate{Path: fx.paths[f], FileUpdatedAt: time.Unix(1, 0), Chunk: indexdriver.Chunk{Index: c}, Score: score}
						h.Offer(indexdriver.Ranked[indexdriver.Candidate]{Score: score, Path: cand.Path, Index: c, Value: cand})
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, other := range heaps[1:] {
		for _, r := range other.Sorted() {
			heaps[0].Offer(r)
		}
	}
	best := heaps[0].Sorted()
	out := make([]indexdriver.Candidate, len(best))
	for i, r := range best {
		out[i] = r.Value
	}
	return out
}

// BenchmarkSemantic runs the tiled two-pass Semantic and the flat reference scan on the same
// queries in the same loop, checks that they return the same chunks, and reports both times
// and their ratio (tiled / flat), for short (sparse) and long (dense) query vectors.
func BenchmarkSemantic(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		var fx *semFixture
		for _, kind := range []string{"sparse", "dense"} {
			b.Run(fmt.Sprintf("chunks=%dk/query=%s", n/1000, kind), func(b *testing.B) {
				if n > 10_000 && !*benchLarge {
					b.Skip("100k-chunk benchmark: run with -search.large")
				}
				if fx == nil {
					fx = buildSemFixture(b, n)
				}
				queries := fx.sparse
				if kind == "dense" {
					queries = fx.dense
				}
				benchSemantic(b, fx, queries)
			})
		}
	}
}

func benchSemantic(b *testing.B, fx *semFixture, queries [][]float32) {
	var tiled, flat time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := queries[i%len(queries)]
		start := time.Now()
		got, err := fx.ix.Semantic(context.Background(), fx.scope, indexdriver.SemanticQuery{Vector: q, Model: fx.emb.Model(), TopK: 30})
		mid := time.Now()
		want := fx.flat(q, 30)
		tiled, flat = tiled+mid.Sub(start), flat+time.Since(mid)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(want) {
			b.Fatalf("%d results, reference %d", len(got), len(want))
		}
		for j := range got {
			if diff := cmp.Diff([]any{want[j].Path, want[j].Chunk.Index, want[j].Score}, []any{got[j].Path, got[j].Chunk.Index, got[j].Score}); diff != "" {
				b.Fatalf("result %d differs from the flat scan:\n%s", j, diff)
			}
		}
	}
	b.ReportMetric(float64(tiled.Microseconds())/float64(b.N)/1000, "tiled-ms")
	b.ReportMetric(float64(flat.Microseconds())/float64(b.N)/1000, "flat-ms")
	b.ReportMetric(float64(tiled)/float64(flat), "tiled/flat")
}

// BenchmarkSemanticDense1536 is a neural-sized semantic query: 1,536-dimension vectors
// clustered around 500 centres (cosine ≈ 0.4–0.6 within a cluster, as related texts' embeddings
// are), 100k chunks (10k without -search.large), top 30, every query dimension non-zero. The
// same vectors are indexed twice in one process: "int8" keeps int8 codes (the default from 512
// dimensions) and "float" does not (the float32 tiled first pass, what memindex did before);
// each query runs on both, the answers must be identical (chunks and scores), and the
// benchmark reports p50/p95 of each.
func BenchmarkSemanticDense1536(b *testing.B) {
	n := 10_000
	if *benchLarge {
		n = 100_000
	}
	const dims = 1536
	r := rand.New(rand.NewPCG(11, 12))
	unitNoise := func(c []float32, w float32) []float32 {
		v := make([]float32, dims)
		var s float64
		for j := range v {
			v[j] = float32(r.NormFloat64()) / 39.2 // ≈ unit length
			if c != nil {
				v[j] = w*c[j] + (1-w)*v[j]
			}
			s += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] = float32(float64(v[j]) / math.Sqrt(s))
		}
		return v
	}
	centres := make([][]float32, 500)
	for i := range centres {
		centres[i] = unitNoise(nil, 0)
	}
	scope := driver.Scope{Tenant: "t", Project: "p"}
	old := quantizeMinDims
	defer func() { quantizeMinDims = old }()
	int8Index, floatIndex := New(), New()
	for f := 0; f*10 < n; f++ {
		doc := indexdriver.IndexedFile{Path: fmt.Sprintf("/dir%03d/file%05d.txt", f%100, f), FileUpdatedAt: time.Unix(1, 0), EmbeddingModel: "neural"}
		for i := range 10 {
			doc.Chunks = append(doc.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i}, Vector: unitNoise(centres[r.IntN(len(centres))], 0.5)})
		}
		quantizeMinDims = old
		if err := int8Index.ReplaceFile(context.Background(), scope, doc); err != nil {
			b.Fatal(err)
		}
		quantizeMinDims = math.MaxInt
		if err := floatIndex.ReplaceFile(context.Background(), scope, doc); err != nil {
			b.Fatal(err)
		}
	}
	quantizeMinDims = old
	queries := make([][]float32, 100)
	for i := range queries {
		queries[i] = unitNoise(centres[r.IntN(len(centres))], 0.5)
	}
	var lat [2][]time.Duration
	runtime.GC()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		sq := indexdriver.SemanticQuery{Vector: queries[i%len(queries)], Model: "neural", TopK: 30}
		var got [2][]indexdriver.Candidate
		for j, ix := range []*Index{int8Index, floatIndex} {
			start := time.Now()
			res, err := ix.Semantic(context.Background(), scope, sq)
			lat[j] = append(lat[j], time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
			got[j] = res
		}
		if diff := cmp.Diff(got[1], got[0]); diff != "" || len(got[0]) != 30 {
			b.Fatalf("int8 first pass differs from the float one (-float +int8):\n%s", diff)
		}
	}
	for j, name := range []string{"int8", "float"} {
		slices.Sort(lat[j])
		b.ReportMetric(float64(lat[j][len(lat[j])/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(lat[j][len(lat[j])*95/100].Microseconds())/1000, name+"-p95-ms")
	}
}
