package memindex

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/internal/int8vec"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// withQuantized runs f with every vector store keeping int8 codes, and again with the
// portable kernel when the AVX2 one is in use.
func withQuantized(t *testing.T, f func(t *testing.T)) {
	old, oldAVX2 := quantizeMinDims, int8vec.UseAVX2
	t.Cleanup(func() { quantizeMinDims, int8vec.UseAVX2 = old, oldAVX2 })
	quantizeMinDims = 0
	t.Run(fmt.Sprintf("avx2=%v", int8vec.UseAVX2), f)
	if int8vec.UseAVX2 {
		int8vec.UseAVX2 = false
		t.Run("avx2=false", f)
	}
}

// TestFloatTiles runs the semantic tests with stores that keep float32 tiles from the start
// instead of exact int8 codes (what a store falls back to when a vector has no exact codes).
func TestFloatTiles(t *testing.T) {
	old := exactCodes
	t.Cleanup(func() { exactCodes = old })
	exactCodes = false
	for name, f := range map[string]func(*testing.T){
		"MatchesExactScan": TestSemanticMatchesExactScan, "SmallStores": TestSemanticSmallStores,
		"ConcurrentWithWrites": TestSemanticConcurrentWithWrites, "FreedWithItsModel": TestVectorStoreFreedWithItsModel,
		"Churn": TestChurnMatchesFreshIndex,
	} {
		t.Run(name, f)
	}
}

// TestExactCodes checks which vectors a store keeps as exact codes, that the hashing
// embedder's are among them, and that a store leaves exact mode on the first vector that is
// not, with every vector it held before still read back bit for bit.
func TestExactCodes(t *testing.T) {
	ctx := context.Background()
	emb := search.NewHashingEmbedder(256)
	texts := []string{"a few words", "some more words, and a longer sentence that has many features in it", prose(300)}
	vecs, _ := emb.Embed(ctx, texts)
	vs := newVectorStore(256)
	for i, v := range vecs {
		vs.put(int32(i), v)
		if !vs.exact() {
			t.Fatalf("hashing vector %d has no exact codes", i)
		}
	}
	odd := append([]float32(nil), vecs[0]...)
	odd[5] = math.Nextafter32(odd[5], 1)
	vs.put(3, odd)
	if vs.exact() || vs.codes != nil {
		t.Fatal("a vector without exact codes left the store in exact mode")
	}
	for i, v := range append(vecs, odd) {
		got := vs.row(int32(i), make([]float32, 256))
		for j := range v {
			if math.Float32bits(got[j]) != math.Float32bits(v[j]) {
				t.Fatalf("vector %d, dimension %d: %v read back as %v", i, j, v[j], got[j])
			}
		}
	}
	for _, v := range [][]float32{make([]float32, 8), {1, 2, 300, 0, 0, 0, 0, 0}, {float32(math.Inf(1)), 1, 0, 0, 0, 0, 0, 0}, {float32(math.NaN()), 1, 0, 0, 0, 0, 0, 0}, {0.1, 0.7, 0.3, 0, 0, 0, 0, float32(math.Copysign(0, -1))}} {
		if newCodeStore(8).putExact(0, v) {
			t.Errorf("%v: exact codes claimed", v)
		}
	}
	for _, v := range [][]float32{{0.1, 0.2, -0.3, 0, 0, 0, 0, 12.7}, {1e-40, 3e-40, 0, 0, 0, 0, 0, 0}, {1e30, -2e30, 0, 0, 0, 0, 0, 0}} {
		cs := newCodeStore(8)
		if cs.putExact(0, v) {
			got := cs.decode(0, make([]float32, 8))
			if diff := cmp.Diff(v, got); diff != "" {
				t.Errorf("%v read back differently:\n%s", v, diff)
			}
		}
	}
}

// prose is n words of lower-case text.
func prose(n int) string {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", r.IntN(500))
	}
	return fmt.Sprint(words)
}

// TestQuantizedSmallVectors runs the exact-scan comparisons of the float path through the int8
// first pass (hashing vectors of 16 to 64 dimensions, dense and sparse queries).
func TestQuantizedSmallVectors(t *testing.T) {
	withQuantized(t, func(t *testing.T) {
		TestSemanticMatchesExactScan(t)
		TestSemanticConcurrentWithWrites(t)
	})
}

// TestQuantizedMatchesExactScan checks that Semantic through the int8 codes returns exactly
// the exhaustive indexdriver.Dot scan (chunks, order, float64 scores bit for bit) at 1,536
// dimensions, on random vectors and on adversarial ones: exact ties, ties closer than float32
// rounding, vectors whose quantisation error is as large as it gets (one large component and
// the rest just under half a code step), constant, zero and subnormal vectors, negatives of
// the query, and files deleted and replaced so slots are reused.
func TestQuantizedMatchesExactScan(t *testing.T) {
	for _, avx2 := range []bool{true, false} {
		if avx2 && !int8vec.UseAVX2 {
			continue
		}
		t.Run(fmt.Sprintf("avx2=%v", avx2), func(t *testing.T) {
			old := int8vec.UseAVX2
			int8vec.UseAVX2 = avx2
			defer func() { int8vec.UseAVX2 = old }()
			testQuantizedMatchesExactScan(t, 1536)
		})
	}
	withQuantized(t, func(t *testing.T) { testQuantizedMatchesExactScan(t, 40) })
}

