package pgindex_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// Example wires the production stack: files in fileio/pgstore, the index in pgindex, an
// Indexer consuming the outbox (run it in as many processes as you like) and a Searcher. It
// needs a PostgreSQL database, so it is compiled but not run by go test.
func Example() {
	ctx := context.Background()
	url := os.Getenv("DATABASE_URL") // e.g. postgres://user:pass@localhost:5432/app
	store, err := pgstore.Open(ctx, url, pgstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// The index records the embedder its vectors come from and refuses another one.
	embedder := search.NewHashingEmbedder(0)
	index, err := pgindex.Open(ctx, url, pgindex.Options{Embedder: pgindex.IdentityOf(embedder)})
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()

	svc, err := fileio.NewService(store, fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	indexer, err := search.NewIndexer(store, index, search.IndexerOptions{Embedder: embedder})
	if err != nil {
		log.Fatal(err)
	}
	indexer.Start(ctx)
	defer indexer.Stop(ctx)
	searcher, err := search.NewSearcher(store, index, search.SearcherOptions{Embedder: embedder})
	if err != nil {
		log.Fatal(err)
	}

	ctx = agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("sk-caller-key", "alice"))
	_, err = svc.Write(ctx, fileio.WriteRequest{Project: "notes", Path: "/retry.md",
		Content: "Retries use exponential backoff with jitter.", Mode: fileio.ModeTruncate})
	if err != nil {
		log.Fatal(err)
	}
	// The file is searchable at once: until the Indexer has caught up, the Searcher scans it at
	// query time (Hit.Source "scan"); afterwards the hit comes from the index ("index").
	res, err := searcher.Search(ctx, search.Query{Project: "notes", Query: "backoff"})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range res.Hits {
		fmt.Printf("%s [%d,%d) %s\n", h.Path, h.StartByte, h.EndByte, h.Source)
	}
}

// ExampleIndex_Merge is an operator's maintenance step: the Index merges in the background as
// writes come in, and Merge merges a project at once (every pending file, dead chunks dropped),
// for example before measuring its size. It needs a PostgreSQL database, so it is compiled but
// not run by go test.
func ExampleIndex_Merge() {
	ctx := context.Background()
	index, err := pgindex.Open(ctx, os.Getenv("DATABASE_URL"), pgindex.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()
	tenant := agentfiles.NewAuthContext("sk-caller-key", "alice").APIKeyHash
	if err := index.Merge(ctx, driver.Scope{Tenant: tenant, Project: "notes"}); err != nil {
		log.Fatal(err)
	}
}

// ExampleIndex_BackfillCodes stores, from an operator's command, the int8 codes of the vectors
// written before schema version 7 (New also does it in the background), so that queries past the
// vector cache stream the codes rather than the floats. It needs a PostgreSQL database, so it is
// compiled but not run by go test.
func ExampleIndex_BackfillCodes() {
	ctx := context.Background()
	index, err := pgindex.Open(ctx, os.Getenv("DATABASE_URL"), pgindex.Options{VectorCacheBytes: -1})
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()
	coded, err := index.BackfillCodes(ctx)
	if err != nil {
		log.Fatal(err) // resumable: the files coded so far stay coded
	}
	fmt.Println("files coded:", coded)
}
