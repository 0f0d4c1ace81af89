package search

import (
	"context"
	"sync"
	"time"
)

// TTLStore is a key-value store whose entries expire. The credential [Vault] keeps sealed
// envelopes in one: [MemTTLStore] in a single process, a Redis-backed store across processes.
// Implementations must be safe for concurrent use.
type TTLStore interface {
	// Put stores value under key for ttl, replacing any previous value.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value and true, or false when the key is missing or expired.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Delete removes the key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// MemTTLStore is an in-memory [TTLStore]. Expired entries are invisible at once and reclaimed
// on later writes. It is safe for concurrent use.
type MemTTLStore struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[string]memTTLEntry
	puts    int
}

type memTTLEntry struct {
	value   []byte
	expires time.Time
}

// NewMemTTLStore returns an empty store. now is the clock (nil: time.Now).
func NewMemTTLStore(now func() time.Time) *MemTTLStore {
	if now == nil {
		now = time.Now
	}
	return &MemTTLStore{now: now, entries: make(map[string]memTTLEntry)}
}

// Put implements TTLStore.
func (m *MemTTLStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.puts++
	if m.puts%64 == 0 {
		for k, e := range m.entries {
			if !now.Before(e.expires) {
				delete(m.entries, k)
			}
		}
	}
	m.entries[key] = memTTLEntry{value: append([]byte(nil), value...), expires: now.Add(ttl)}
	return nil
}

// Get implements TTLStore.
func (m *MemTTLStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || !m.now().Before(e.expires) {
		return nil, false, nil
	}
	return append([]byte(nil), e.value...), true, nil
}

// Delete implements TTLStore.
func (m *MemTTLStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
	return nil
}

// Len returns the number of unexpired entries.
func (m *MemTTLStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	n := 0
	for _, e := range m.entries {
		if now.Before(e.expires) {
			n++
		}
	}
	return n
}
