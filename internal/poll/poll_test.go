package poll

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Minute, "third call", func() (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Until = %v after %d calls, want nil after 3", err, calls)
	}

	err = Until(context.Background(), 0, "never", func() (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "never: not true after") {
		t.Fatalf("Until timeout = %v, want a timeout naming the condition", err)
	}

	stop := errors.New("stop")
	if err := Until(context.Background(), time.Minute, "x", func() (bool, error) { return false, stop }); !errors.Is(err, stop) {
		t.Fatalf("Until = %v, want the condition's error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Until(ctx, time.Minute, "x", func() (bool, error) { return false, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Until on a canceled context = %v, want context.Canceled", err)
	}
}
