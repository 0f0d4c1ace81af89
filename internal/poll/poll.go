// Package poll waits for a condition by checking it repeatedly until a deadline, the one way
// agentfiles' tests and test servers wait for something to happen (no fixed sleeps).
package poll

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Interval bounds: polling starts fast and backs off, so a condition that holds soon is seen
// soon and a slow one does not spin.
const (
	firstInterval = time.Millisecond
	maxInterval   = 50 * time.Millisecond
)

// Until calls cond until it returns true, timeout passes or ctx ends. It returns nil once cond
// holds, ctx's error if ctx ended, and otherwise an error that says what did not happen; a cond
// that returns an error stops the wait with that error.
func Until(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	interval := firstInterval
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not true after %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
		interval = min(2*interval, maxInterval)
	}
}

// Eventually is Until for tests: it fails t when cond does not hold within timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Until(context.Background(), timeout, what, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatal(err)
	}
}
