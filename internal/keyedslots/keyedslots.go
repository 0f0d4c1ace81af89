// Package keyedslots bounds how many calls run at once for each key (a tenant, a client
// address): a key whose slots are all busy waits for one of its own to finish, at most until
// its context ends, while other keys are not affected. fileio gives each tenant a few slots
// for its transactions, and adapters/mcpsdk each caller a few for its requests, so that one
// tenant's parallel calls occupy at most that many CPUs and database connections.
package keyedslots

import (
	"context"
	"sync"
)

// Slots holds perKey slots for every key; keys with no call are forgotten. The zero value is
// not usable; see New. It is safe for concurrent use.
type Slots struct {
	perKey int
	mu     sync.Mutex
	busy   map[string]*slot
}

// slot is one key's semaphore and how many calls hold or wait for it.
type slot struct {
	sem   chan struct{}
	users int
}

// New returns Slots with perKey slots (at least 1) for every key.
func New(perKey int) *Slots {
	return &Slots{perKey: max(perKey, 1), busy: map[string]*slot{}}
}

// Acquire waits for one of key's slots and returns the function that frees it, or ctx's error
// when ctx ends first.
func (t *Slots) Acquire(ctx context.Context, key string) (release func(), err error) {
	t.mu.Lock()
	s := t.busy[key]
	if s == nil {
		s = &slot{sem: make(chan struct{}, t.perKey)}
		t.busy[key] = s
	}
	s.users++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		if s.users--; s.users == 0 {
			delete(t.busy, key)
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

// TryAcquire takes one of key's slots if one is free and returns the function that frees it;
// ok is false, and nothing taken, when they are all busy.
func (t *Slots) TryAcquire(key string) (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.busy[key]
	if s == nil {
		s = &slot{sem: make(chan struct{}, t.perKey)}
		t.busy[key] = s
	}
	select {
	case s.sem <- struct{}{}:
	default:
		return nil, false // all perKey slots held: s has users, and stays
	}
	s.users++
	return func() {
		<-s.sem
		t.mu.Lock()
		if s.users--; s.users == 0 {
			delete(t.busy, key)
		}
		t.mu.Unlock()
	}, true
}
