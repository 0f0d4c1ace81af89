package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
)

// outboxContract is the Outbox part of the Store contract: one test per rule, each on a fresh store.
var outboxContract = []storeTest{
	{"DeDuplicated", testDedup},
	{"ClaimOrderAndLease", testClaimOrder},
	{"ClaimTenantTurns", testClaimTenantTurns},
	{"ClaimEndedContext", testClaimEndedContext},
	{"CompleteSuperseded", testCompleteSuperseded},
	{"LeaseExpires", testLeaseExpires},
	{"Retry", testRetry},
	{"WaitForJobs", testWait},
}

func testDedup(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	var infos []driver.FileInfo
	for i := 0; i < 3; i++ {
		update(t, s, scope, func(tx driver.WriteTx) error {
			info, err := tx.Put(ctx, "/f", []byte{byte('a' + i)}, driver.PutOptions{CredentialRef: string(rune('A' + i))})
			infos = append(infos, info)
			return err
		})
	}
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/g", "g") })
	if n := pending(t, s); n != 2 {
		t.Fatalf("pending = %d after 3 writes of /f and 1 of /g, want 2", n)
	}
	jobs := mustClaim(t, s)
	if len(jobs) != 2 {
		t.Fatalf("claimed %+v", jobs)
	}
	f := jobs[0]
	if f.Path != "/f" || f.Op != driver.JobUpsert || !f.FileUpdatedAt.Equal(infos[2].UpdatedAt) || f.CredentialRef != "C" || f.Scope != scope || f.Attempts != 0 {
		t.Errorf("job for /f = %+v; want the latest write's state", f)
	}
	if f.EnqueuedAt.Before(infos[2].UpdatedAt.Add(-time.Second)) {
		t.Errorf("EnqueuedAt %v is not the last mutation's commit time (file updated %v)", f.EnqueuedAt, infos[2].UpdatedAt)
	}
	if err := s.CompleteJob(ctx, jobs[1]); err != nil { // /g
		t.Fatal(err)
	}
	update(t, s, scope, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/f") })
	jobs = mustClaim(t, s)
	if len(jobs) != 1 || jobs[0].Op != driver.JobDelete || jobs[0].Version == f.Version || jobs[0].Path != "/f" {
		t.Errorf("after deleting /f: %+v; want one DELETE job with a new version (old %d)", jobs, f.Version)
	}
	if n := pending(t, s); n != 1 {
		t.Errorf("pending = %d, want 1", n)
	}
}

func testClaimOrder(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	for _, p := range []string{"/3", "/1", "/2"} {
		update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, p, p) })
	}
	first, err := s.ClaimJobs(ctx, 2, time.Hour)
	if err != nil || len(first) != 2 || first[0].Path != "/3" || first[1].Path != "/1" {
		t.Fatalf("first claim = %+v, %v; want the two oldest, oldest first", first, err)
	}
	second, _ := s.ClaimJobs(ctx, 10, time.Hour)
	if len(second) != 1 || second[0].Path != "/2" {
		t.Errorf("second claim = %+v; leased jobs must be invisible", second)
	}
	if third, _ := s.ClaimJobs(ctx, 10, time.Hour); len(third) != 0 {
		t.Errorf("third claim = %+v, want none", third)
	}
	if n := pending(t, s); n != 3 {
		t.Errorf("pending counts leased jobs: %d, want 3", n)
	}
	for _, j := range append(first, second...) {
		if err := s.CompleteJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if n := pending(t, s); n != 0 {
		t.Errorf("pending after completing all: %d", n)
	}
	if jobs, _ := s.ClaimJobs(ctx, 0, time.Hour); len(jobs) != 0 {
		t.Errorf("limit 0 claimed %d", len(jobs))
	}
}

