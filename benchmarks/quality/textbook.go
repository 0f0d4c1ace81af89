package quality

import "math"

// Textbook is the reference BM25 of ../shared/ir/README.md, written independently of package
// search: idf = ln(1 + (N − df + 0.5)/(df + 0.5)); a term scores idf · tf·(k1+1) /
// (tf + k1·(1 − b + b·dl/avgdl)); a document scores the sum over the distinct query terms. It
// takes its terms from the same analyzer as the system under test, so that the comparison
// isolates scoring.
type Textbook struct {
	K1, B    float64
	analyze  func(string) []string
	postings map[string][]posting
	docLen   []int
	ids      []string
	avgdl    float64
}

type posting struct {
	doc int
	tf  int
}

// NewTextbook indexes docs with analyze.
func NewTextbook(docs []Doc, analyze func(string) []string, k1, b float64) *Textbook {
	t := &Textbook{K1: k1, B: b, analyze: analyze, postings: map[string][]posting{}}
	total := 0
	for i, d := range docs {
		terms := analyze(d.Text)
		tf := map[string]int{}
		for _, term := range terms {
			tf[term]++
		}
		for term, n := range tf {
			t.postings[term] = append(t.postings[term], posting{i, n})
		}
		t.docLen = append(t.docLen, len(terms))
		t.ids = append(t.ids, d.ID)
		total += len(terms)
	}
	t.avgdl = float64(total) / float64(len(docs))
	return t
}

// Search scores every document that shares a term with the query.
func (t *Textbook) Search(query string) []Scored {
	n := float64(len(t.ids))
	scores := map[int]float64{}
	seen := map[string]bool{}
	for _, term := range t.analyze(query) {
		if seen[term] {
			continue
		}
		seen[term] = true
		ps := t.postings[term]
		df := float64(len(ps))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := t.K1 * (1 - t.B + t.B*float64(t.docLen[p.doc])/t.avgdl)
			scores[p.doc] += idf * tf * (t.K1 + 1) / (tf + norm)
		}
	}
	out := make([]Scored, 0, len(scores))
	for d, s := range scores {
		out = append(out, Scored{DocID: t.ids[d], Score: s})
	}
	return out
}
