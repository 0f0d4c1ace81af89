package keyedslots

import "context"

// Gate bounds calls per key and over all keys: a call takes one of its key's slots, then one
// of the total, so that one key's calls wait among themselves and never hold more than their
// share of the total. The zero value is not usable; see NewGate. It is safe for concurrent use.
type Gate struct {
	perKey *Slots
	total  chan struct{}
}

// NewGate returns a Gate of perKey slots per key and total slots in all (each at least 1).
func NewGate(perKey, total int) *Gate {
	return &Gate{perKey: New(perKey), total: make(chan struct{}, max(total, 1))}
}

// PerKey and Total are the Gate's bounds.
func (g *Gate) PerKey() int { return g.perKey.perKey }
func (g *Gate) Total() int  { return cap(g.total) }

// Acquire waits for one of key's slots and then for one of the total, in arrival order, at
// most until ctx ends, and returns the function that frees both. When ctx ends first it
// returns ctx's error, and all says that the wait ended for the total (false: for key's own
// slots).
func (g *Gate) Acquire(ctx context.Context, key string) (release func(), all bool, err error) {
	releaseKey, err := g.perKey.Acquire(ctx, key)
	if err != nil {
		return nil, false, err
	}
	select {
	case g.total <- struct{}{}:
		return func() { <-g.total; releaseKey() }, false, nil
	case <-ctx.Done():
		releaseKey()
		return nil, true, ctx.Err()
	}
}

// TryAcquire takes one of key's slots and one of the total if both are free, without waiting;
// ok is false, nothing taken and all saying which was busy, otherwise.
func (g *Gate) TryAcquire(key string) (release func(), all, ok bool) {
	releaseKey, ok := g.perKey.TryAcquire(key)
	if !ok {
		return nil, false, false
	}
	select {
	case g.total <- struct{}{}:
		return func() { <-g.total; releaseKey() }, false, true
	default:
		releaseKey()
		return nil, true, false
	}
}
