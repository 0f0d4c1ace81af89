package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
)

var _ driver.ScanViewer = (*Store)(nil)

// scanConns returns how many connections of a pool of maxConns the searches (ViewScan) may
// hold at once, all tenants together: half of them, at least one. The others stay free for
// short calls.
func scanConns(maxConns int32) int { return max(1, int(maxConns)/2) }

// tenantScanConns returns how many of the scanConns search connections one tenant may hold at
// once: a quarter of them, at least one, so that at least four tenants search side by side.
func tenantScanConns(scanConns int) int { return max(1, scanConns/4) }

// scanGate bounds the connections that searches hold: total for all tenants, perTenant for
// each. Waiters are served in arrival order.
type scanGate struct {
	total     chan struct{}
	perTenant *keyedslots.Slots
	tenantMax int
}

func newScanGate(maxConns int32) *scanGate {
	n := scanConns(maxConns)
	per := tenantScanConns(n)
	return &scanGate{total: make(chan struct{}, n), perTenant: keyedslots.New(per), tenantMax: per}
}

// acquire waits for one of tenant's search connections and then for one of all tenants', at
// most until ctx ends, and returns the function that frees both.
func (g *scanGate) acquire(ctx context.Context, tenant string) (func(), error) {
	releaseTenant, err := g.perTenant.Acquire(ctx, tenant)
	if err != nil {
		return nil, g.busy(ctx, fmt.Sprintf("this API key's other searches held its %d search connections", g.tenantMax))
	}
	select {
	case g.total <- struct{}{}:
		return func() { <-g.total; releaseTenant() }, nil
	case <-ctx.Done():
		releaseTenant()
		return nil, g.busy(ctx, fmt.Sprintf("other searches held all %d search connections", cap(g.total)))
	}
}

// busy is the error of a wait for a search connection that ctx ended: RESOURCE_BUSY when its
// deadline passed, ctx's error when the caller left.
func (g *scanGate) busy(ctx context.Context, why string) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ctx.Err()
	}
	return agentfiles.NewError(agentfiles.CodeResourceBusy,
		"pgstore: "+why+" until this call's time ran out; retry shortly, or narrow the search (a path, a glob, literal text) so that searches end sooner", "")
}

// ViewScan implements driver.ScanViewer: View for a search that may hold its transaction until
// ctx's deadline. At most scanConns(pool size) such transactions hold a connection at once,
// at most tenantScanConns of them for one tenant (scope.Tenant); a call waits for its turn in
// arrival order, at most until ctx ends (RESOURCE_BUSY at its deadline). The rest of the pool
// stays free for View and Update, so a short call never waits for another tenant's search.
// The bound holds within this Store: every process that shares the database has its own pool.
func (s *Store) ViewScan(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	release, err := s.scans.acquire(ctx, scope.Tenant)
	if err != nil {
		return err
	}
	defer release()
	return s.View(ctx, scope, fn)
}
