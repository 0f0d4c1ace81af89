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
