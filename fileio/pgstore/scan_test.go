package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/google/go-cmp/cmp"
)

// TestViewScanLeavesConnectionsForShortCalls is the pool drained by searches: on a pool of
// four connections, five tenants start searches (ViewScan) that hold their transaction until
// released, one of them twice. At most two (half the pool) hold a connection at once, one per
// tenant; meanwhile a sixth tenant's View and Update still run; a search whose deadline passes
// while it waits fails with RESOURCE_BUSY; and once the first searches end, every waiting one
// runs.
func TestViewScanLeavesConnectionsForShortCalls(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{MaxConns: 4, GrepIndexInterval: -1, PurgeInterval: -1})
	ctx := context.Background()
	scope := func(tenant int) driver.Scope {
		return driver.Scope{Tenant: fmt.Sprintf("%064d", tenant), Project: "p"}
	}
	put(t, s, scope(6), "/note.md", "a short note\n")

	var mu sync.Mutex
	inside, most := map[string]int{}, 0
	perTenantMost := 0
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	search := func(tenant int) error {
		sc := scope(tenant)
		return s.ViewScan(ctx, sc, func(tx driver.ReadTx) error {
			if _, err := tx.List(ctx, "", 1); err != nil { // the transaction holds a connection
				return err
			}
			mu.Lock()
			inside[sc.Tenant]++
			total := 0
			for _, n := range inside {
				total += n
			}
			most, perTenantMost = max(most, total), max(perTenantMost, inside[sc.Tenant])
			mu.Unlock()
			entered <- struct{}{}
			<-release
			mu.Lock()
			inside[sc.Tenant]--
			mu.Unlock()
			return nil
		})
	}
	errs := make(chan error, 6)
	for _, tenant := range []int{1, 1, 2, 3, 4, 5} {
		go func() { errs <- search(tenant) }()
	}
	<-entered
	<-entered // two searches hold connections; four wait for theirs

	// Another tenant's short calls find a connection.
	if f, err := get(t, s, scope(6), "/note.md"); err != nil || string(f.Content) != "a short note\n" {
		t.Fatalf("the light tenant's read while searches hold their connections: %q, %v", f.Content, err)
	}
	put(t, s, scope(6), "/other.md", "x")

	// A search that cannot get a connection before its deadline is RESOURCE_BUSY.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := s.ViewScan(short, scope(7), func(driver.ReadTx) error { return nil })
	cancel()
	if code := agentfiles.ErrorCode(err); code != agentfiles.CodeResourceBusy {
		t.Errorf("a search past its deadline while the search connections are busy: %v (code %q), want RESOURCE_BUSY", err, code)
	}

	close(release)
	for range 6 {
		if err := <-errs; err != nil {
			t.Errorf("a search: %v", err)
		}
	}
	if diff := cmp.Diff([2]int{2, 1}, [2]int{most, perTenantMost}); diff != "" {
		t.Errorf("searches holding connections at once, all and per tenant (-want +got):\n%s", diff)
	}
}
