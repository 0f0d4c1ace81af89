package memwatch_test

import (
	"runtime"
	"testing"

	"github.com/agentfiles/agentfiles/internal/memwatch"
)

// TestWatchSeesAnAllocation: 16 MiB held while the watch runs are in its peak, and the peak of
// a quiet process is far below it.
func TestWatchSeesAnAllocation(t *testing.T) {
	runtime.GC()
	quiet := memwatch.Start()
	for range 4 {
		runtime.Gosched()
	}
	base := quiet.Stop()
	w := memwatch.Start()
	held := make([]byte, 16<<20)
	for i := range held {
		held[i] = byte(i)
	}
	peak := w.Stop()
	runtime.KeepAlive(held)
	if peak < 16<<20 || peak < base {
		t.Errorf("peak %d bytes with 16 MiB held (quiet: %d)", peak, base)
	}
}