// testClaimTenantTurns: claims take tenants in turns (issue 41): a tenant that queued many jobs
// first does not hold back the others', each claim starts with the tenants after the one the
// claim before took last, and each tenant's jobs come oldest first.
func testClaimTenantTurns(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, burst := newTenant(proj)
	update(t, s, burst, func(tx driver.WriteTx) error {
		for i := range 20 {
			if err := put(ctx, tx, fmt.Sprintf("/burst/%02d", i), "x"); err != nil {
				return err
			}
		}
		return nil
	})
	var scopes []driver.Scope
	for range 3 {
		_, sc := newTenant(proj)
		scopes = append(scopes, sc)
		for _, p := range []string{"/1", "/2"} {
			update(t, s, sc, func(tx driver.WriteTx) error { return put(ctx, tx, p, p) })
		}
	}
	tenantOf := func(jobs []driver.Job) map[driver.Scope]int {
		n := map[driver.Scope]int{}
		for _, j := range jobs {
			n[j.Scope]++
		}
		return n
	}
	first, err := s.ClaimJobs(ctx, 4, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := map[driver.Scope]int{burst: 1, scopes[0]: 1, scopes[1]: 1, scopes[2]: 1}
	if diff := cmp.Diff(want, tenantOf(first)); diff != "" {
		t.Fatalf("a claim of 4 with four tenants queued took per tenant (-want +got):\n%s", diff)
	}
	for _, j := range first {
		if j.Scope != burst && j.Path != "/1" || j.Scope == burst && j.Path != "/burst/00" {
			t.Errorf("claimed %s of its tenant first; want its oldest job", j.Path)
		}
	}
	for i := 1; i < len(first); i++ {
		if first[i].EnqueuedAt.Before(first[i-1].EnqueuedAt) {
			t.Errorf("claimed jobs not oldest first: %v before %v", first[i-1].EnqueuedAt, first[i].EnqueuedAt)
		}
	}
	// Claims of one job: every tenant's turn comes before any tenant's second.
	var singles []driver.Job
	for range 4 {
		jobs, err := s.ClaimJobs(ctx, 1, time.Hour)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("a claim of 1: %+v, %v", jobs, err)
		}
		singles = append(singles, jobs...)
	}
	if diff := cmp.Diff(want, tenantOf(singles)); diff != "" {
		t.Errorf("four claims of 1 job took per tenant (-want +got):\n%s", diff)
	}
	rest, err := s.ClaimJobs(ctx, 100, time.Hour)
	if err != nil || len(rest) != 20-2 {
		t.Errorf("the burst's remaining jobs: %d, %v; want 18", len(rest), err)
	}
}

// testClaimEndedContext: a claim whose context has already ended leases nothing, so a consumer
// that checks its stop signal before claiming never strands jobs (see Outbox.ClaimJobs).
func testClaimEndedContext(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if jobs, err := s.ClaimJobs(ended, 10, time.Hour); !errors.Is(err, context.Canceled) || len(jobs) != 0 {
		t.Errorf("ClaimJobs with an ended context = %+v, %v; want none, context.Canceled", jobs, err)
	}
	if jobs, err := s.ClaimJobs(ctx, 10, time.Hour); err != nil || len(jobs) != 1 {
		t.Errorf("after a claim with an ended context, ClaimJobs = %+v, %v; want the job, not leased", jobs, err)
	}
}

