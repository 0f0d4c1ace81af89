//go:build race

package searchtools_test

// raceSlowdown scales time ceilings: the race detector makes decoding and validating a 700 KB
// request about ten times slower. The 1 s bound is checked without it.
const raceSlowdown = 10
