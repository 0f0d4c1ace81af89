package search_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/google/go-cmp/cmp"
)

// lateAnswerStore passes every call to its Store, but the first ClaimJobs waits until its
// context ends or proceed is closed, then carries the claim out whatever its context, and
// reports ctx.Err() if that ended meanwhile. So a remote store behaves when a claim's context
// ends while the claim is in flight: PostgreSQL ignores a cancel request that arrives while it
// reads the statement and then runs it, and pgx stops waiting for the answer a second after the
// cancel, so the jobs are leased and the caller never learns which.
type lateAnswerStore struct {
	driver.Store
	claiming chan struct{} // closed when the first ClaimJobs starts waiting
	proceed  chan struct{} // closed by the test to let it go on
	used     bool          // the first call has been made
}

func (s *lateAnswerStore) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]driver.Job, error) {
	if s.used { // one worker (Workers: 1) calls it, so no lock
		return s.Store.ClaimJobs(ctx, limit, lease)
	}
	s.used = true
	close(s.claiming)
	select {
	case <-ctx.Done():
	case <-s.proceed:
	}
	jobs, err := s.Store.ClaimJobs(context.WithoutCancel(ctx), limit, lease)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return jobs, err
}

// TestIndexerStopDuringClaim: when claiming stops (Stop, or the context given to Start ends)
// while a claim is in flight, the jobs that claim leased are still indexed and completed before
// the workers end, rather than left leased by nobody until the lease runs out.
func TestIndexerStopDuringClaim(t *testing.T) {
	for _, st := range allProjectsStacks {
		t.Run(st.name, func(t *testing.T) {
			store, index := st.newStack(t)
			ctx := indextest.Ctx("k-stop")
			scope := indextest.Scope("k-stop", "p")
			if err := store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				_, err := tx.Put(ctx, "/a.txt", []byte("alpha beta"), driver.PutOptions{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			late := &lateAnswerStore{Store: store, claiming: make(chan struct{}), proceed: make(chan struct{})}
			ix, err := search.NewIndexer(late, index, search.IndexerOptions{Workers: 1, Lease: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			runCtx, endClaiming := context.WithCancel(context.Background())
			ix.Start(runCtx)
			<-late.claiming
			endClaiming() // claiming stops while the claim is in flight
			close(late.proceed)
			if err := ix.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			pending, err := store.PendingJobs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			type outcome struct{ Indexed, Pending int }
			got := outcome{int(ix.Stats().Indexed), pending}
			if diff := cmp.Diff(outcome{Indexed: 1, Pending: 0}, got); diff != "" {
				t.Errorf("after Stop during a claim (-want +got):\n%s", diff)
			}
		})
	}
}
