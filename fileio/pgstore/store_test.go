package pgstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

func TestPutGetStatListProjectBytes(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	first := put(t, s, testScope, "/a/b.txt", "hello")
	if !first.CreatedAt.Equal(first.UpdatedAt) {
		t.Errorf("new file: CreatedAt %v != UpdatedAt %v", first.CreatedAt, first.UpdatedAt)
	}
	second := put(t, s, testScope, "/a/b.txt", "hello, world")
	if !second.CreatedAt.Equal(first.CreatedAt) || !second.UpdatedAt.After(first.UpdatedAt) {
		t.Errorf("replace: got created %v updated %v after created %v updated %v; want CreatedAt kept and UpdatedAt later",
			second.CreatedAt, second.UpdatedAt, first.CreatedAt, first.UpdatedAt)
	}
	put(t, s, testScope, "/a/c.txt", "")
	put(t, s, testScope, "/ab", "xy")
	put(t, s, testScope, "/z/\u00e9t\u00e9", "é")

	f, err := get(t, s, testScope, "/a/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := driver.File{FileInfo: second, Content: []byte("hello, world")}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if _, err := get(t, s, testScope, "/missing"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("Get missing: err = %v, want NOT_FOUND", err)
	}
	empty, err := get(t, s, testScope, "/a/c.txt")
	if err != nil || empty.Content == nil || len(empty.Content) != 0 {
		t.Errorf("Get empty file = %#v, %v; want non-nil empty content", empty.Content, err)
	}

	for _, tc := range []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"", 0, []string{"/a/b.txt", "/a/c.txt", "/ab", "/z/\u00e9t\u00e9"}},
		{"/a", 0, []string{"/a/b.txt", "/a/c.txt", "/ab"}},
		{"/a/", 0, []string{"/a/b.txt", "/a/c.txt"}},
		{"/a/", 1, []string{"/a/b.txt"}},
		{"/z/\u00e9", 0, []string{"/z/\u00e9t\u00e9"}},
		{"/nothing", 0, nil},
	} {
		if diff := cmp.Diff(tc.want, list(t, s, testScope, tc.prefix, tc.limit)); diff != "" {
			t.Errorf("List(%q, %d) (-want +got):\n%s", tc.prefix, tc.limit, diff)
		}
	}

	var total int64
	var stat driver.FileInfo
	var found bool
	err = s.View(ctx, testScope, func(tx driver.ReadTx) error {
		var err error
		if total, err = tx.ProjectBytes(ctx); err != nil {
			return err
		}
		stat, found, err = tx.Stat(ctx, "/ab")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len("hello, world") + 0 + 2 + len("é")); total != want {
		t.Errorf("ProjectBytes = %d, want %d", total, want)
	}
	if !found || stat.SizeBytes != 2 || stat.Path != "/ab" {
		t.Errorf("Stat(/ab) = %+v, %v", stat, found)
	}
}

func TestUpdateErrorRollsBackEverything(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/keep", "kept")
	storetest.CompleteJobs(t, s)
	boom := errors.New("boom")
	err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		if _, err := tx.Put(ctx, "/new", []byte("new"), driver.PutOptions{}); err != nil {
			return err
		}
		if err := tx.Delete(ctx, "/keep"); err != nil {
			return err
		}
		// Read-your-writes inside the transaction.
		if _, err := tx.Get(ctx, "/new"); err != nil {
			return err
		}
		if _, found, _ := tx.Stat(ctx, "/keep"); found {
			t.Error("deleted file still visible inside its transaction")
		}
		return boom
	})
	if err != boom {
		t.Fatalf("Update returned %v, want the callback's error", err)
	}
	if diff := cmp.Diff([]string{"/keep"}, list(t, s, testScope, "", 0)); diff != "" {
		t.Errorf("after rollback (-want +got):\n%s", diff)
	}
	if n, _ := s.PendingJobs(ctx); n != 0 {
		t.Errorf("PendingJobs after rollback = %d, want 0", n)
	}
	var total int64
	s.View(ctx, testScope, func(tx driver.ReadTx) error { total, err = tx.ProjectBytes(ctx); return err })
	if total != 4 {
		t.Errorf("ProjectBytes after rollback = %d, want 4", total)
	}
}

func TestSoftDeleteAndPurge(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: -1})
	ctx := context.Background()
	put(t, s, testScope, "/a", "1")
	put(t, s, testScope, "/b", "22")
	keep := driver.UpdateOptions{DeleteRetention: 24 * time.Hour}
	if err := s.Update(ctx, testScope, keep, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/a", "/missing") }); err != nil {
		t.Fatal(err)
	}
	put(t, s, testScope, "/b", "333") // replace is not a delete
	if _, err := get(t, s, testScope, "/a"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("deleted file: err = %v, want NOT_FOUND", err)
	}
	var deleted int
	s.Pool().QueryRow(ctx, "SELECT count(*) FROM mcp_files WHERE deleted").Scan(&deleted)
	if deleted != 1 {
		t.Errorf("soft-deleted rows = %d, want 1 (the row is kept for recovery)", deleted)
	}
	var retained time.Duration
	s.Pool().QueryRow(ctx, "SELECT EXTRACT(EPOCH FROM purge_after - deleted_at)::bigint FROM mcp_files WHERE deleted").Scan(&retained)
	if retained*time.Second != keep.DeleteRetention {
		t.Errorf("purge_after - deleted_at = %ds, want the transaction's DeleteRetention %v", retained, keep.DeleteRetention)
	}
	// Within its retention.
	if n, err := s.Purge(ctx); err != nil || n != 0 {
		t.Errorf("Purge within the retention = %d, %v; want 0", n, err)
	}
	// A day later.
	s.Pool().Exec(ctx, "UPDATE mcp_files SET purge_after = purge_after - interval '1 day' WHERE deleted")
	if n, err := s.Purge(ctx); err != nil || n != 1 {
		t.Errorf("Purge after the retention = %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"/b"}, list(t, s, testScope, "", 0)); diff != "" {
		t.Errorf("after purge (-want +got):\n%s", diff)
	}
	// The file can be created again after its deletion.
	put(t, s, testScope, "/a", "again")
	if f, err := get(t, s, testScope, "/a"); err != nil || string(f.Content) != "again" {
		t.Errorf("recreated file = %q, %v", f.Content, err)
	}
}

// TestDeleteRetentionFromConfig: the delete_retention_days of a Service's Config reaches the
// store through every Update, and the background purger removes what has run out.
func TestDeleteRetentionFromConfig(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: 10 * time.Millisecond})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("retention", ""))
	for _, tc := range []struct {
		project   string
		retention time.Duration
	}{{"kept", 24 * time.Hour}, {"purged", 0}} {
		cfg := fileio.DefaultConfig()
		cfg.DeleteRetention = tc.retention
		svc, err := fileio.NewService(s, fileio.Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: tc.project, Path: "/f", Content: "x"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, fileio.DeleteRequest{Project: tc.project, Path: "/f", Recursive: false}); err != nil {
			t.Fatal(err)
		}
	}
	deletedRows := func() []string {
		rows, _ := s.Pool().Query(context.Background(), "SELECT project FROM mcp_files WHERE deleted ORDER BY project")
		projects, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		return projects
	}
	poll.Eventually(t, 30*time.Second, "the background purger removes the row without retention", func() bool {
		return slices.Equal(deletedRows(), []string{"kept"})
	})
}
