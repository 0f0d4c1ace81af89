package pgindex_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// denseVector is a normalised pseudo-random vector of dims floats, like a neural embedder's:
// every dimension non-zero, so its int8 codes are not exact.
func denseVector(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var n float64
	for j := range v {
		x := r.NormFloat64()
		v[j] = float32(x)
		n += x * x
	}
	for j := range v {
		v[j] = float32(float64(v[j]) / math.Sqrt(n))
	}
	return v
}

// vectorFile is a lexical-and-vector file of one chunk per vector.
func vectorFile(path string, version time.Time, model string, vecs ...[]float32) indexdriver.IndexedFile {
	f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: version, Tokenizer: indexdriver.TokenizerName, EmbeddingModel: model}
	for i, v := range vecs {
		f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{
			Chunk: indexdriver.Chunk{Index: i, StartByte: int64(10 * i), EndByte: int64(10*i + 10)}, Terms: map[string]int{"w": 1}, ChunkTerms: 1, Vector: v})
	}
	return f
}

// TestSemanticCacheMatchesMemindex: pgindex's vector cache keeps int8 codes at 1,536
// dimensions and re-scores only the chunks they cannot rule out, reading their floats from
// PostgreSQL; at 64 dimensions it keeps floats; a project bigger than the cache is cached in
// part and the rest streamed. In every case the answers equal memindex's and a float scan's
// (cache off) — chunks, order and float64 scores — on dense vectors, exact ties (duplicated
// vectors), vectors with exact codes next to dense ones, a query equal to a stored vector and
// its negative, path filters, files replaced and deleted after the cache was built, and TopK
// past the number of chunks.
func TestSemanticCacheMatchesMemindex(t *testing.T) {
	for _, tc := range []struct {
		dims       int
		cacheBytes int64 // the overflow instance's cache: half of it per project, about half the project
		split      bool  // the first pass split across CPUs
	}{{1536, 400 << 10, false}, {1536, 400 << 10, true}, {64, 64 << 10, false}} {
		t.Run(fmt.Sprintf("dims=%d/split=%v", tc.dims, tc.split), func(t *testing.T) {
			if tc.split {
				t.Cleanup(pgindex.SplitScansFrom(1))
			}
			testSemanticCache(t, tc.dims, tc.cacheBytes)
		})
	}
}

func testSemanticCache(t *testing.T, dims int, cacheBytes int64) {
	const model = "dense-test"
	ctx := context.Background()
	cached, url := newIndex(t, pgindex.Options{})
	streamed, err := pgindex.Open(ctx, url, pgindex.Options{VectorCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(streamed.Close)
	overflowing, err := pgindex.Open(ctx, url, pgindex.Options{VectorCacheBytes: cacheBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(overflowing.Close)
	mem := memindex.New()
	r := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC)
	put := func(f indexdriver.IndexedFile) {
		t.Helper()
		for _, ix := range []indexdriver.Index{mem, cached} { // one database: cached writes for all
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	var stored [][]float32
	for i := range 120 {
		vecs := make([][]float32, 1+i%4)
		for j := range vecs {
			vecs[j] = denseVector(r, dims)
		}
		if i%10 == 3 { // exact ties: a chunk of an earlier file again
			vecs[0] = stored[r.IntN(len(stored))]
		}
		if i%15 == 7 { // exact codes: small multiples of one step
			v := make([]float32, dims)
			for j := range v {
				v[j] = float32(r.IntN(9)-4) / 64
			}
			vecs[0] = v
		}
		stored = append(stored, vecs...)
		put(vectorFile(fmt.Sprintf("/d%d/f%03d.md", i%3, i), base.Add(time.Duration(i)), model, vecs...))
	}
	queries := map[string][]float32{"dense": denseVector(r, dims), "stored": stored[17], "negated": nil, "tied": stored[3]}
	queries["negated"] = make([]float32, dims)
	for j, x := range stored[17] {
		queries["negated"][j] = -x
	}
	check := func(stage string) {
		t.Helper()
		for name, qv := range queries {
			for _, q := range []indexdriver.SemanticQuery{
				{Vector: qv, Model: model, TopK: 10},
				{Vector: qv, Model: model, TopK: 1},
				{Vector: qv, Model: model, TopK: 1000},
				{Vector: qv, Model: model, TopK: 5, PathPrefix: "/d1/", ExcludePaths: map[string]bool{"/d1/f001.md": true}},
			} {
				want, err := mem.Semantic(ctx, testScope, q)
				if err != nil {
					t.Fatal(err)
				}
				for ixName, ix := range map[string]indexdriver.Index{"cached": cached, "streamed": streamed, "overflowing the cache": overflowing} {
					got, err := ix.Semantic(ctx, testScope, q)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("%s, query %s, TopK %d, prefix %q, %s (-memindex +pgindex):\n%s", stage, name, q.TopK, q.PathPrefix, ixName, diff)
					}
				}
			}
		}
	}
	check("first")
	// Replace and delete files after the cache holds them: the cache refreshes file by file.
	put(vectorFile("/d0/f000.md", base.Add(time.Hour), model, queries["dense"]))
	for _, ix := range []indexdriver.Index{mem, cached} {
		if err := ix.DeleteFile(ctx, testScope, "/d2/f017.md", base.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	check("after writes")
}
