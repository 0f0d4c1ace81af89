package keyedslots

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSlots: a tenant holds at most perTenant slots; a waiter gives up with its context;
// other keys are not affected; the map forgets keys with no calls.
func TestSlots(t *testing.T) {
	slots := New(1)
	ctx := context.Background()
	releaseA, err := slots.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := slots.Acquire(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second call of a: %v, want the context's deadline", err)
	}
	releaseB, err := slots.Acquire(ctx, "b")
	if err != nil {
		t.Fatalf("b while a is busy: %v", err)
	}
	got := make(chan error, 1)
	go func() {
		release, err := slots.Acquire(ctx, "a")
		if err == nil {
			release()
		}
		got <- err
	}()
	releaseA()
	if err := <-got; err != nil {
		t.Errorf("a after its slot was freed: %v", err)
	}
	releaseB()
	slots.mu.Lock()
	defer slots.mu.Unlock()
	if len(slots.busy) != 0 {
		t.Errorf("%d keys still tracked with no calls", len(slots.busy))
	}
}

// TestTryAcquire: a key's free slots are taken at once, a busy key is refused without waiting
// and without touching other keys, and a released slot can be taken again.
func TestTryAcquire(t *testing.T) {
	slots := New(2)
	var releases []func()
	for i := range 2 {
		release, ok := slots.TryAcquire("a")
		if !ok {
			t.Fatalf("slot %d of a: refused", i)
		}
		releases = append(releases, release)
	}
	if _, ok := slots.TryAcquire("a"); ok {
		t.Errorf("a third slot of a was taken")
	}
	releaseB, ok := slots.TryAcquire("b")
	if !ok {
		t.Errorf("b refused while a is busy")
	}
	releases[0]()
	release, ok := slots.TryAcquire("a")
	if !ok {
		t.Errorf("a refused after one of its slots was freed")
	}
	release()
	releases[1]()
	releaseB()
	slots.mu.Lock()
	defer slots.mu.Unlock()
	if len(slots.busy) != 0 {
		t.Errorf("%d keys still tracked with no calls", len(slots.busy))
	}
}

// TestGate: a key past its own slots waits (or is refused) for them, not for the total; a key
// within its slots waits (or is refused) for the total when the others hold it all.
func TestGate(t *testing.T) {
	g := NewGate(1, 2)
	ctx := context.Background()
	releaseA, _, err := g.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, all, err := g.Acquire(short, "a"); !errors.Is(err, context.DeadlineExceeded) || all {
		t.Errorf("a second call of a: all %v, %v; want its own slots' wait to end", all, err)
	}
	if _, all, ok := g.TryAcquire("a"); ok || all {
		t.Errorf("TryAcquire of a busy a: ok %v, all %v; want refused for its own slots", ok, all)
	}
	releaseB, _, ok := g.TryAcquire("b")
	if !ok {
		t.Fatal("b refused with a slot of the total free")
	}
	short2, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	if _, all, err := g.Acquire(short2, "c"); !errors.Is(err, context.DeadlineExceeded) || !all {
		t.Errorf("c with the total held by a and b: all %v, %v; want the total's wait to end", all, err)
	}
	if _, all, ok := g.TryAcquire("c"); ok || !all {
		t.Errorf("TryAcquire of c with the total held: ok %v, all %v; want refused for the total", ok, all)
	}
	releaseA()
	releaseC, _, ok := g.TryAcquire("c")
	if !ok {
		t.Errorf("c refused after a left")
	} else {
		releaseC()
	}
	releaseB()
	if got := len(g.total); got != 0 {
		t.Errorf("%d slots of the total still held", got)
	}
}
