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

// searchGate bounds the searches running at once: a keyedslots.Gate of perTenant slots per
// tenant and total in all, waited for at most wait (<= 0: no bound of its own) and until the
// search's context ends. A search embeds its query (an API call with the caller's key when the
// embedder is remote), reads the index (database connections, often two at once, and vectors
// scored on the CPU) and may call a reranker: it can run for seconds, holding what other
// tenants' calls need. It is safe for concurrent use.
type searchGate struct {
	slots *keyedslots.Gate
	wait  time.Duration
}

func newSearchGate(perTenant, total int, wait time.Duration) *searchGate {
	return &searchGate{slots: keyedslots.NewGate(perTenant, total), wait: wait}
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
	release, all, err := g.slots.Acquire(waitCtx, tenant)
	if err == nil {
		return release, nil
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err // the caller left
	}
	why := fmt.Sprintf("this API key's other searches held its %d search slots", g.slots.PerKey())
	if all {
		why = fmt.Sprintf("the searches of all callers held the server's %d search slots", g.slots.Total())
	}
	return nil, agentfiles.NewError(agentfiles.CodeResourceBusy,
		why+" for as long as this search could wait; retry when one of them has finished, or search fewer at once", "")
}
