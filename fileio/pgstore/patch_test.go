package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// killingStore terminates the database backend of its write transaction just before the
// transaction's Put number killAt (0-based), so that a Service call dies in the middle.
type killingStore struct {
	driver.Store
	killAt int
	kill   func()
}

func (k *killingStore) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	return k.Store.Update(ctx, scope, opts, func(tx driver.WriteTx) error { return fn(&killingTx{WriteTx: tx, k: k}) })
}

type killingTx struct {
	driver.WriteTx
	k    *killingStore
	puts int
}

func (t *killingTx) Put(ctx context.Context, path string, content []byte, opts driver.PutOptions) (driver.FileInfo, error) {
	if t.puts == t.k.killAt {
		t.k.kill()
	}
	t.puts++
	return t.WriteTx.Put(ctx, path, content, opts)
}

// TestApplyPatchConnectionKilled: the server terminates the backend of an ApplyPatch in the
// middle of its writes (after one file, after three); no file of the patch changes, and the
// same patch applies whole afterwards.
func TestApplyPatchConnectionKilled(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("kill-key", "kill"))
	plain := storetest.NewService(t, s)
	before := map[string]string{}
	var sb strings.Builder
	sb.WriteString("*** Begin Patch\n")
	for i := range 5 {
		path := fmt.Sprintf("/src/f%d.go", i)
		before[path] = fmt.Sprintf("package src\n\nconst N%d = %d\n", i, i)
		if _, err := plain.Write(ctx, fileio.WriteRequest{Project: "p", Path: path, Content: before[path], Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "*** Update File: src/f%d.go\n@@\n-const N%d = %d\n+const N%d = %d\n", i, i, i, i, i*10)
	}
	sb.WriteString("*** Add File: src/new.go\n+package src\n*** End Patch\n")
	text := sb.String()
	read := func() map[string]string { return storetest.ReadProject(t, ctx, plain, "p") }
	for _, killAt := range []int{1, 3, 5} {
		t.Run(fmt.Sprintf("killed before write %d", killAt), func(t *testing.T) {
			ks := &killingStore{Store: s, killAt: killAt, kill: func() {
				_, err := s.Pool().Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_locks
					WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`)
				if err != nil {
					t.Fatal(err)
				}
			}}
			_, err := storetest.NewService(t, ks).ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: "p", Patch: text})
			if code := agentfiles.ErrorCode(err); code != agentfiles.CodeUnavailable {
				t.Errorf("patch on a killed connection: %v, want UNAVAILABLE", err)
			}
			if diff := cmp.Diff(before, read()); diff != "" {
				t.Errorf("files after the killed patch (-want +got):\n%s", diff)
			}
		})
	}
	res, err := plain.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: "p", Patch: text})
	if err != nil || len(res.Files) != 6 {
		t.Fatalf("the patch after the killed ones: %+v, %v", res, err)
	}
	if got := read(); got["/src/f4.go"] != "package src\n\nconst N4 = 40\n" || got["/src/new.go"] != "package src\n" {
		t.Errorf("files after the patch: %q", got)
	}
}
