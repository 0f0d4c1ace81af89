package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
)

// LimitConcurrency returns tools whose calls run at most perTenant at once for each caller (the
// context's agentfiles.AuthContext tenant; calls without one share a slot set) and total at once
// for all callers, all tools together. A call beyond either is refused at once with
// RESOURCE_BUSY saying whose calls hold the slots; it does not wait, so use it for tools whose
// calls run long (a consultation of a model, seconds to minutes) and whose callers would rather
// hear so than queue. Tools whose core bounds its own work per tenant (fileio, search) need it
// not. The descriptions gain a sentence stating the bound.
func LimitConcurrency(tools []Tool, perTenant, total int) []Tool {
	gate := keyedslots.NewGate(perTenant, total)
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	which := strings.Join(names, " and ")
	out := make([]Tool, len(tools))
	for i, t := range tools {
		handler := t.Handler
		t.Description += fmt.Sprintf("\n\nAt most %d of your calls of %s run at once (%d of all callers'); "+
			"another is refused with RESOURCE_BUSY until one of them has finished.", gate.PerKey(), which, gate.Total())
		t.Handler = func(ctx context.Context, args json.RawMessage) (any, error) {
			ac, _ := agentfiles.AuthFromContext(ctx)
			release, all, ok := gate.TryAcquire(ac.TenantID())
			if !ok {
				why := fmt.Sprintf("your other calls of %s already run %d at once", which, gate.PerKey())
				if all {
					why = fmt.Sprintf("the calls of all callers already run %d at once", gate.Total())
				}
				return nil, agentfiles.NewError(agentfiles.CodeResourceBusy, why+"; retry when one of them has finished", "")
			}
			defer release()
			return handler(ctx, args)
		}
		out[i] = t
	}
	return out
}
