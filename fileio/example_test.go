package fileio_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func ExampleService() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{}) // DefaultConfig
	if err != nil {
		panic(err)
	}
	// Adapters authenticate the caller and put the identity into the context.
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))

	w, _ := svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- buy milk\n"})
	fmt.Println("written:", w.BytesWritten, "created:", w.Created)
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- call Bob\n"}) // APPEND

	r, _ := svc.Read(ctx, "demo", "/notes/todo.md", 0, fileio.ReadToEOF)
	fmt.Printf("read: %q\n", r.Content)

	l, _ := svc.List(ctx, "demo", "", 2, 0)
	for _, e := range l.Entries {
		fmt.Println(e.Type, e.Path, e.SizeBytes)
	}

	_, err = svc.Read(ctx, "demo", "/missing.md", 0, fileio.ReadToEOF)
	fmt.Println(agentfiles.ErrorCode(err), errors.Is(err, agentfiles.ErrNotFound))
	// Output:
	// written: 11 created: true
	// read: "- buy milk\n- call Bob\n"
	// DIRECTORY /notes 0
	// FILE /notes/todo.md 22
	// NOT_FOUND true
}
