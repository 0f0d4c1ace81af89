package testsize_test

import (
	"fmt"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

func TestIndices(t *testing.T) {
	tests := []struct {
		total, n int
		wantLen  int
	}{
		{10, 3, 3},
		{10, 10, 10},
		{10, 20, 10},
		{10, 0, 1},
		{1, 1, 1},
		{1000, 7, 7},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d of %d", tc.n, tc.total), func(t *testing.T) {
			got := testsize.Indices(tc.total, tc.n)
			if len(got) != tc.wantLen || got[0] != 0 {
				t.Fatalf("Indices(%d, %d) = %v: want %d indices starting with 0", tc.total, tc.n, got, tc.wantLen)
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] || got[i] >= tc.total {
					t.Fatalf("Indices(%d, %d) = %v: not increasing within [0, %d)", tc.total, tc.n, got, tc.total)
				}
			}
			if again := testsize.Indices(tc.total, tc.n); !cmp.Equal(got, again) {
				t.Errorf("Indices(%d, %d) = %v, then %v: the sample is not fixed", tc.total, tc.n, got, again)
			}
		})
	}
	if testsize.Indices(0, 3) != nil {
		t.Errorf("Indices(0, 3) is not empty")
	}
}

func TestSampleAndCount(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e", "f"}
	t.Setenv(testsize.EnvFull, "")
	if got := testsize.Sample(t, items, 2); len(got) != 2 || got[0] != "a" {
		t.Errorf("sampled: %v, want 2 items starting with a", got)
	}
	if got := testsize.Count(t, 100, 10); got != 10 {
		t.Errorf("Count sampled = %d, want 10", got)
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			got := testsize.Sample(t, items, 3)
			if again := testsize.Sample(t, items, 3); !cmp.Equal(got, again) {
				t.Errorf("one test sampled %v, then %v", got, again)
			}
		})
	}
	t.Setenv(testsize.EnvFull, "1")
	if !testsize.Full() {
		t.Fatalf("Full() = false with %s=1", testsize.EnvFull)
	}
	if diff := cmp.Diff(items, testsize.Sample(t, items, 2)); diff != "" {
		t.Errorf("full run (-want +got):\n%s", diff)
	}
	if got := testsize.Count(t, 100, 10); got != 100 {
		t.Errorf("Count full = %d, want 100", got)
	}
}

// The fixed sample of 3 of 8 seeds: the same on every run, the first always among them
// (testsize.Sample(t, seeds, 3) in a test returns these seeds, or all 8 with AGENTFILES_FULL=1).
func ExampleIndices() {
	seeds := []int64{1, 2, 3, 4, 5, 6, 7, 8}
	for _, i := range testsize.Indices(len(seeds), 3) {
		fmt.Println(seeds[i])
	}
	// Output:
	// 1
	// 2
	// 3
}