func testCompleteSuperseded(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	claimed, _ := s.ClaimJobs(ctx, 1, time.Hour)
	if len(claimed) != 1 {
		t.Fatalf("claimed %+v", claimed)
	}
	var v2 driver.FileInfo
	update(t, s, scope, func(tx driver.WriteTx) error {
		var err error
		v2, err = tx.Put(ctx, "/f", []byte("v2"), driver.PutOptions{})
		return err
	})
	// The newer mutation made the job available at once, although the old lease runs.
	again, _ := s.ClaimJobs(ctx, 1, time.Hour)
	if len(again) != 1 || again[0].Version == claimed[0].Version || !again[0].FileUpdatedAt.Equal(v2.UpdatedAt) {
		t.Fatalf("after a newer write the job = %+v; want it available with a new version", again)
	}
	if err := s.CompleteJob(ctx, claimed[0]); err != nil {
		t.Errorf("CompleteJob of a superseded job: %v", err)
	}
	if n := pending(t, s); n != 1 {
		t.Errorf("completing the superseded claim removed the newer job (pending %d)", n)
	}
	if err := s.RetryJob(ctx, claimed[0], time.Now().Add(time.Hour), "stale"); err != nil {
		t.Errorf("RetryJob of a superseded job: %v", err)
	}
	s.CompleteJob(ctx, again[0])
	if n := pending(t, s); n != 0 {
		t.Errorf("pending after completing the current version: %d", n)
	}
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v3") })
	if err := s.CompleteJob(ctx, again[0]); err != nil || pending(t, s) != 1 {
		t.Errorf("an old job completed after the path was re-queued removed the new job")
	}
}

func testLeaseExpires(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	first, _ := s.ClaimJobs(ctx, 1, 100*time.Millisecond)
	if len(first) != 1 {
		t.Fatalf("claimed %+v", first)
	}
	var again []driver.Job
	poll.Eventually(t, 10*time.Second, "an expired lease makes the job claimable again", func() bool {
		again, _ = s.ClaimJobs(ctx, 1, time.Hour)
		return len(again) == 1
	})
	if again[0].ID != first[0].ID || again[0].Version != first[0].Version {
		t.Errorf("reclaimed %+v, want the same job %+v", again[0], first[0])
	}
}

func testRetry(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	job := mustClaim(t, s)[0]
	if err := s.RetryJob(ctx, job, time.Now().Add(time.Hour), "embedding API returned 503"); err != nil {
		t.Fatal(err)
	}
	if jobs := mustClaim(t, s); len(jobs) != 0 {
		t.Errorf("a job retried in an hour is claimable now: %+v", jobs)
	}
	if n := pending(t, s); n != 1 {
		t.Errorf("pending = %d, want 1", n)
	}
	// A newer mutation makes it available now and resets attempts.
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v2") })
	jobs := mustClaim(t, s)
	if len(jobs) != 1 || jobs[0].Attempts != 0 {
		t.Fatalf("after a newer write: %+v; want available, attempts 0", jobs)
	}
	if err := s.RetryJob(ctx, jobs[0], time.Now().Add(-time.Second), "timeout"); err != nil {
		t.Fatal(err)
	}
	again := mustClaim(t, s)
	if len(again) != 1 || again[0].Attempts != 1 || again[0].Version != jobs[0].Version {
		t.Errorf("after RetryJob with a past notBefore: %+v; want claimable, attempts 1, same version", again)
	}
	s.RetryJob(ctx, again[0], time.Now().Add(-time.Second), "timeout")
	if third := mustClaim(t, s); len(third) != 1 || third[0].Attempts != 2 {
		t.Errorf("attempts after two retries: %+v", third)
	}
}

func testWait(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.WaitForJobs(cctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitForJobs with a cancelled context = %v", err)
	}
	if err := s.WaitForJobs(ctx, 10*time.Millisecond); err != nil {
		t.Errorf("WaitForJobs with nothing to do = %v, want nil after maxWait", err)
	}
	woke := make(chan error, 1)
	go func() { woke <- s.WaitForJobs(ctx, time.Minute) }()
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	if err := receive(t, woke, "WaitForJobs to wake after a commit"); err != nil {
		t.Errorf("WaitForJobs woke with %v", err)
	}
	// With a job available it returns at once (bounded by the test's deadline, not timed).
	done := make(chan error, 1)
	go func() { done <- s.WaitForJobs(ctx, time.Hour) }()
	if err := receive(t, done, "WaitForJobs with a job available"); err != nil {
		t.Errorf("WaitForJobs with a job available = %v", err)
	}
}
