package quality

import (
	"math"
	"sort"
)

// Scored is one retrieved document with its score.
type Scored struct {
	DocID string
	Score float64
}

// Run is a system's ranked answer to each topic, by topic ID.
type Run map[string][]Scored

// Metrics are the trec_eval measures this harness reports, averaged over topics.
type Metrics struct {
	NDCG10 float64 // ndcg_cut_10: graded gains (the grade itself), log2 discount, ideal from all judgements
	MAP    float64 // map: average precision over the whole depth, relevant = grade >= 1
	P10    float64 // P_10
	R100   float64 // recall_100
}

// Depth is trec_eval's default evaluation depth: ranks beyond it are ignored.
const Depth = 1000

// rank orders a topic's results as trec_eval does: by score, highest first; equal scores by
// document ID in decreasing order (trec_eval compares docnos with strcmp, b before a); only the
// first Depth count. The ordering a system returned is not used, only its scores, so that two
// systems that tie documents cannot differ by an arbitrary internal order.
func rank(results []Scored) []string {
	rs := append([]Scored(nil), results...)
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].DocID > rs[j].DocID
	})
	seen := make(map[string]bool, len(rs))
	ids := make([]string, 0, min(len(rs), Depth))
	for _, r := range rs {
		if len(ids) == Depth {
			break
		}
		if !seen[r.DocID] {
			seen[r.DocID] = true
			ids = append(ids, r.DocID)
		}
	}
	return ids
}

// TopicMetrics computes the measures of one ranked topic.
func TopicMetrics(results []Scored, qrels map[string]int) Metrics {
	ranked := rank(results)
	relevant := 0
	grades := make([]int, 0, len(qrels))
	for _, g := range qrels {
		if g > 0 {
			relevant++
			grades = append(grades, g)
		}
	}
	if relevant == 0 {
		return Metrics{}
	}
	var m Metrics
	found, sumPrec := 0, 0.0
	dcg := 0.0
	for i, id := range ranked {
		g := qrels[id]
		if i < 10 {
			dcg += float64(max(g, 0)) / math.Log2(float64(i+2))
		}
		if g > 0 {
			found++
			sumPrec += float64(found) / float64(i+1)
			if i < 10 {
				m.P10++
			}
			if i < 100 {
				m.R100++
			}
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	ideal := 0.0
	for i, g := range grades[:min(10, len(grades))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	m.NDCG10 = dcg / ideal
	m.MAP = sumPrec / float64(relevant)
	m.P10 /= 10
	m.R100 /= float64(relevant)
	return m
}

// Evaluate averages the measures of run over topics; a topic the run has no answer for scores 0.
// It also returns the per-topic values, in the order of topics, for significance tests.
func Evaluate(run Run, topics []Topic) (Metrics, []Metrics) {
	per := make([]Metrics, len(topics))
	var mean Metrics
	for i, t := range topics {
		per[i] = TopicMetrics(run[t.ID], t.Qrels)
		mean.NDCG10 += per[i].NDCG10
		mean.MAP += per[i].MAP
		mean.P10 += per[i].P10
		mean.R100 += per[i].R100
	}
	n := float64(len(topics))
	mean.NDCG10 /= n
	mean.MAP /= n
	mean.P10 /= n
	mean.R100 /= n
	return mean, per
}

// PairedT returns the t statistic of a paired t-test of a against b (mean difference over its
// standard error); |t| above about 2 means the difference is unlikely to be chance at the 5%
// level for the topic counts used here.
func PairedT(a, b []float64) float64 {
	n := float64(len(a))
	if n < 2 {
		return 0
	}
	mean := 0.0
	for i := range a {
		mean += a[i] - b[i]
	}
	mean /= n
	ss := 0.0
	for i := range a {
		d := a[i] - b[i] - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / (n - 1))
	if sd == 0 {
		return 0
	}
	return mean / (sd / math.Sqrt(n))
}
