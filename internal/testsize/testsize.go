package testsize

import (
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// EnvFull names the environment variable that makes the sampled suites run in full: "1" runs
// every case (as benchmarks/quality reads it too).
const EnvFull = "AGENTFILES_FULL"

// seed is the fixed seed of every sample: the same cases run on every run and machine.
const seed = 42

// Full reports whether the suites run in full (AGENTFILES_FULL=1).
func Full() bool { return os.Getenv(EnvFull) == "1" }

// Count returns full when the suites run in full and sampled otherwise, and logs the choice
// on tb when the two differ.
func Count(tb testing.TB, full, sampled int) int {
	tb.Helper()
	if Full() || sampled >= full {
		return full
	}
	tb.Logf("testsize: %d of %d (%s=1 runs all)", sampled, full, EnvFull)
	return sampled
}

// Sample returns every item when the suites run in full, otherwise n of them in their original
// order, and logs the choice on tb. The choice depends only on tb's name, len(items) and n: the
// same test samples the same items on every run and machine, and two subtests of one table
// sample different ones. The first item is always kept (suites put their basic case first);
// n < 1 keeps one.
func Sample[T any](tb testing.TB, items []T, n int) []T {
	tb.Helper()
	if Full() || n >= len(items) {
		return items
	}
	n = max(n, 1)
	keep := indices(len(items), n, nameSeed(tb.Name()))
	out := make([]T, 0, n)
	for _, i := range keep {
		out = append(out, items[i])
	}
	tb.Logf("testsize: %d of %d cases (%s=1 runs all)", n, len(items), EnvFull)
	return out
}

// Indices returns n distinct indices of [0, total) in increasing order, always 0 among them,
// chosen with a fixed seed: the same for the same total and n on every run. It does not look
// at AGENTFILES_FULL.
func Indices(total, n int) []int { return indices(total, n, 0) }

// nameSeed is the FNV-1a hash of a test's name.
func nameSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func indices(total, n int, salt uint64) []int {
	n = min(max(n, 1), total)
	if total <= 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(seed^salt, uint64(total)))
	rest := r.Perm(total - 1)[:n-1]
	out := []int{0}
	for _, i := range rest {
		out = append(out, i+1)
	}
	slices.Sort(out)
	return out
}
