package search_test

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// A complete in-memory stack: a fileio Service, the indexer and the searcher.
func Example() {
	store := memstore.New()
	svc, _ := fileio.NewService(store, fileio.DefaultConfig())
	idx := memindex.New()
	emb := search.NewHashingEmbedder(0)
	indexer, _ := search.NewIndexer(search.IndexerConfig{Store: store, Index: idx, Embedder: emb})
	searcher, _ := search.NewSearcher(search.SearcherConfig{Store: store, Index: idx, Embedder: emb})

	ctx := fileio.WithAuth(context.Background(), fileio.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/docs/retry.md",
		Content: "Retries use exponential backoff.\n\nEach failure doubles the delay."})
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/docs/auth.md",
		Content: "Requests carry a bearer token."})

	// In a server, indexer.Start(ctx) runs workers; here one batch is processed inline.
	indexer.ProcessBatch(context.Background())

	res, _ := searcher.Search(ctx, search.Query{Project: "demo", Query: "backoff delay", Limit: 1})
	h := res.Hits[0]
	fmt.Printf("%s [%d,%d) %q via %s\n", h.Path, h.StartByte, h.EndByte, h.Content, res.Ranking)
	// Output: /docs/retry.md [0,65) "Retries use exponential backoff.\n\nEach failure doubles the delay." via fused
}

func ExampleChunker_Split() {
	c := search.NewChunker(search.ChunkerConfig{TargetBytes: 40, OverlapBytes: -1})
	for _, ch := range c.Split("First paragraph, short.\n\nSecond paragraph is a bit longer.") {
		fmt.Printf("[%d,%d) %q\n", ch.StartByte, ch.EndByte, ch.Text)
	}
	// Output:
	// [0,25) "First paragraph, short.\n\n"
	// [25,58) "Second paragraph is a bit longer."
}

func ExampleTokenize() {
	fmt.Println(search.Tokenize("The indexer retries failed Jobs; 検索 works too."))
	// Output: [index retri fail job 検 索 work]
}

func ExampleBM25_TermScore() {
	bm := search.DefaultBM25()
	stats := search.CorpusStats{Chunks: 100, TotalTerms: 5000} // avgdl = 50
	fmt.Printf("rare term: %.3f\n", bm.TermScore(2, 50, 3, stats))
	fmt.Printf("common term: %.3f\n", bm.TermScore(2, 50, 80, stats))
	// Output:
	// rare term: 4.623
	// common term: 0.312
}

func ExampleVault() {
	v, _ := search.NewVault(search.VaultConfig{KEKs: map[string]string{"1": "a-long-random-kek-secret-value"}})
	ac := fileio.NewAuthContext("sk-caller-key", "alice")
	scope := fileio.Scope{Tenant: ac.APIKeyHash, Project: "demo"}
	ctx := context.Background()
	ref, _ := v.Seal(ctx, ac, scope, "/a.md")
	key, _ := v.Open(ctx, ref, scope, "/a.md")
	_, err := v.Open(ctx, ref, scope, "/other.md") // bound to the path
	fmt.Println(key, err != nil)
	// Output: sk-caller-key true
}
