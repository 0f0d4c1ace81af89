package fileio

import (
	"context"
	"sync"
)

// tenantSlots bounds how many transactions each tenant runs at once: a tenant whose calls are
// all busy waits for one of its own to finish (at most until its call's deadline), so one
// tenant's parallel calls occupy at most that many CPUs and database connections, and the
// others' calls find the rest free. The zero value is not usable; see newTenantSlots.
// It is safe for concurrent use.
type tenantSlots struct {
	perTenant int
	mu        sync.Mutex
	busy      map[string]*tenantSlot
}

// tenantSlot is one tenant's semaphore and how many calls hold or wait for it.
type tenantSlot struct {
	sem   chan struct{}
	users int
}

func newTenantSlots(perTenant int) *tenantSlots {
	return &tenantSlots{perTenant: perTenant, busy: map[string]*tenantSlot{}}
}

// acquire waits for one of tenant's slots and returns the function that frees it; the error of
// ctx when it ends first.
func (t *tenantSlots) acquire(ctx context.Context, tenant string) (release func(), err error) {
	t.mu.Lock()
	s := t.busy[tenant]
	if s == nil {
		s = &tenantSlot{sem: make(chan struct{}, t.perTenant)}
		t.busy[tenant] = s
	}
	s.users++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		if s.users--; s.users == 0 {
			delete(t.busy, tenant)
		}
		t.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
