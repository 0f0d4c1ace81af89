package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/jackc/pgx/v5/pgxpool"
)

// checkNoLeak fails t unless err is an *agentfiles.Error whose message contains none of secrets,
// nor SQL, table names, URLs or passwords.
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
	err = s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/secret.txt", []byte("TOP-SECRET-CONTENT"), driver.PutOptions{})
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
	storetest.CompleteJobs(t, s)
	killOwnBackend := func() {
		_, err := s.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
			WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		fn   func(tx driver.WriteTx) error
	}{
		{"callback continues", func(tx driver.WriteTx) error {
			if _, err := tx.Put(ctx, "/half-1", []byte("a"), driver.PutOptions{}); err != nil {
				return err
			}
			killOwnBackend()
			_, err := tx.Put(ctx, "/half-2", []byte("b"), driver.PutOptions{})
			return err
		}},
		{"callback ignores errors", func(tx driver.WriteTx) error {
			tx.Put(ctx, "/half-3", []byte("a"), driver.PutOptions{})
			tx.Delete(ctx, "/base")
			killOwnBackend()
			tx.Put(ctx, "/half-4", []byte("b"), driver.PutOptions{})
			return nil // commit must still fail
		}},
		{"dropped before commit", func(tx driver.WriteTx) error {
			if _, err := tx.Put(ctx, "/half-5", []byte("a"), driver.PutOptions{}); err != nil {
				return err
			}
			killOwnBackend()
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, testScope, driver.UpdateOptions{}, tc.fn)
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
	s.View(ctx, testScope, func(tx driver.ReadTx) error { var err error; total, err = tx.ProjectBytes(ctx); return err })
	if total != 4 {
		t.Errorf("ProjectBytes = %d, want 4", total)
	}
	// The pool recovers: the next write works.
	put(t, s, testScope, "/after", "ok")
}

func TestOversizedValuesAreInvalidArgument(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	long := driver.Scope{Tenant: testScope.Tenant, Project: strings.Repeat("p", 129)}
	err := s.Update(ctx, long, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/a", []byte("x"), driver.PutOptions{})
		return err
	})
	if !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("129-character project: %v, want INVALID_ARGUMENT", err)
	}
	checkNoLeak(t, "oversized project", err)
}

// TestServerKilledDuringWrites: the server is SIGKILLed while four writers stream transactions,
// then restarted on the same port. Each transaction writes two files and appends a record to its
// writer's log. Afterwards every transaction that returned success is fully present, every
// transaction is all-or-nothing (a failed commit may have landed, but never half), and the same
// Store keeps working after the restart. While the server is down every failure is UNAVAILABLE:
// retryable, and never INTERNAL.
func TestServerKilledDuringWrites(t *testing.T) {
	srv, url := pgtest.DedicatedDatabase(t)
	ctx := context.Background()
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})

	const writers = 4
	type outcome struct{ ok, failed []int }
	results := make([]outcome, writers)
	var successes, failures atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logPath := fmt.Sprintf("/log-%d", w)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				err := s.Update(ctx, testScope, driver.UpdateOptions{LockTimeout: 10 * time.Second}, func(tx driver.WriteTx) error {
					for _, dir := range []string{"/a", "/b"} {
						if _, err := tx.Put(ctx, fmt.Sprintf("%s/%d-%d", dir, w, i), []byte(fmt.Sprint(i)), driver.PutOptions{}); err != nil {
							return err
						}
					}
					old, err := tx.Get(ctx, logPath)
					if err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
						return err
					}
					_, err = tx.Put(ctx, logPath, fmt.Appendf(old.Content, "%d;", i), driver.PutOptions{})
					return err
				})
				if err == nil {
					results[w].ok = append(results[w].ok, i)
					successes.Add(1)
					continue
				}
				if code := agentfiles.ErrorCode(err); code != agentfiles.CodeUnavailable || !code.Retryable() {
					t.Errorf("writer %d op %d: %v, want UNAVAILABLE while the server is down", w, i, err)
				}
				results[w].failed = append(results[w].failed, i)
				failures.Add(1)
				time.Sleep(5 * time.Millisecond) // back off while the server is down
			}
		}()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := poll.Until(ctx, 2*time.Minute, what, func() (bool, error) { return cond(), nil }); err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
	}
	waitFor("writes before the crash", func() bool { return successes.Load() >= 40 })
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor("failures while the server is down", func() bool { return failures.Load() >= writers })
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	after := successes.Load()
	waitFor("writes after the restart", func() bool { return successes.Load() >= after+40 })
	close(stop)
	wg.Wait()

	files := map[string]string{}
	for _, f := range storetest.Files(t, s, testScope) {
		files[f.Path] = string(f.Content)
	}
	landedFailures := 0
	for w, r := range results {
		logged := map[int]bool{}
		for _, rec := range strings.Split(strings.TrimSuffix(files[fmt.Sprintf("/log-%d", w)], ";"), ";") {
			var i int
			if _, err := fmt.Sscan(rec, &i); err == nil {
				logged[i] = true
			}
		}
		check := func(i int) bool { // the transaction is whole or absent; reports whether it landed
			a, aok := files[fmt.Sprintf("/a/%d-%d", w, i)]
			b, bok := files[fmt.Sprintf("/b/%d-%d", w, i)]
			if aok != bok || aok != logged[i] {
				t.Errorf("writer %d op %d half applied: /a %v, /b %v, logged %v", w, i, aok, bok, logged[i])
			}
			if aok && (a != fmt.Sprint(i) || b != fmt.Sprint(i)) {
				t.Errorf("writer %d op %d: contents %q %q", w, i, a, b)
			}
			return aok
		}
		for _, i := range r.ok {
			if !check(i) {
				t.Errorf("writer %d op %d returned success but is missing after the restart", w, i)
			}
		}
		for _, i := range r.failed {
			if check(i) {
				landedFailures++ // commit reached the server but its reply was lost: allowed
			}
		}
	}
	var okCount int
	for _, r := range results {
		okCount += len(r.ok)
	}
	t.Logf("%d successful and %d failed transactions (%d failed ones landed whole: commit acknowledged by the server but not received)",
		okCount, failures.Load(), landedFailures)
	var usage, stored int64
	s.View(ctx, testScope, func(tx driver.ReadTx) error { var err error; usage, err = tx.ProjectBytes(ctx); return err })
	for _, c := range files {
		stored += int64(len(c))
	}
	if usage != stored {
		t.Errorf("ProjectBytes %d after recovery, files hold %d", usage, stored)
	}
	if pending, _ := s.PendingJobs(ctx); pending != len(files) {
		t.Errorf("PendingJobs %d, want one per file (%d)", pending, len(files))
	}
}
