package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
)

// Example serves the FileIO operations from PostgreSQL. Every process that opens the same
// database shares the files; writes to one project are serialised across all of them.
// (It needs a database, so it has no checked output.)
func Example() {
	ctx := context.Background()
	cfg := fileio.DefaultConfig()
	store, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"), pgstore.Options{
		LockTimeout:     cfg.LockTimeout,     // settings.mcp.files.lock_timeout_ms
		DeleteRetention: cfg.DeleteRetention, // purge soft-deleted rows in the background
	})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	svc, err := fileio.NewService(store, cfg)
	if err != nil {
		log.Fatal(err)
	}
	// The adapters put the caller's identity into the context; here we do it by hand.
	ctx = fileio.WithAuth(ctx, fileio.NewAuthContext("api-key-of-the-caller", "alice"))
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- ship it\n"}); err != nil {
		log.Fatal(err)
	}
	res, err := svc.Read(ctx, "demo", "/notes/todo.md", 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content)
}
