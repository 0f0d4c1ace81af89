// Package memwatch measures the peak of a process's heap while something runs, for tests of
// memory bounds: it samples runtime/metrics' heap objects every half millisecond, which does
// not stop the world (runtime.ReadMemStats does), so the sampling itself does not bound what
// it measures.
package memwatch

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Every is the sampling period.
const Every = 500 * time.Microsecond

// Watch samples the heap until Stop.
type Watch struct {
	peak     atomic.Uint64
	done     chan struct{}
	finished chan struct{}
}

// Start starts sampling the bytes of the heap's objects (live, and dead ones not yet swept):
// call runtime.GC first to start from what is live.
func Start() *Watch {
	w := &Watch{done: make(chan struct{}), finished: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > w.peak.Load() {
			w.peak.Store(v)
		}
	}
	go func() {
		defer close(w.finished)
		tick := time.NewTicker(Every)
		defer tick.Stop()
		for {
			read()
			select {
			case <-w.done:
				read() // what is held when Stop is called counts too
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// Stop ends the sampling and returns the largest heap seen, in bytes.
func (w *Watch) Stop() uint64 {
	close(w.done)
	<-w.finished
	return w.peak.Load()
}
