package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
)

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
				err := s.Update(ctx, testScope, fileio.UpdateOptions{LockTimeout: 10 * time.Second}, func(tx fileio.WriteTx) error {
					for _, dir := range []string{"/a", "/b"} {
						if _, err := tx.Put(ctx, fmt.Sprintf("%s/%d-%d", dir, w, i), []byte(fmt.Sprint(i)), fileio.PutOptions{}); err != nil {
							return err
						}
					}
					old, err := tx.Get(ctx, logPath)
					if err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
						return err
					}
					_, err = tx.Put(ctx, logPath, fmt.Appendf(old.Content, "%d;", i), fileio.PutOptions{})
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
	s.View(ctx, testScope, func(tx fileio.ReadTx) error { var err error; usage, err = tx.ProjectBytes(ctx); return err })
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
