package parallel_test

import (
	"fmt"
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
