package vault

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// TTLStore is a key-value store whose entries expire. A [Vault] keeps its sealed envelopes in
// one: in memory by default (one process), in Redis with vault/redisttl (across processes).
// Implementations must be safe for concurrent use.
type TTLStore interface {
	// Put stores value under key for ttl, replacing any previous value.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Get returns the value and true, or false when the key is missing or expired.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Delete removes the key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// ConditionalDeleter is implemented by TTL stores that can delete an entry only while it holds a
// given value, in one atomic step (vault/redisttl does). The Vault uses it so that finishing
// with an envelope never deletes a newer one sealed for the same file; with other stores it
// reads the entry first, which leaves a short window for that race.
type ConditionalDeleter interface {
	// DeleteIfEqual deletes key if its value is value; otherwise, or when it is missing, it does
	// nothing and returns nil.
	DeleteIfEqual(ctx context.Context, key string, value []byte) error
}

var _ ConditionalDeleter = (*memTTLStore)(nil)

// memTTLStore is the in-memory TTLStore a Vault uses without Options.Store. Expired entries are
// invisible at once and reclaimed on later writes. It is safe for concurrent use.
type memTTLStore struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[string]memTTLEntry
	puts    int
}

type memTTLEntry struct {
	value   []byte
	expires time.Time
}

// newMemTTLStore returns an empty store reading the clock now.
func newMemTTLStore(now func() time.Time) *memTTLStore {
	return &memTTLStore{now: now, entries: make(map[string]memTTLEntry)}
}

// Put implements TTLStore.
func (m *memTTLStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
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
func (m *memTTLStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
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
func (m *memTTLStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.entries, key)
	m.mu.Unlock()
	return nil
}

// DeleteIfEqual implements ConditionalDeleter.
func (m *memTTLStore) DeleteIfEqual(ctx context.Context, key string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[key]; ok && bytes.Equal(e.value, value) {
		delete(m.entries, key)
	}
	return nil
}

// len counts the entries that have not expired (for tests).
func (m *memTTLStore) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, e := range m.entries {
		if m.now().Before(e.expires) {
			n++
		}
	}
	return n
}
