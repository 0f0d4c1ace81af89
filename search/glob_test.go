package search_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/google/go-cmp/cmp"
)

// TestSearchGlob: a query's glob keeps only files whose path matches, as file_grep's glob does,
// for indexed files and for files the index has not caught up with; a bad glob is
// INVALID_ARGUMENT.
func TestSearchGlob(t *testing.T) {
	store := memstore.New(memstore.Options{})
	svc, _ := fileio.NewService(store, fileio.Options{})
	idx := memindex.New()
	emb := search.NewHashingEmbedder(0)
	indexer, _ := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb})
	searcher, _ := search.NewSearcher(store, idx, search.SearcherOptions{Embedder: emb})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-glob", "glob"))
	for _, p := range []string{"/docs/retry.md", "/docs/deep/retry.md", "/src/retry.go", "/retry.txt"} {
		svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: p, Content: "Retries use exponential backoff."})
	}
	indexer.ProcessBatch(context.Background())
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/docs/pending.md", Content: "Backoff is not indexed yet."})
	tests := []struct {
		glob string
		want []string
	}{
		{"", []string{"/docs/deep/retry.md", "/docs/pending.md", "/docs/retry.md", "/retry.txt", "/src/retry.go"}},
		{"*.md", []string{"/docs/deep/retry.md", "/docs/pending.md", "/docs/retry.md"}},
		{"docs/*.md", []string{"/docs/pending.md", "/docs/retry.md"}},
		{"**/*.{go,txt}", []string{"/retry.txt", "/src/retry.go"}},
		{"*.rst", []string{}},
	}
	for _, tc := range tests {
		res, err := searcher.Search(ctx, search.Query{Project: "demo", Query: "backoff", Glob: tc.glob, Limit: 20})
		if err != nil {
			t.Fatalf("glob %q: %v", tc.glob, err)
		}
		got := map[string]bool{}
		for _, h := range res.Hits {
			got[h.Path] = true
		}
		want := map[string]bool{}
		for _, p := range tc.want {
			want[p] = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("glob %q: paths (-want +got):\n%s", tc.glob, diff)
		}
	}
	_, err := searcher.Search(ctx, search.Query{Project: "demo", Query: "backoff", Glob: "[a"})
	if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidPattern {
		t.Errorf("bad glob: %v, want INVALID_PATTERN", err)
	}
}