func testQuantizedMatchesExactScan(t *testing.T, dims int) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := New()
	const model = "neural"
	r := rand.New(rand.NewPCG(5, 6))
	unit := func(v []float32) []float32 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if s > 0 {
			for j := range v {
				v[j] = float32(float64(v[j]) / math.Sqrt(s))
			}
		}
		return v
	}
	random := func() []float32 {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		return unit(v)
	}
	// clustered: near a few centres, as neural embeddings of related texts are.
	centres := [][]float32{random(), random(), random()}
	clustered := func() []float32 {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + float32(0.05*r.NormFloat64())
		}
		return unit(v)
	}
	put := func(path string, version time.Time, vecs ...[]float32) {
		t.Helper()
		f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: version, EmbeddingModel: model}
		for i, v := range vecs {
			f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, Text: path}, Vector: v})
		}
		if err := ix.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}
	v1 := time.Unix(1, 0)
	for i := range 150 {
		vecs := make([][]float32, 1+i%9)
		for j := range vecs {
			if j%2 == 0 {
				vecs[j] = random()
			} else {
				vecs[j] = clustered()
			}
		}
		put(fmt.Sprintf("/r%d/f%03d", i%3, i), v1, vecs...)
	}
	for i := 0; i < 150; i += 7 {
		if err := ix.DeleteFile(ctx, scope, fmt.Sprintf("/r%d/f%03d", i%3, i), v1); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 150; i += 10 {
		put(fmt.Sprintf("/r%d/f%03d", i%3, i), v1.Add(time.Second), clustered(), random())
	}
	query := clustered()
	// Exact ties: 40 copies of one vector near the query.
	tie := make([]float32, dims)
	for j := range tie {
		tie[j] = query[j] + float32(0.01*r.NormFloat64())
	}
	tie = unit(tie)
	for i := range 40 {
		put(fmt.Sprintf("/tie/f%02d", i), v1, tie)
	}
	// Near ties: the query itself, a few units in the last place off.
	for i := range 40 {
		v := append([]float32(nil), query...)
		for range 5 {
			j := r.IntN(dims)
			v[j] = math.Nextafter32(v[j], float32(r.IntN(3)-1))
		}
		put(fmt.Sprintf("/near/f%02d", i), v1, v)
	}
	// The worst quantisation error: one large component, the others just under half a step.
	for i := range 20 {
		v := make([]float32, dims)
		v[i%dims] = 1
		for j := range v {
			if j != i%dims {
				v[j] = float32(0.499/127) * float32(1-2*(j%2))
			}
		}
		put(fmt.Sprintf("/worst/f%02d", i), v1, v, unit(v))
	}
	constant := make([]float32, dims)
	subnormal := make([]float32, dims)
	negated := make([]float32, dims)
	for j := range constant {
		constant[j] = float32(1 / math.Sqrt(float64(dims)))
		subnormal[j] = float32(1e-40) * float32(j%3)
		negated[j] = -query[j]
	}
	put("/odd/f", v1, constant, make([]float32, dims), subnormal, negated)

	excl := map[string]bool{"/tie/f00": true, "/tie/f05": true, "/near/f03": true, "/r1/f001": true}
	queries := map[string][]float32{"clustered": query, "random": random(), "tie": tie, "constant": constant, "worst": func() []float32 {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(0.499/127) * float32(1-2*(j%2))
		}
		v[3] = 1
		return v
	}()}
	for name, vec := range queries {
		for _, q := range []indexdriver.SemanticQuery{
			{Vector: vec, Model: model, TopK: 30},
			{Vector: vec, Model: model, TopK: 1},
			{Vector: vec, Model: model, TopK: 10, ExcludePaths: excl},
			{Vector: vec, Model: model, TopK: 30, PathPrefix: "/r2/"},
			{Vector: vec, Model: model, TopK: 100000},
		} {
			got, err := ix.Semantic(ctx, scope, q)
			if err != nil {
				t.Fatal(err)
			}
			want := exactSemantic(t, ix, scope, q)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })); diff != "" {
				t.Errorf("query %s top %d prefix %q: differs from the exact scan (-want +got):\n%s", name, q.TopK, q.PathPrefix, diff)
			}
		}
	}
	if vs := ix.get(scope).vectors[vectorKey{model, dims}]; vs.codes == nil {
		t.Fatal("the store keeps no int8 codes")
	}
}
