// Package parallel runs independent pieces of one computation on all CPUs.
//
// # Use
//
// For calls a function for each index of a slice of work on up to GOMAXPROCS goroutines and
// returns when every call has returned; the caller keeps each call's result in its own slot
// and merges them in index order afterwards, so the outcome is the same as a serial loop's.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls do(i) once for each i in [0, n), on at most GOMAXPROCS goroutines (the calling one
// among them), in no particular order, and returns when all calls have returned. do must be
// safe to call concurrently for different i.
func For(n int, do func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			do(i)
		}
		return
	}
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
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}
