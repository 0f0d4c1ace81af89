// Package testsize decides how much of a large test suite a run covers: all of it, or a sample
// chosen with a fixed seed.
//
// # The rule
//
// `go test ./...` must pass in minutes on a 2-core machine. The suites that check answers
// against a reference at scale (differential, fairness, quality and model suites) therefore
// run a fixed-seed sample by default, large enough that a broken engine still fails, and all
// of their cases when the environment variable AGENTFILES_FULL is 1:
//
//	AGENTFILES_FULL=1 go test ./...   # every case of every suite (the weekly run)
//
// A sampled run is reproducible: the same cases run every time, on every machine, so a failure
// seen once is seen again (the seed is fixed by the test's name, so the subtests of a table,
// such as one per store, sample different cases and cover more between them). A test that samples says so in its log (with -v), naming the
// variable that runs it in full.
//
// # Use
//
//	seeds := testsize.Sample(t, allSeeds, 3)         // 3 of them, the same 3 on every run
//	rounds := testsize.Count(t, 2_000, 200)          // 2,000 in full, 200 by default
//	if testsize.Full() { ... }                       // the weekly extras
//
// Tests of a time budget may use wall-clock bounds; every other test keeps the same answer on a
// loaded machine, whatever the size of the run.
package testsize
