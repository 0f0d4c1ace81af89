package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOutboxDeduplicatesAndVersions(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/a", "1")
	err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/a", []byte("22"), driver.PutOptions{CredentialRef: "ref-1"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.PendingJobs(ctx); n != 1 {
		t.Fatalf("PendingJobs after two writes of one path = %d, want 1", n)
	}
	f, _ := get(t, s, testScope, "/a")
	jobs, err := s.ClaimJobs(ctx, 10, time.Minute)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("ClaimJobs = %v, %v; want one job", jobs, err)
	}
	claimed := jobs[0]
	want := driver.Job{Scope: testScope, Path: "/a", Op: driver.JobUpsert, FileUpdatedAt: f.UpdatedAt, CredentialRef: "ref-1"}
	if diff := cmp.Diff(want, claimed, cmpopts.IgnoreFields(driver.Job{}, "ID", "EnqueuedAt", "Version")); diff != "" {
		t.Errorf("claimed job (-want +got):\n%s", diff)
	}
	if claimed.Version < 2 || claimed.EnqueuedAt.IsZero() {
		t.Errorf("job Version %d EnqueuedAt %v: want a bumped version and an enqueue time", claimed.Version, claimed.EnqueuedAt)
	}
	if again, _ := s.ClaimJobs(ctx, 10, time.Minute); len(again) != 0 {
		t.Errorf("leased job claimed again: %v", again)
	}

	// A delete supersedes the leased job: it is available again with a new version, and
	// completing the old claim leaves it pending.
	if err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/a") }); err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteJob(ctx, claimed); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.PendingJobs(ctx); n != 1 {
		t.Fatalf("PendingJobs after completing a superseded claim = %d, want 1", n)
	}
	jobs, _ = s.ClaimJobs(ctx, 10, time.Minute)
	if len(jobs) != 1 || jobs[0].Op != driver.JobDelete || jobs[0].Version == claimed.Version || jobs[0].ID != claimed.ID {
		t.Fatalf("after delete: claimed %+v; want the same job as DELETE with a new version", jobs)
	}
	if !jobs[0].FileUpdatedAt.IsZero() || jobs[0].CredentialRef != "" {
		t.Errorf("DELETE job carries FileUpdatedAt %v / CredentialRef %q; want zero", jobs[0].FileUpdatedAt, jobs[0].CredentialRef)
	}

	// Retry: invisible until notBefore, attempts counted, error recorded.
	if err := s.RetryJob(ctx, jobs[0], time.Now().Add(time.Hour), "embedder down"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimJobs(ctx, 10, time.Minute); len(got) != 0 {
		t.Errorf("job claimable before its retry time: %v", got)
	}
	if msg, ok, err := s.LastJobError(ctx, testScope, "/a"); err != nil || !ok || msg != "embedder down" {
		t.Errorf("LastJobError = %q, %v, %v", msg, ok, err)
	}
	if err := s.RetryJob(ctx, jobs[0], time.Now().Add(-time.Second), "again"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.ClaimJobs(ctx, 10, time.Minute)
	if len(got) != 1 || got[0].Attempts != 2 {
		t.Fatalf("after two retries: %+v; want one job with Attempts 2", got)
	}
	if err := s.CompleteJob(ctx, got[0]); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.PendingJobs(ctx); n != 0 {
		t.Errorf("PendingJobs after completion = %d, want 0", n)
	}
}

func TestLeaseExpiryMakesJobClaimableAgain(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/a", "1")
	first, err := s.ClaimJobs(ctx, 1, 50*time.Millisecond)
	if err != nil || len(first) != 1 {
		t.Fatalf("ClaimJobs = %v, %v", first, err)
	}
	// The worker "crashes": never completes. The job must come back after the lease.
	var again []driver.Job
	err = poll.Until(ctx, 30*time.Second, "the job claimable again after its lease ran out", func() (bool, error) {
		again, err = s.ClaimJobs(ctx, 1, time.Minute)
		return len(again) == 1, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if again[0].ID != first[0].ID || again[0].Version != first[0].Version {
		t.Errorf("reclaimed %+v, want the same job as %+v", again[0], first[0])
	}
}

func TestClaimOrderAndSkipLocked(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	for _, p := range []string{"/1", "/2", "/3", "/4", "/5"} {
		put(t, s, testScope, p, p)
	}
	a, err := s.ClaimJobs(ctx, 2, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.ClaimJobs(ctx, 10, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, j := range append(a, b...) {
		paths = append(paths, j.Path)
	}
	if diff := cmp.Diff([]string{"/1", "/2", "/3", "/4", "/5"}, paths); diff != "" {
		t.Errorf("claims in enqueue order, disjoint (-want +got):\n%s", diff)
	}
}

// TestWaitForJobsWakesAcrossInstances: a worker on one Store instance (its own pool and LISTEN
// connection) is woken by a write through another instance. The poll interval is an hour, so
// only the notification (or the check for available jobs) can wake it.
func TestWaitForJobsWakesAcrossInstances(t *testing.T) {
	writer, url := newStore(t, pgstore.Options{})
	ctx := context.Background()
	worker := pgtest.Open(t, url, pgstore.Open, pgstore.Options{PollInterval: time.Hour})

	got := make(chan driver.Job, 1)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for wctx.Err() == nil {
			jobs, err := worker.ClaimJobs(wctx, 1, time.Minute)
			if err == nil && len(jobs) == 1 {
				got <- jobs[0]
				return
			}
			worker.WaitForJobs(wctx, time.Hour)
		}
	}()
	put(t, writer, testScope, "/wake", "up")
	select {
	case j := <-got:
		if j.Path != "/wake" {
			t.Errorf("worker claimed %q, want /wake", j.Path)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("worker was not woken by a write from another instance")
	}

	// A retry delay also ends the wait by itself.
	put(t, writer, testScope, "/later", "x")
	jobs, _ := worker.ClaimJobs(ctx, 1, time.Minute)
	if len(jobs) != 1 {
		t.Fatalf("claim /later: %v", jobs)
	}
	if err := worker.RetryJob(ctx, jobs[0], time.Now().Add(200*time.Millisecond), "later"); err != nil {
		t.Fatal(err)
	}
	err := poll.Until(ctx, 60*time.Second, "the retried job claimable after WaitForJobs", func() (bool, error) {
		if err := worker.WaitForJobs(ctx, time.Hour); err != nil {
			return false, err
		}
		jobs, err := worker.ClaimJobs(ctx, 1, time.Minute)
		return len(jobs) == 1, err
	})
	if err != nil {
		t.Fatal(err)
	}

	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if err := worker.WaitForJobs(cctx, time.Hour); err != context.Canceled {
		t.Errorf("WaitForJobs on a cancelled context = %v, want context.Canceled", err)
	}
}
