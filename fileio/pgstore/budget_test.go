package pgstore_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
)

// hostileNeedle makes position() compare len(needle) bytes at every offset of a file of "a"s.
var hostileNeedle = []byte(strings.Repeat("a", 20000) + "b")

// locate runs Splicer.Locate in an Update of s under ctx.
func locate(ctx context.Context, s *pgstore.Store, path string, needle []byte, maxScan int64) (driver.Located, error) {
	var loc driver.Located
	err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		var err error
		loc, err = tx.(driver.Splicer).Locate(ctx, path, needle, 16, maxScan, false)
		return err
	})
	return loc, err
}

// TestLocateLeavesCostlySearchesToTheCaller: position() is not run when the file's size times
// the needle's length exceeds maxScan; the answer says the search was not made.
func TestLocateLeavesCostlySearchesToTheCaller(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	put(t, s, testScope, "/h.txt", strings.Repeat("a", 1<<20)+"needle")
	tests := []struct {
		name    string
		needle  string
		maxScan int64
		want    []int64 // Matches
		search  bool
	}{
		{"short needle searched", "needle", 256 << 20, []int64{1 << 20}, true},
		{"long needle left to the caller", string(hostileNeedle), 256 << 20, nil, false},
		{"just over the budget", "needle", 6<<20 + 35, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := locate(context.Background(), s, "/h.txt", []byte(tc.needle), tc.maxScan)
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Exists, Searched bool
				Matches          []int64
			}{loc.Exists, loc.Searched, loc.Matches}
			want := got
			want.Exists, want.Searched, want.Matches = true, tc.search, tc.want
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatementStopsWhenCallerLeaves: a statement of a pool that Open made stops in the server
// soon after its context is cancelled (a cancel request; pgx's default closes the socket, and
// the server goes on until it next writes to it).
func TestStatementStopsWhenCallerLeaves(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Pool().Exec(ctx, "SELECT pg_sleep(60) /* caller leaves */")
		done <- err
	}()
	running := func() bool {
		var n int
		err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
			AND query LIKE '%caller leaves%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	poll.Eventually(t, 30*time.Second, "the statement runs in the server", running)
	cancel()
	poll.Eventually(t, 2*time.Second, "the server stops the statement within 2 s of the cancel", func() bool { return !running() })
	if err := <-done; err == nil {
		t.Error("the cancelled statement succeeded")
	}
}

// TestStatementTimeout: Options.StatementTimeout ends a statement the caller gave no deadline
// for: TIMEOUT, with the transaction rolled back. (position() checks for interrupts only when
// it returns, so the file is small: the bound on its work is maxScan.)
func TestStatementTimeout(t *testing.T) {
	// The file is written through a Store with the default timeout (on a loaded machine the
	// write itself can take 50 ms), and searched through one with 50 ms.
	w, url := newStore(t, pgstore.Options{})
	put(t, w, testScope, "/h.txt", strings.Repeat("a", 256<<10))
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{StatementTimeout: 50 * time.Millisecond, SkipMigrations: true})
	_, err := locate(context.Background(), s, "/h.txt", hostileNeedle, math.MaxInt64)
	if got := agentfiles.ErrorCode(err); got != agentfiles.CodeTimeout {
		t.Errorf("Locate past the statement timeout = %v, want TIMEOUT", err)
	}
	// The pool still works: the timed-out transaction was rolled back.
	if f, err := get(t, s, testScope, "/h.txt"); err != nil || f.SizeBytes != 256<<10 {
		t.Errorf("after the timeout: %d bytes, %v", f.SizeBytes, err)
	}
}
