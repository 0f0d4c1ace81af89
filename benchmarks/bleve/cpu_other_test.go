//go:build !unix

package blevebench

import "time"

// processCPU is not measured on this platform; the CPU metrics then read 0.
func processCPU() time.Duration { return 0 }
