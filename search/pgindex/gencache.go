package pgindex

import (
	"sync"
	"sync/atomic"
)

// genCache keeps one immutable snapshot S per key K, valid for one value of a generation counter
// that the caller reads (the project's, which every ReplaceFile and DeleteFile of any process
// bumps in its transaction) and that the snapshot records. get shares the cached snapshot while
// it is current; when the counter moved, the first caller to notice reloads the entry while the
// others asking for the same key wait and then share its result. Entries are evicted
// least-recently-used when their snapshots hold more than maxBytes in all; a snapshot bigger than
// maxBytes is never cached. It is safe for concurrent use.
type genCache[K comparable, S any] struct {
	maxBytes   int64
	generation func(*S) int64 // the generation a snapshot was loaded at
	sizeBytes  func(*S) int64 // a snapshot's accounted size
	clock      atomic.Uint64

	mu      sync.Mutex
	entries map[K]*genEntry[S]
	bytes   int64 // sum of the entries' bytes
}

type genEntry[S any] struct {
	refresh sync.Mutex // one reload per entry at a time
	snap    atomic.Pointer[S]
	lastUse atomic.Uint64
	bytes   int64 // accounted size; guarded by genCache.mu
}

func newGenCache[K comparable, S any](maxBytes int64, generation, sizeBytes func(*S) int64) *genCache[K, S] {
	return &genCache[K, S]{maxBytes: maxBytes, generation: generation, sizeBytes: sizeBytes, entries: make(map[K]*genEntry[S])}
}

// get returns key's cached snapshot when it was loaded at generation gen or later. Otherwise it
// calls load with the stale snapshot (nil when there is none), so that load can refresh it
// incrementally, caches the result when it fits and returns it.
func (c *genCache[K, S]) get(key K, gen int64, load func(old *S) (*S, error)) (*S, error) {
	e := c.entry(key)
	e.lastUse.Store(c.clock.Add(1))
	if s := e.snap.Load(); s != nil && c.generation(s) >= gen {
		return s, nil
	}
	e.refresh.Lock()
	defer e.refresh.Unlock()
	old := e.snap.Load()
	if old != nil && c.generation(old) >= gen {
		return old, nil // reloaded by another caller meanwhile
	}
	s, err := load(old)
	if err != nil {
		return nil, err
	}
	c.publish(key, e, s)
	return s, nil
}

// collect calls fn, which returns a snapshot of key loaded on the side (a query that collects
// one as it runs), when key has no snapshot cached and no reload in progress, holding the
// reload lock meanwhile so that callers of get for key wait for it and then share the result;
// it caches fn's snapshot (nil: none). ran is false, and fn not called, otherwise.
func (c *genCache[K, S]) collect(key K, fn func() (*S, error)) (ran bool, err error) {
	e := c.entry(key)
	e.lastUse.Store(c.clock.Add(1))
	if e.snap.Load() != nil || !e.refresh.TryLock() {
		return false, nil
	}
	defer e.refresh.Unlock()
	if e.snap.Load() != nil {
		return false, nil // loaded by another caller meanwhile
	}
	s, err := fn()
	if err == nil && s != nil {
		c.publish(key, e, s)
	}
	return true, err
}

// entry returns key's entry, creating an empty one.
func (c *genCache[K, S]) entry(key K) *genEntry[S] {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil {
		e = &genEntry[S]{}
		c.entries[key] = e
	}
	return e
}

// peek returns key's cached snapshot, whatever its generation (nil when there is none), without
// waiting for a reload in progress.
func (c *genCache[K, S]) peek(key K) *S {
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e == nil {
		return nil
	}
	e.lastUse.Store(c.clock.Add(1))
	return e.snap.Load()
}

// offer caches s, loaded by a caller on its own, when it is newer than key's cached snapshot.
// It never waits for a reload in progress (which may publish an older snapshot afterwards; the
// next caller then reloads).
func (c *genCache[K, S]) offer(key K, s *S) {
	e := c.entry(key)
	if old := e.snap.Load(); old != nil && c.generation(old) >= c.generation(s) {
		return
	}
	c.publish(key, e, s)
}

// publish stores s in e when it fits, then evicts least-recently-used entries other than e
// until the cache is within its bound.
func (c *genCache[K, S]) publish(key K, e *genEntry[S], s *S) {
	size := c.sizeBytes(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.maxBytes {
		e.snap.Store(nil)
		c.bytes -= e.bytes
		e.bytes = 0
		delete(c.entries, key)
		return
	}
	e.snap.Store(s)
	c.bytes += size - e.bytes
	e.bytes = size
	for c.bytes > c.maxBytes {
		var victimKey K
		var victim *genEntry[S]
		for k, v := range c.entries {
			if v != e && v.bytes > 0 && (victim == nil || v.lastUse.Load() < victim.lastUse.Load()) {
				victimKey, victim = k, v
			}
		}
		if victim == nil {
			return
		}
		c.bytes -= victim.bytes
		victim.bytes = 0
		victim.snap.Store(nil)
		delete(c.entries, victimKey)
	}
}
