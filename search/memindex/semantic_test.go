package memindex

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// exactSemantic is the reference Semantic: indexdriver.Dot against every stored chunk of the model,
// sorted by score, then path, then chunk index.
func exactSemantic(t testing.TB, ix *Index, scope driver.Scope, q indexdriver.SemanticQuery) []indexdriver.Candidate {
	t.Helper()
	p := ix.get(scope)
	var paths []string
	p.mu.RLock()
	for path := range p.files {
		paths = append(paths, path)
	}
	p.mu.RUnlock()
	var all []indexdriver.Candidate
	for _, path := range paths {
		chunks, err := ix.Chunks(context.Background(), scope, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			if c.EmbeddingModel != q.Model || len(c.Vector) != len(q.Vector) || !strings.HasPrefix(path, q.PathPrefix) || q.ExcludePaths[path] {
				continue
			}
			all = append(all, indexdriver.Candidate{Path: path, FileUpdatedAt: c.FileUpdatedAt, Chunk: c.Chunk, Score: float64(indexdriver.Dot(c.Vector, q.Vector))})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := &all[i], &all[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Chunk.Index < b.Chunk.Index
	})
	if len(all) > q.TopK {
		all = all[:q.TopK]
	}
	return all
}

func embedFile(t testing.TB, emb search.Embedder, path string, version time.Time, texts []string) indexdriver.IndexedFile {
	t.Helper()
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: version, EmbeddingModel: emb.Model()}
	for i, text := range texts {
		f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, Text: text}, Vector: vecs[i]})
	}
	return f
}

// TestSemanticMatchesExactScan checks that the two-pass semantic search returns exactly what
// scoring every chunk with indexdriver.Dot returns (same chunks, same order, same float64 scores)
// for sparse and dense queries, filters, deleted and reused slots, a second model, masses of
// exact ties and near-ties closer than float32 rounding, and vectors whose size defeats the
// rounding bound.
func TestSemanticMatchesExactScan(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := New()
	emb := search.NewHashingEmbedder(64)
	other := search.NewHashingEmbedder(32)
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	put := func(f indexdriver.IndexedFile) {
		t.Helper()
		if err := ix.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}
	v1 := time.Unix(100, 0)
	for i := range 300 {
		texts := make([]string, 1+i%13)
		for j := range texts {
			texts[j] = text(5 + r.IntN(40))
		}
		put(embedFile(t, emb, fmt.Sprintf("/d%d/f%03d.md", i%4, i), v1, texts))
	}
	// Files of another model, and of the same model name with other dims, share the slots.
	for i := range 40 {
		put(embedFile(t, other, fmt.Sprintf("/other/f%02d.md", i), v1, []string{text(10), text(20)}))
	}
	// Deleted files free slots; replaced files reuse them.
	for i := 0; i < 300; i += 7 {
		if err := ix.DeleteFile(ctx, scope, fmt.Sprintf("/d%d/f%03d.md", i%4, i), v1); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 300; i += 11 {
		put(embedFile(t, emb, fmt.Sprintf("/d%d/f%03d.md", i%4, i), v1.Add(time.Second), []string{text(8), text(30), text(3)}))
	}
	// 60 identical files: exact ties at the top for queries near their text.
	dup := "kappa lambda mu kappa lambda"
	for i := range 60 {
		put(embedFile(t, emb, fmt.Sprintf("/dup/f%02d.md", i), v1, []string{dup, text(12)}))
	}
	// Near-ties: one vector perturbed by a few units in the last place in random dimensions.
	base, _ := emb.Embed(ctx, []string{"sigma tau upsilon phi"})
	for i := range 80 {
		v := append([]float32(nil), base[0]...)
		for range 3 {
			j := r.IntN(len(v))
			v[j] = math.Nextafter32(v[j], float32(r.IntN(3)-1))
		}
		put(indexdriver.IndexedFile{Path: fmt.Sprintf("/near/f%02d.md", i), FileUpdatedAt: v1, EmbeddingModel: emb.Model(),
			Chunks: []indexdriver.IndexedChunk{{Chunk: indexdriver.Chunk{Text: "near"}, Vector: v}}})
	}

	vec := func(s string) []float32 { v, _ := emb.Embed(ctx, []string{s}); return v[0] }
	excl := map[string]bool{"/dup/f00.md": true, "/dup/f03.md": true, "/d1/f001.md": true, "/near/f07.md": true, "/missing": true}
	tests := []struct {
		name string
		q    indexdriver.SemanticQuery
	}{
		{"sparse query", indexdriver.SemanticQuery{Vector: vec("gamma delta"), TopK: 30}},
		{"dense query", indexdriver.SemanticQuery{Vector: vec(text(200)), TopK: 30}},
		{"top 1", indexdriver.SemanticQuery{Vector: vec("omega psi"), TopK: 1}},
		{"more than all", indexdriver.SemanticQuery{Vector: vec("omega psi"), TopK: 5000}},
		{"exact ties", indexdriver.SemanticQuery{Vector: vec(dup), TopK: 25}},
		{"exact ties excluded", indexdriver.SemanticQuery{Vector: vec(dup), TopK: 25, ExcludePaths: excl}},
		{"near ties", indexdriver.SemanticQuery{Vector: vec("sigma tau upsilon phi"), TopK: 30}},
		{"near ties excluded", indexdriver.SemanticQuery{Vector: vec("sigma tau upsilon phi"), TopK: 12, ExcludePaths: excl}},
		{"prefix", indexdriver.SemanticQuery{Vector: vec("beta"), TopK: 30, PathPrefix: "/d2/"}},
		{"prefix and exclude", indexdriver.SemanticQuery{Vector: vec("kappa"), TopK: 30, PathPrefix: "/d", ExcludePaths: excl}},
		{"prefix matching nothing", indexdriver.SemanticQuery{Vector: vec("kappa"), TopK: 30, PathPrefix: "/zzz"}},
		{"zero vector", indexdriver.SemanticQuery{Vector: make([]float32, 64), TopK: 30}},
		{"other model", indexdriver.SemanticQuery{Vector: func() []float32 { v, _ := other.Embed(ctx, []string{"tau"}); return v[0] }(), Model: other.Model(), TopK: 30}},
		{"unknown model", indexdriver.SemanticQuery{Vector: vec("tau"), Model: "nope", TopK: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.q.Model == "" {
				tt.q.Model = emb.Model()
			}
			got, err := ix.Semantic(ctx, scope, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			want := exactSemantic(t, ix, scope, tt.q)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })); diff != "" {
				t.Errorf("differs from the exact scan (-want +got):\n%s", diff)
			}
		})
	}

	// Huge values: the rounding bound is unusable, so every chunk is scored exactly.
	huge := make([]float32, 64)
	for j := range huge {
		huge[j] = 1e19
	}
	put(indexdriver.IndexedFile{Path: "/huge.md", FileUpdatedAt: v1, EmbeddingModel: emb.Model(),
		Chunks: []indexdriver.IndexedChunk{{Chunk: indexdriver.Chunk{Text: "huge"}, Vector: huge}}})
	q := indexdriver.SemanticQuery{Vector: vec("alpha"), Model: emb.Model(), TopK: 10}
	got, err := ix.Semantic(ctx, scope, q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exactSemantic(t, ix, scope, q), got); diff != "" {
		t.Errorf("with a huge vector stored, differs from the exact scan (-want +got):\n%s", diff)
	}
}

