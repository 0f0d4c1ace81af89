package parallel_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles/internal/parallel"
	"github.com/google/go-cmp/cmp"
)

func TestFor(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		got := make([]int, n)
		parallel.For(n, func(i int) { got[i] += i * i })
		want := make([]int, n)
		for i := range want {
			want[i] = i * i
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("For(%d) (-want +got):\n%s", n, diff)
		}
	}
}

func ExampleFor() {
	squares := make([]int, 5)
	parallel.For(len(squares), func(i int) { squares[i] = i * i })
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}

// TestForConcurrent runs many For calls at once, more than there are helpers: each still
// does all its work (on its own goroutine when no helper is free).
func TestForConcurrent(t *testing.T) {
	const calls, n = 16, 500
	sums := make([]int, calls)
	var wg sync.WaitGroup
	for c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]int, n)
			parallel.For(n, func(i int) { got[i] = i })
			for _, v := range got {
				sums[c] += v
			}
		}()
	}
	wg.Wait()
	want := make([]int, calls)
	for c := range want {
		want[c] = n * (n - 1) / 2
	}
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("sums (-want +got):\n%s", diff)
	}
}
