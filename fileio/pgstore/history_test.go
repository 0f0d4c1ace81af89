package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
)

// TestHistoryPurge: kept versions live in mcp_file_versions until their retention runs out;
// Purge then removes them and takes their bytes off the project's quota. The history settings
// reach the trigger through each Update.
func TestHistoryPurge(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: -1})
	ctx := context.Background()
	opts := driver.UpdateOptions{HistoryVersions: 10, HistoryRetention: 24 * time.Hour, DeleteRetention: 24 * time.Hour}
	write := func(path, content string) {
		t.Helper()
		if err := s.Update(ctx, testScope, opts, func(tx driver.WriteTx) error {
			_, err := tx.Put(ctx, path, []byte(content), driver.PutOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	projectBytes := func() int64 {
		t.Helper()
		var n int64
		if err := s.View(ctx, testScope, func(tx driver.ReadTx) error {
			var err error
			n, err = tx.ProjectBytes(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write("/a", "1")
	write("/a", "22")
	write("/a", "333")
	write("/b", "4444")
	if err := s.Update(ctx, testScope, opts, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/b") }); err != nil {
		t.Fatal(err)
	}
	// Active: /a (3). Kept: /a v1 (1), v2 (2), /b v1 (4).
	if got := projectBytes(); got != 3+1+2+4 {
		t.Errorf("ProjectBytes = %d, want 10 (active and kept)", got)
	}
	var versions []int64
	s.View(ctx, testScope, func(tx driver.ReadTx) error {
		vs, err := tx.Versions(ctx, "/a")
		for _, v := range vs {
			versions = append(versions, v.Version)
		}
		return err
	})
	if diff := cmp.Diff([]int64{3, 2, 1}, versions); diff != "" {
		t.Errorf("versions of /a (-want +got):\n%s", diff)
	}
	// Within the retention nothing goes; a day later every kept version does.
	if n, err := s.Purge(ctx); err != nil || n != 0 {
		t.Errorf("Purge within the retention = %d, %v; want 0", n, err)
	}
	s.Pool().Exec(ctx, "UPDATE mcp_file_versions SET purge_after = purge_after - interval '1 day'")
	s.Pool().Exec(ctx, "UPDATE mcp_files SET purge_after = purge_after - interval '1 day' WHERE deleted")
	if n, err := s.Purge(ctx); err != nil || n != 4 {
		t.Errorf("Purge after the retention = %d, %v; want 4 (the deleted row of /b and 3 versions)", n, err)
	}
	if got := projectBytes(); got != 3 {
		t.Errorf("ProjectBytes after the purge = %d, want 3", got)
	}
	// Without history settings (a direct caller's zero UpdateOptions) nothing is kept.
	if err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/a", []byte("x"), driver.PutOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var kept int
	s.Pool().QueryRow(ctx, "SELECT count(*) FROM mcp_file_versions").Scan(&kept)
	if kept != 0 {
		t.Errorf("%d versions kept by an Update without history", kept)
	}
}

// TestHistoryRetentionFromConfig: history_versions and history_retention_days of a Service's
// Config reach the store, and the background purger removes versions past the window.
func TestHistoryRetentionFromConfig(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: 10 * time.Millisecond})
	sctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("history", ""))
	cfg := fileio.DefaultConfig()
	cfg.HistoryVersions, cfg.HistoryRetention = 3, 0 // kept versions expire at once
	svc, err := fileio.NewService(s, fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"1", "2", "3"} {
		if _, err := svc.Write(sctx, fileio.WriteRequest{Project: "p", Path: "/f", Content: c, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := svc.Versions(sctx, fileio.VersionsRequest{Project: "p", Path: "/f"})
	if err != nil || len(vs) != 1 || !vs[0].Current || vs[0].Version != 3 {
		t.Errorf("versions with a zero retention: %+v, %v; want only the current version 3", vs, err)
	}
	poll.Eventually(t, 30*time.Second, "the background purger removes the expired versions", func() bool {
		var kept int
		s.Pool().QueryRow(context.Background(), "SELECT count(*) FROM mcp_file_versions").Scan(&kept)
		return kept == 0
	})
}

// TestHistoryWriteAndTrigger: Service.Write keeps the replaced version in its own statement
// (migration 0006), Put, Delete and re-creation through the trigger of 0005. Mixed on one path
// they number the versions 1, 2, … without a gap, keep the last HistoryVersions, and
// mcp_file_history_usage stays the byte sum of the kept versions.
func TestHistoryWriteAndTrigger(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{PurgeInterval: -1})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("history-mixed", "")
	sctx := agentfiles.WithAuth(ctx, ac)
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "p"}
	cfg := fileio.DefaultConfig()
	cfg.HistoryVersions, cfg.RateLimitPerSecond = 3, 0
	svc, err := fileio.NewService(s, fileio.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	opts := driver.UpdateOptions{HistoryVersions: 3, HistoryRetention: cfg.HistoryRetention, DeleteRetention: time.Hour}
	write := func(content string) {
		t.Helper()
		if _, err := svc.Write(sctx, fileio.WriteRequest{Project: "p", Path: "/f", Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	putOrDelete := func(content string) {
		t.Helper()
		if err := s.Update(ctx, scope, opts, func(tx driver.WriteTx) error {
			if content == "" {
				return tx.Delete(ctx, "/f")
			}
			_, err := tx.Put(ctx, "/f", []byte(content), driver.PutOptions{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	type version struct {
		Version          int64
		Size             int64
		Current, Deleted bool
	}
	check := func(what string, want ...version) {
		t.Helper()
		vs, err := svc.Versions(sctx, fileio.VersionsRequest{Project: "p", Path: "/f"})
		if err != nil {
			t.Fatal(err)
		}
		var got []version
		for _, v := range vs {
			got = append(got, version{v.Version, v.SizeBytes, v.Current, v.Deleted})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("versions after %s (-want +got):\n%s", what, diff)
		}
		var usage, sum int64
		s.Pool().QueryRow(ctx, "SELECT COALESCE(sum(size_bytes), 0) FROM mcp_file_history_usage WHERE apikey_hash = $1", ac.APIKeyHash).Scan(&usage)
		s.Pool().QueryRow(ctx, "SELECT COALESCE(sum(size), 0) FROM mcp_file_versions WHERE apikey_hash = $1", ac.APIKeyHash).Scan(&sum)
		if usage != sum {
			t.Errorf("after %s: history usage %d bytes, kept versions %d bytes", what, usage, sum)
		}
	}
	write("1")
	check("a create", version{1, 1, true, false})
	write("22")
	putOrDelete("333")
	write("4444")
	check("writes and a Put", version{4, 4, true, false}, version{3, 3, false, false}, version{2, 2, false, false}, version{1, 1, false, false})
	write("55555")
	check("a write past the retention", version{5, 5, true, false}, version{4, 4, false, false}, version{3, 3, false, false}, version{2, 2, false, false})
	putOrDelete("")
	write("666666") // created again: continues the numbering
	check("a delete and a write", version{6, 6, true, false}, version{5, 5, false, true}, version{4, 4, false, false}, version{3, 3, false, false})
	putOrDelete("7777777")
	write("88888888")
	check("a Put and a write", version{8, 8, true, false}, version{7, 7, false, false}, version{6, 6, false, false}, version{5, 5, false, true})
}
