package pgstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

// leaks lists what an agent-facing error message must never contain.
func checkNoLeak(t *testing.T, what string, err error, secrets ...string) {
	t.Helper()
	var fe *agentfiles.Error
	if !errors.As(err, &fe) {
		t.Fatalf("%s: %T %v is not a *agentfiles.Error", what, err, err)
	}
	msg := fe.Error()
	for _, s := range append(secrets, "SELECT", "INSERT", "UPDATE", "mcp_files", "postgres://", "127.0.0.1", "password", "pg_advisory") {
		if strings.Contains(msg, s) {
			t.Errorf("%s: message %q leaks %q", what, msg, s)
		}
	}
}

// TestUnreachableIsUnavailable: a database that refuses connections is UNAVAILABLE (retryable),
// for transactions, the outbox and Open, and no message leaks the URL, SQL or contents.
func TestUnreachableIsUnavailable(t *testing.T) {
	ctx := context.Background()
	const url = "postgres://agent:s3cret-pw@127.0.0.1:1/files?sslmode=disable&connect_timeout=2"
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pgstore.New(ctx, pool, pgstore.Options{SkipMigrations: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, testScope, fileio.UpdateOptions{}, func(tx fileio.WriteTx) error {
		_, err := tx.Put(ctx, "/secret.txt", []byte("TOP-SECRET-CONTENT"), fileio.PutOptions{})
		return err
	})
	if !errors.Is(err, agentfiles.ErrUnavailable) || !agentfiles.ErrorCode(err).Retryable() {
		t.Fatalf("Update on an unreachable database: %v, want UNAVAILABLE", err)
	}
	checkNoLeak(t, "Update", err, "s3cret-pw", "agent", "TOP-SECRET-CONTENT")
	_, err = get(t, s, testScope, "/x")
	if !errors.Is(err, agentfiles.ErrUnavailable) {
		t.Fatalf("View on an unreachable database: %v, want UNAVAILABLE", err)
	}
	checkNoLeak(t, "View", err, "s3cret-pw")
	if _, err := s.ClaimJobs(ctx, 1, time.Second); !errors.Is(err, agentfiles.ErrUnavailable) {
		t.Fatalf("ClaimJobs on an unreachable database: %v, want UNAVAILABLE", err)
	}
	if errors.Unwrap(err) == nil {
		t.Error("the driver's error should stay reachable with errors.Unwrap for logs")
	}
	_, err = pgstore.Open(ctx, "postgres://agent:s3cret-pw@127.0.0.1:1/files?connect_timeout=2", pgstore.Options{})
	if !errors.Is(err, agentfiles.ErrUnavailable) || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("Open on an unreachable database: %v; want UNAVAILABLE without the password", err)
	}
}

// TestDroppedConnectionLeavesNoPartialWrite: the server terminates the writer's backend in the
// middle of a transaction; nothing of it is kept, whether the callback notices or not.
func TestDroppedConnectionLeavesNoPartialWrite(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/base", "base")
	complete(t, s)
	killOwnBackend := func() {
		_, err := s.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
			WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		fn   func(tx fileio.WriteTx) error
	}{
		{"callback continues", func(tx fileio.WriteTx) error {
			if _, err := tx.Put(ctx, "/half-1", []byte("a"), fileio.PutOptions{}); err != nil {
				return err
			}
			killOwnBackend()
			_, err := tx.Put(ctx, "/half-2", []byte("b"), fileio.PutOptions{})
			return err
		}},
		{"callback ignores errors", func(tx fileio.WriteTx) error {
			tx.Put(ctx, "/half-3", []byte("a"), fileio.PutOptions{})
			tx.Delete(ctx, "/base")
			killOwnBackend()
			tx.Put(ctx, "/half-4", []byte("b"), fileio.PutOptions{})
			return nil // commit must still fail
		}},
		{"dropped before commit", func(tx fileio.WriteTx) error {
			if _, err := tx.Put(ctx, "/half-5", []byte("a"), fileio.PutOptions{}); err != nil {
				return err
			}
			killOwnBackend()
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, testScope, fileio.UpdateOptions{}, tc.fn)
			if !errors.Is(err, agentfiles.ErrUnavailable) {
				t.Fatalf("Update = %v, want UNAVAILABLE (the server terminated the connection)", err)
			}
			checkNoLeak(t, "Update", err)
		})
	}
	if got := list(t, s, testScope, "", 0); len(got) != 1 || got[0] != "/base" {
		t.Errorf("files after dropped transactions: %v, want only /base", got)
	}
	if n, _ := s.PendingJobs(ctx); n != 0 {
		t.Errorf("PendingJobs = %d, want 0", n)
	}
	var total int64
	s.View(ctx, testScope, func(tx fileio.ReadTx) error { var err error; total, err = tx.ProjectBytes(ctx); return err })
	if total != 4 {
		t.Errorf("ProjectBytes = %d, want 4", total)
	}
	// The pool recovers: the next write works.
	put(t, s, testScope, "/after", "ok")
}

func TestOversizedValuesAreInvalidArgument(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	long := fileio.Scope{Tenant: testScope.Tenant, Project: strings.Repeat("p", 129)}
	err := s.Update(ctx, long, fileio.UpdateOptions{}, func(tx fileio.WriteTx) error {
		_, err := tx.Put(ctx, "/a", []byte("x"), fileio.PutOptions{})
		return err
	})
	if !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("129-character project: %v, want INVALID_ARGUMENT", err)
	}
	checkNoLeak(t, "oversized project", err)
}
