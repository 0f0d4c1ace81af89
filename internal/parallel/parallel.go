// Package parallel runs independent pieces of one computation on the CPUs that are free.
//
// # Use
//
// For calls a function for each index of a slice of work and returns when every call has
// returned; the caller keeps each call's result in its own slot and merges them in index order
// afterwards, so the outcome is the same as a serial loop's.
//
// # Fairness
//
// The calling goroutine always works; helpers join it only while the process has fewer than
// GOMAXPROCS-1 helpers running in all, so that concurrent calls (one tenant's grep beside
// another tenant's) do not multiply the goroutines that compete for the CPUs: an idle machine
// gives one call all of them, a busy one runs each call on its own goroutine.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// helpers holds a token for each helper goroutine running in the process, at most
// GOMAXPROCS (as the process started) - 1.
var helpers = make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0))

// For calls do(i) once for each i in [0, n), on the calling goroutine and on as many free
// helpers as there are CPUs left (see the package doc), in no particular order, and returns
// when all calls have returned. do must be safe to call concurrently for different i.
func For(n int, do func(i int)) {
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			do(i)
		}
	}
	var wg sync.WaitGroup
spawn:
	for range min(runtime.GOMAXPROCS(0), n) - 1 {
		select {
		case helpers <- struct{}{}:
			wg.Add(1)
			go func() {
				defer func() {
					<-helpers
					wg.Done()
				}()
				work()
			}()
		default: // every helper is busy
			break spawn
		}
	}
	work()
	wg.Wait()
}
