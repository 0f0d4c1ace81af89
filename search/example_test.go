package search_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// A complete in-memory stack: a fileio Service, the indexer and the searcher.
func Example() {
	store := memstore.New(memstore.Options{})
	svc, _ := fileio.NewService(store, fileio.Options{})
	idx := memindex.New()
	emb := search.NewHashingEmbedder(0)
	indexer, _ := search.NewIndexer(store, idx, search.IndexerOptions{Embedder: emb})
	searcher, _ := search.NewSearcher(store, idx, search.SearcherOptions{Embedder: emb})

	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
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
	c := search.NewChunker(search.ChunkerOptions{TargetBytes: 40, OverlapBytes: -1})
	for _, ch := range c.Split("First paragraph, short.\n\nSecond paragraph is a bit longer.") {
		fmt.Printf("[%d,%d) %q\n", ch.StartByte, ch.EndByte, ch.Text)
	}
	// Output:
	// [0,25) "First paragraph, short.\n\n"
	// [25,58) "Second paragraph is a bit longer."
}

func ExampleTokenize() {
	fmt.Println(indexdriver.Tokenize("The indexer retries failed Jobs; 検索 works too."))
	// Output: [index retri fail job 検 索 work]
}

func ExampleBM25_TermScore() {
	bm := indexdriver.DefaultBM25()
	stats := indexdriver.CorpusStats{Chunks: 100, TotalTerms: 5000} // avgdl = 50
	fmt.Printf("rare term: %.3f\n", bm.TermScore(2, 50, 3, stats))
	fmt.Printf("common term: %.3f\n", bm.TermScore(2, 50, 80, stats))
	// Output:
	// rare term: 4.623
	// common term: 0.312
}

// The settings of the service configuration file reach the Searcher and the Indexer through the
// Config's methods; the caller adds the parts that are not in the file (embedder, logger, …).
func ExampleConfig() {
	cfg, err := search.LoadConfig(strings.NewReader(`
settings:
  mcp:
    files:
      search: {limit_default: 3, fallback: {method: rrf}}
      index: {workers: 4, chunk_target_bytes: 800}
`))
	if err != nil {
		panic(err)
	}
	store, idx := memstore.New(memstore.Options{}), memindex.New()
	opts := cfg.SearcherOptions()
	opts.Embedder = search.NewHashingEmbedder(0)
	searcher, _ := search.NewSearcher(store, idx, opts)
	indexer, _ := search.NewIndexer(store, idx, cfg.IndexerOptions())
	defer indexer.Stop(context.Background())

	o := searcher.Options()
	fmt.Println(o.LimitDefault, o.LimitMax, o.FuseMethod, o.Chunker.Options().TargetBytes)
	// Output: 3 20 rrf 800
}
