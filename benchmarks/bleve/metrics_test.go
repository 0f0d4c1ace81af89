package blevebench

import (
	"math"
	"testing"
	"time"
)

func TestMetrics(t *testing.T) {
	judged := map[string]int{"a": 2, "b": 1, "z": 1}
	tests := []struct {
		name           string
		ranked         []string
		ndcg10, recall float64
	}{
		{"ideal", []string{"a", "b", "z"}, 1, 1},
		{"nothing relevant", []string{"x", "y"}, 0, 0},
		{"empty", nil, 0, 0},
		// DCG = 1/log2(2) + 3/log2(4); IDCG = 3/log2(2) + 1/log2(3) + 1/log2(4).
		{"swapped and one missing", []string{"b", "x", "a"}, 2.5 / (3.5 + 1/math.Log2(3)), 2.0 / 3},
	}
	for _, tc := range tests {
		if got := NDCG(tc.ranked, judged, 10); math.Abs(got-tc.ndcg10) > 1e-12 {
			t.Errorf("%s: NDCG = %v, want %v", tc.name, got, tc.ndcg10)
		}
		if got := Recall(tc.ranked, judged, 20); math.Abs(got-tc.recall) > 1e-12 {
			t.Errorf("%s: Recall = %v, want %v", tc.name, got, tc.recall)
		}
	}
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for p, want := range map[float64]time.Duration{50: 5, 95: 10, 10: 1, 100: 10} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", p, got, want)
		}
	}
}