// TestSemanticConcurrentWithWrites runs queries while files are replaced and deleted, so the
// race detector sees the tiles, bitsets and scratch buffers shared between them.
func TestSemanticConcurrentWithWrites(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := New()
	emb := search.NewHashingEmbedder(32)
	done := make(chan struct{})
	errs := make(chan error, 8)
	go func() {
		defer close(done)
		for i := range 400 {
			f := embedFile(t, emb, fmt.Sprintf("/f%02d", i%50), time.Unix(int64(i), 0), []string{fmt.Sprintf("word%d other", i), "more text"})
			if err := ix.ReplaceFile(ctx, scope, f); err != nil {
				errs <- err
				return
			}
			if i%5 == 0 {
				_ = ix.DeleteFile(ctx, scope, fmt.Sprintf("/f%02d", (i+25)%50), time.Unix(int64(i), 0))
			}
		}
	}()
	q, _ := emb.Embed(ctx, []string{"word7 text"})
	for w := range 6 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := ix.Semantic(ctx, scope, indexdriver.SemanticQuery{Vector: q[0], Model: emb.Model(), TopK: 5 + w, PathPrefix: []string{"", "/f1"}[w%2]}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSemanticSmallStores queries after every insert while a store grows through each tile
// size (8, 32, 128, 512, 1024 rows), with a filter that excludes every third file, and checks
// that a one-chunk store allocates one 8-row tile.
func TestSemanticSmallStores(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := New()
	emb := search.NewHashingEmbedder(16)
	q, _ := emb.Embed(ctx, []string{"w3 w5"})
	exclude := map[string]bool{}
	for i := range 2100 {
		path := fmt.Sprintf("/f%04d", i)
		if i%3 == 0 {
			exclude[path] = true
		}
		if err := ix.ReplaceFile(ctx, scope, embedFile(t, emb, path, time.Unix(1, 0), []string{fmt.Sprintf("w%d w%d", i%7, i%11)})); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			vs := ix.get(scope).vectors[vectorKey{emb.Model(), 16}]
			if !vs.exact() && (vs.rows != 8 || len(vs.tiles) != 1 || len(vs.tiles[0]) != 8*16) {
				t.Fatalf("one chunk: %d tiles of %d rows, want one tile of 8 rows", len(vs.tiles), vs.rows)
			}
		}
		if i > 40 && i%97 != 0 && i != 2099 {
			continue
		}
		for _, sq := range []indexdriver.SemanticQuery{
			{Vector: q[0], Model: emb.Model(), TopK: 7},
			{Vector: q[0], Model: emb.Model(), TopK: 7, ExcludePaths: exclude},
			{Vector: q[0], Model: emb.Model(), TopK: 3, PathPrefix: "/f00"},
		} {
			got, err := ix.Semantic(ctx, scope, sq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(exactSemantic(t, ix, scope, sq), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("after %d files (%d-row tiles): differs from the exact scan (-want +got):\n%s", i+1, ix.get(scope).vectors[vectorKey{emb.Model(), 16}].rows, diff)
			}
		}
	}
}

// TestVectorStoreFreedWithItsModel re-embeds a project with another model and checks that the
// old model's tiles are released and that semantic search sees only the new model.
func TestVectorStoreFreedWithItsModel(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := New()
	oldEmb, newEmb := search.NewHashingEmbedder(16), search.NewHashingEmbedder(24)
	for i := range 50 {
		if err := ix.ReplaceFile(ctx, scope, embedFile(t, oldEmb, fmt.Sprintf("/f%02d", i), time.Unix(1, 0), []string{"a b", "c d"})); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		if err := ix.ReplaceFile(ctx, scope, embedFile(t, newEmb, fmt.Sprintf("/f%02d", i), time.Unix(2, 0), []string{"a b", "c d"})); err != nil {
			t.Fatal(err)
		}
	}
	var keys []vectorKey
	for k, vs := range ix.get(scope).vectors {
		keys = append(keys, k)
		if vs.count != 100 {
			t.Errorf("%v holds %d vectors, want 100", k, vs.count)
		}
	}
	if diff := cmp.Diff([]vectorKey{{newEmb.Model(), 24}}, keys, cmp.AllowUnexported(vectorKey{})); diff != "" {
		t.Errorf("vector stores after re-embedding (-want +got):\n%s", diff)
	}
	q, _ := oldEmb.Embed(ctx, []string{"a b"})
	if got, _ := ix.Semantic(ctx, scope, indexdriver.SemanticQuery{Vector: q[0], Model: oldEmb.Model(), TopK: 5}); len(got) != 0 {
		t.Errorf("old model still answers: %v", got)
	}
}

// TestParallelSemanticScanMatchesReference fills a project past parallelScanChunks so the vector
// scan is split across goroutines, and compares the top results with a sequential reference.
func TestParallelSemanticScanMatchesReference(t *testing.T) {
	ix := New()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	emb := search.NewHashingEmbedder(16)
	const files, perFile = 1700, 10
	type ref struct {
		path  string
		index int
		score float64
	}
	var all []ref
	for f := range files {
		doc := indexdriver.IndexedFile{Path: fmt.Sprintf("/f%04d", f), FileUpdatedAt: time.Unix(1, 0), EmbeddingModel: emb.Model()}
		for c := range perFile {
			text := fmt.Sprintf("word%d token%d item%d", f%37, c, (f*c)%11)
			v, _ := emb.Embed(context.Background(), []string{text})
			doc.Chunks = append(doc.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: c, Text: text}, Vector: v[0]})
		}
		if err := ix.ReplaceFile(context.Background(), scope, doc); err != nil {
			t.Fatal(err)
		}
	}
	if files*perFile < parallelScanChunks {
		t.Fatal("fixture too small to take the parallel path")
	}
	q, _ := emb.Embed(context.Background(), []string{"word5 token3"})
	for f := range files {
		chunks, _ := ix.Chunks(context.Background(), scope, fmt.Sprintf("/f%04d", f))
		for _, c := range chunks {
			all = append(all, ref{c.Path, c.Index, float64(indexdriver.Dot(c.Vector, q[0]))})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].path != all[j].path {
			return all[i].path < all[j].path
		}
		return all[i].index < all[j].index
	})
	got, err := ix.Semantic(context.Background(), scope, indexdriver.SemanticQuery{Vector: q[0], Model: emb.Model(), TopK: 25})
	if err != nil {
		t.Fatal(err)
	}
	var gotRefs []ref
	for _, c := range got {
		gotRefs = append(gotRefs, ref{c.Path, c.Chunk.Index, c.Score})
	}
	if diff := cmp.Diff(all[:25], gotRefs, cmp.AllowUnexported(ref{})); diff != "" {
		t.Errorf("parallel scan differs from the reference (-want +got):\n%s", diff)
	}
}
