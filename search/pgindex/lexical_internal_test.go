package pgindex

import (
	"sort"
	"testing"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
)

// TestScoreBest checks the merge of per-term postings: every chunk's score is the sum over the
// terms in query order, the result keeps exactly the chunks at or above the k-th best score
// (ties included), and unsorted input arrays give the same answer as sorted ones.
func TestScoreBest(t *testing.T) {
	bm := indexdriver.DefaultBM25()
	stats := indexdriver.CorpusStats{Chunks: 10, TotalTerms: 100}
	scorers := []indexdriver.TermScorer{bm.Scorer(3, stats), bm.Scorer(5, stats)}
	p := func(tf, dl int64) int64 { return tf<<32 | dl }
	sorted := []termPostings{
		{ids: []int64{1, 4, 7}, packed: []int64{p(1, 10), p(2, 10), p(1, 10)}},
		{ids: []int64{2, 4, 7, 9}, packed: []int64{p(1, 10), p(1, 10), p(1, 10), p(3, 5)}},
	}
	s0 := func(tf, dl int) float64 { return scorers[0].Score(tf, dl) }
	s1 := func(tf, dl int) float64 { return scorers[1].Score(tf, dl) }
	all := map[int64]float64{1: s0(1, 10), 2: s1(1, 10), 4: s0(2, 10) + s1(1, 10), 7: s0(1, 10) + s1(1, 10), 9: s1(3, 5)}
	// want(k): the chunks scoring at least the k-th best of all, computed independently.
	wantFor := func(k int) map[int64]float64 {
		scores := make([]float64, 0, len(all))
		for _, v := range all {
			scores = append(scores, v)
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
		out := map[int64]float64{}
		for id, v := range all {
			if k >= len(scores) || v >= scores[k-1] {
				out[id] = v
			}
		}
		return out
	}
	unsorted := []termPostings{
		{ids: []int64{7, 1, 4}, packed: []int64{p(1, 10), p(1, 10), p(2, 10)}},
		{ids: []int64{9, 4, 2, 7}, packed: []int64{p(3, 5), p(1, 10), p(1, 10), p(1, 10)}},
	}
	for _, k := range []int{1, 2, 3, 5, 50} {
		for name, lists := range map[string][]termPostings{"sorted": sorted, "unsorted": unsorted} {
			in := make([]termPostings, len(lists))
			for i, l := range lists {
				in[i] = termPostings{ids: append([]int64(nil), l.ids...), packed: append([]int64(nil), l.packed...)}
			}
			got := map[int64]float64{}
			for _, c := range scoreBest(in, scorers, k) {
				got[c.id] = c.score
			}
			if diff := cmp.Diff(wantFor(k), got); diff != "" {
				t.Errorf("%s k=%d (-want +got):\n%s", name, k, diff)
			}
		}
	}
	// Two chunks tied at the k-th score are both kept.
	tied := []termPostings{{ids: []int64{1, 2, 3}, packed: []int64{p(2, 10), p(1, 10), p(1, 10)}}}
	if got := scoreBest(tied, scorers[:1], 2); len(got) != 3 {
		t.Errorf("ties at the 2nd score: kept %d chunks, want 3", len(got))
	}
}
