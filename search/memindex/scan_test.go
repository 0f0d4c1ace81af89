package memindex

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/google/go-cmp/cmp"
)

// TestParallelSemanticScanMatchesReference fills a project past parallelScanChunks so the vector
// scan is split across goroutines, and compares the top results with a sequential reference.
func TestParallelSemanticScanMatchesReference(t *testing.T) {
	ix := New()
	scope := fileio.Scope{Tenant: "t", Project: "p"}
	emb := search.NewHashingEmbedder(16)
	const files, perFile = 1700, 10
	type ref struct {
		path  string
		index int
		score float64
	}
	var all []ref
	for f := range files {
		doc := search.IndexedFile{Path: fmt.Sprintf("/f%04d", f), FileUpdatedAt: time.Unix(1, 0), EmbeddingModel: emb.Model()}
		for c := range perFile {
			text := fmt.Sprintf("word%d token%d item%d", f%37, c, (f*c)%11)
			v, _ := emb.Embed(context.Background(), []string{text})
			doc.Chunks = append(doc.Chunks, search.IndexedChunk{Chunk: search.Chunk{Index: c, Text: text}, Vector: v[0]})
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
			all = append(all, ref{c.Path, c.Index, float64(search.Dot(c.Vector, q[0]))})
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
	got, err := ix.Semantic(context.Background(), scope, search.SemanticQuery{Vector: q[0], Model: emb.Model(), TopK: 25})
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
