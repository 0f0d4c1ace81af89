package blevebench

import (
	"math"
	"slices"
	"sort"
	"time"
)

// NDCG is nDCG@k of ranked against graded judgements, with gain 2^rel - 1 and the ideal
// ranking taken from all judged documents (the definition of search/quality_test.go).
func NDCG(ranked []string, judged map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(k, len(ranked))] {
		dcg += gain(judged[id]) / math.Log2(float64(i+2))
	}
	grades := make([]int, 0, len(judged))
	for _, g := range judged {
		grades = append(grades, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	ideal := 0.0
	for i, g := range grades[:min(k, len(grades))] {
		ideal += gain(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

func gain(rel int) float64 { return math.Pow(2, float64(rel)) - 1 }

// Recall is the fraction of the relevant (grade > 0) documents found in the first k of ranked.
func Recall(ranked []string, judged map[string]int, k int) float64 {
	relevant, found := 0, 0
	for _, g := range judged {
		if g > 0 {
			relevant++
		}
	}
	for _, id := range ranked[:min(k, len(ranked))] {
		if judged[id] > 0 {
			found++
		}
	}
	if relevant == 0 {
		return 0
	}
	return float64(found) / float64(relevant)
}

// Percentile returns the p-th percentile (0 < p <= 100, nearest rank) of ds, which it sorts.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(math.Ceil(p / 100 * float64(len(ds))))
	return ds[min(max(rank, 1), len(ds))-1]
}
