package search

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
)

// DefaultSlotWait is how long a search waits for a slot by default (SearcherOptions.SlotWait)
// before it fails with RESOURCE_BUSY.
const DefaultSlotWait = 10 * time.Second

// DefaultMaxConcurrentPerTenant is how many searches of one tenant run at once by default
// (SearcherOptions.MaxConcurrentPerTenant): half the CPUs, at least 1, as fileio's
// max_concurrent_calls.
func DefaultMaxConcurrentPerTenant() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// DefaultMaxConcurrent is how many searches of all tenants run at once by default
// (SearcherOptions.MaxConcurrent): the CPUs, at least 2.
func DefaultMaxConcurrent() int { return max(2, runtime.GOMAXPROCS(0)) }

// searchGate bounds the searches running at once: perTenant for each tenant, total for all of
// them. A search waits for one of its tenant's slots, then for one of all (in arrival order),
// at most wait (<= 0: no bound of its own) and until its context ends. A search embeds its
// query (an API call with the caller's key when the embedder is remote), reads the index
// (database connections, often two at once, and vectors scored on the CPU) and may call a
// reranker: it can run for seconds, holding what other tenants' calls need. It is safe for
// concurrent use.
type searchGate struct {
	perTenant *keyedslots.Slots
	tenantMax int
	total     chan struct{}
	wait      time.Duration
}

func newSearchGate(perTenant, total int, wait time.Duration) *searchGate {
	return &searchGate{perTenant: keyedslots.New(perTenant), tenantMax: max(perTenant, 1), total: make(chan struct{}, max(total, 1)), wait: wait}
}

// acquire waits for tenant's turn and returns the function that ends it. A wait that passes
// the gate's wait or ctx's deadline is RESOURCE_BUSY saying whose searches held the slots; a
// caller that left gets ctx's error.
func (g *searchGate) acquire(ctx context.Context, tenant string) (func(), error) {
	waitCtx, cancel := ctx, context.CancelFunc(func() {})
	if g.wait > 0 {
		waitCtx, cancel = context.WithTimeout(ctx, g.wait)
	}
	defer cancel()
	releaseTenant, err := g.perTenant.Acquire(waitCtx, tenant)
	if err != nil {
		return nil, g.busy(ctx, fmt.Sprintf("this API key's other searches held its %d search slots", g.tenantMax))
	}
	select {
	case g.total <- struct{}{}:
		return func() { <-g.total; releaseTenant() }, nil
	case <-waitCtx.Done():
		releaseTenant()
		return nil, g.busy(ctx, fmt.Sprintf("the searches of all callers held the server's %d search slots", cap(g.total)))
	}
}

// busy is the error of a wait for a slot that ended: ctx's error when the caller left,
// RESOURCE_BUSY otherwise.
func (g *searchGate) busy(ctx context.Context, why string) error {
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return agentfiles.NewError(agentfiles.CodeResourceBusy,
		why+" for as long as this search could wait; retry when one of them has finished, or search fewer at once", "")
}
