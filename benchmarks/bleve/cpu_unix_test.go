//go:build unix

package blevebench

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time this process has used so far, all goroutines
// included (bleve analyses a batch on several goroutines; memindex.ReplaceFile runs on the
// caller's).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
