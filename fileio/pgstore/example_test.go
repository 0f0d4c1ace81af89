package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
)

// Example serves the FileIO operations from PostgreSQL. Every process that opens the same
// database shares the files; writes to one project are serialised across all of them. The
// lock timeout and the delete retention of the configuration reach the store through the
// Service, with every write. (It needs a database, so it has no checked output.)
func Example() {
	ctx := context.Background()
	cfg, err := fileio.LoadConfigFile("service.yaml") // settings.mcp.files: lock_timeout_ms, …
	if err != nil {
		log.Fatal(err)
	}
	store, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"), pgstore.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		log.Fatal(err)
	}
	// The adapters put the caller's identity into the context; here we do it by hand.
	ctx = agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("api-key-of-the-caller", "alice"))
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- ship it\n"}); err != nil {
		log.Fatal(err)
	}
	res, err := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/notes/todo.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content)
}
