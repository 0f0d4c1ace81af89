package indexdriver

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopK(t *testing.T) {
	entries := []Ranked[string]{
		{Score: 1, Path: "/b", Index: 0, Value: "b0"},
		{Score: 3, Path: "/z", Index: 5, Value: "z5"},
		{Score: 1, Path: "/a", Index: 2, Value: "a2"},
		{Score: 1, Path: "/a", Index: 1, Value: "a1"},
		{Score: 2, Path: "/c", Index: 0, Value: "c0"},
		{Score: 0.5, Path: "/0", Index: 0, Value: "00"},
	}
	tests := []struct {
		k    int
		want []string
	}{
		{0, []string{}},
		{-1, []string{}},
		{1, []string{"z5"}},
		{3, []string{"z5", "c0", "a1"}},       // among the three tied at 1, /a#1 ranks first
		{4, []string{"z5", "c0", "a1", "a2"}}, // then /a#2, then /b
		{10, []string{"z5", "c0", "a1", "a2", "b0", "00"}},
	}
	for _, tc := range tests {
		h := NewTopK[string](tc.k)
		for _, e := range entries {
			h.Offer(e)
		}
		got := []string{}
		for _, r := range h.Sorted() {
			got = append(got, r.Value)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("k=%d (-want +got):\n%s", tc.k, diff)
		}
	}
}

func TestTopKWants(t *testing.T) {
	tests := []struct {
		offer Ranked[int] // offered before asking
		score float64
		want  bool
	}{
		{Ranked[int]{}, 0, true}, // not full: anything
		{Ranked[int]{Score: 5, Path: "/a"}, -1, true},
		{Ranked[int]{Score: 3, Path: "/b"}, 3, true}, // full, ties the worst kept: may win on path
		{Ranked[int]{}, 2.9, false},
	}
	if NewTopK[int](0).Wants(100) {
		t.Error("a TopK keeping nothing wants an entry")
	}
	h := NewTopK[int](2)
	for i, tc := range tests {
		if tc.offer.Path != "" {
			h.Offer(tc.offer)
		}
		if got := h.Wants(tc.score); got != tc.want {
			t.Errorf("step %d: Wants(%v) = %v, want %v", i, tc.score, got, tc.want)
		}
	}
}

// TestTopKMatchesSort: for random entries with many ties, TopK keeps exactly the first k of a
// full sort in the Index order.
func TestTopKMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n, k := r.IntN(60), 1+r.IntN(20)
		all := make([]Ranked[int], n)
		h := NewTopK[int](k)
		for i := range all {
			all[i] = Ranked[int]{Score: float64(r.IntN(4)), Path: string(rune('a' + r.IntN(3))), Index: r.IntN(3), Value: i}
			if h.Wants(all[i].Score) {
				h.Offer(all[i])
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].before(&all[j]) })
		want := all[:min(k, n)]
		got := h.Sorted()
		key := func(rs []Ranked[int]) [][3]any {
			out := make([][3]any, len(rs))
			for i, x := range rs {
				out[i] = [3]any{x.Score, x.Path, x.Index}
			}
			return out
		}
		if diff := cmp.Diff(key(want), key(got)); diff != "" {
			t.Fatalf("round %d (n=%d k=%d) (-sort +TopK):\n%s", round, n, k, diff)
		}
	}
}
