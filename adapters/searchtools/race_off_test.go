//go:build !race

package searchtools_test

// raceSlowdown scales time ceilings (see race_on_test.go).
const raceSlowdown = 1
