package fileio_test

import (
	"context"
	"fmt"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

// A checkpoint before an agent's turn: Changes shows what the turn did, Rewind undoes it in one
// transaction, and a checkpoint taken before the rewind would undo the rewind.
func ExampleService_Rewind() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	write := func(path, content string) {
		svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: path, Content: content, Mode: fileio.ModeTruncate})
	}
	write("/plan.md", "step 1\n")
	write("/old.md", "notes\n")
	cp, _ := svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: "demo", Label: "before the turn"})
	fmt.Println("checkpoint", cp.ID, "at position", cp.Position)

	// The agent's turn.
	write("/plan.md", "step 2\n")
	svc.Rename(ctx, fileio.RenameRequest{Project: "demo", From: "/old.md", To: "/archive/old.md", Overwrite: false})
	write("/scratch.md", "tmp\n")

	changes, _ := svc.Changes(ctx, fileio.ChangesRequest{Project: "demo", Since: cp.ID})
	for _, c := range changes.Changes {
		fmt.Println(c.Kind, c.From, c.Path)
	}
	res, _ := svc.Rewind(ctx, fileio.RewindRequest{Project: "demo", Checkpoint: cp.ID})
	fmt.Println("rewound", res.Total, "files")
	r, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/plan.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	fmt.Printf("%q\n", r.Content)
	// Output:
	// checkpoint 1 at position 2
	// renamed /old.md /archive/old.md
	// modified  /plan.md
	// added  /scratch.md
	// rewound 3 files
	// "step 1\n"
}

// A follower of the change feed: each call passes the previous NextAfter and waits up to a
// while for the next change, so it sees every change once, in commit order.
func ExampleService_Events() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/a.md", Content: "a\n"})
	svc.Delete(ctx, fileio.DeleteRequest{Project: "demo", Path: "/a.md", Recursive: false})

	res, _ := svc.Events(ctx, fileio.EventsRequest{Project: "demo", After: 0, Wait: time.Second})
	for _, e := range res.Events {
		fmt.Println(e.Position, e.Kind, e.Path, e.Version)
	}
	fmt.Println("next after", res.NextAfter)
	// Output:
	// 1 created /a.md 1
	// 2 deleted /a.md 1
	// next after 2
}
