package fileio

// SetGrepParallelBytes sets the least content of a fetched group that Grep matches on all
// CPUs (0: every group; math.MaxInt: none) and returns the function that restores it.
func SetGrepParallelBytes(n int) (restore func()) {
	was := grepParallelBytes
	grepParallelBytes = n
	return func() { grepParallelBytes = was }
}
