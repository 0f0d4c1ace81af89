package pgindex_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// ExampleIndex_Reembed switches a database to another embedder, as an operator's one-off
// command would: open the index without an embedder (New never refuses that), re-embed, reading
// the chunks' text from the file store, then restart the servers with the new embedder in
// pgindex.Options.Embedder. It needs a PostgreSQL database, so it is compiled but not run by go
// test.
func ExampleIndex_Reembed() {
	ctx := context.Background()
	index, err := pgindex.Open(ctx, os.Getenv("DATABASE_URL"), pgindex.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer index.Close()
	store, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"), pgstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	st, err := index.Reembed(ctx, search.NewHashingEmbedder(512), pgindex.ReembedOptions{Content: pgindex.StoreContent(store)})
	if err != nil {
		log.Fatal(err) // run it again to resume
	}
	fmt.Printf("from %v to %v: %d vectors dropped, %d files (%d chunks) embedded, %d pending\n",
		st.From, st.To, st.DroppedVectors, st.Files, st.Chunks, st.Pending)
}
