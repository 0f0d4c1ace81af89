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
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestChurnMatchesFreshIndex replaces and deletes files long enough for freed slots to be
// purged and reused many times, then checks that the index answers exactly as one built from
// the surviving files alone (Lexical with its statistics and document frequencies, ScoreChunks,
// Chunks), with a few frequencies too large for packed postings, and that its posting lists are
// consistent: no posting names a free slot, each list's dead count is its number of postings of
// freed slots, and term IDs map back to their lists.
func TestChurnMatchesFreshIndex(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	r := rand.New(rand.NewPCG(9, 10))
	emb := search.NewHashingEmbedder(16)
	doc := func(path string, v int) indexdriver.IndexedFile {
		f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: time.Unix(int64(v), 0), Tokenizer: indexdriver.TokenizerName, EmbeddingModel: emb.Model()}
		for i := range 1 + r.IntN(6) {
			text := ""
			for range 3 + r.IntN(12) {
				text += fmt.Sprintf("w%d ", int(math.Pow(2, 9*r.Float64())))
			}
			terms, n := indexdriver.TermCounts(text)
			if r.IntN(50) == 0 { // a frequency too large for a packed posting: the list widens
				terms["w2"] = 256 + r.IntN(100)
				n += terms["w2"]
			}
			vec, _ := emb.Embed(ctx, []string{text})
			f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, Text: text}, Terms: terms, ChunkTerms: n, Vector: vec[0]})
		}
		return f
	}
	churned := New()
	final := map[string]indexdriver.IndexedFile{}
	for v := 1; v <= 6000; v++ {
		path := fmt.Sprintf("/f%03d", r.IntN(300))
		if r.IntN(4) == 0 {
			if err := churned.DeleteFile(ctx, scope, path, time.Unix(int64(v), 0)); err != nil {
				t.Fatal(err)
			}
			delete(final, path)
			continue
		}
		f := doc(path, v)
		if err := churned.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
		final[path] = f
	}
	fresh := New()
	for _, f := range final {
		if err := fresh.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}

	p := churned.get(scope)
	if int64(len(p.slots)) > 2*fresh.get(scope).stats.Chunks+512 {
		t.Errorf("%d slots for %d chunks: freed slots are not reused", len(p.slots), p.stats.Chunks)
	}
	if pl := p.postings["w2"]; pl == nil || pl.wide == nil {
		t.Error("no posting list was widened")
	}
	for term, pl := range p.postings {
		if pl.term != term || p.termList[pl.id] != pl {
			t.Fatalf("term %q: list names %q, ID %d", term, pl.term, pl.id)
		}
		dead := 0
		for e := range pl.all() {
			if p.meta[e.slot].chunkTerms < 0 {
				dead++
			} else if p.slots[e.slot].file == nil {
				t.Fatalf("term %q: a live posting names empty slot %d", term, e.slot)
			}
		}
		if dead != pl.dead {
			t.Fatalf("term %q: %d dead postings, counted %d", term, dead, pl.dead)
		}
	}
	for _, pl := range p.postings {
		for e := range pl.all() {
			for _, id := range p.free {
				if e.slot == id {
					t.Fatalf("a posting of %q names free slot %d", pl.term, id)
				}
			}
		}
	}

	opts := []cmp.Option{cmpopts.EquateEmpty()}
	for _, terms := range [][]string{{"w1"}, {"w2", "w300", "w17"}, {"w5", "nope"}, {"w64", "w128", "w3", "w1"}} {
		for _, prefix := range []string{"", "/f1"} {
			q := indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), PathPrefix: prefix, TopK: 40}
			want, err := fresh.Lexical(ctx, scope, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := churned.Lexical(ctx, scope, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, opts...); diff != "" {
				t.Errorf("Lexical %v %q after churn (-fresh +churned):\n%s", terms, prefix, diff)
			}
			var refs []indexdriver.ChunkRef
			for path, f := range final {
				for i := range f.Chunks {
					refs = append(refs, indexdriver.ChunkRef{Path: path, FileUpdatedAt: f.FileUpdatedAt, ChunkIndex: i})
				}
			}
			vec, _ := emb.Embed(ctx, []string{"w1 w2 w3"})
			sq := indexdriver.ScoreQuery{Chunks: refs, Terms: terms, DocFreq: want.DocFreq, Stats: want.Stats, BM25: q.BM25, Vector: vec[0], Model: emb.Model()}
			ws, _ := fresh.ScoreChunks(ctx, scope, sq)
			gs, _ := churned.ScoreChunks(ctx, scope, sq)
			if diff := cmp.Diff(ws, gs); diff != "" {
				t.Errorf("ScoreChunks %v after churn (-fresh +churned):\n%s", terms, diff)
			}
		}
	}
	for path := range final {
		want, _ := fresh.Chunks(ctx, scope, path)
		got, _ := churned.Chunks(ctx, scope, path)
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Fatalf("Chunks(%s) after churn (-fresh +churned):\n%s", path, diff)
		}
	}
}
