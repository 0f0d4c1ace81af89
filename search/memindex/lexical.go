package memindex

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// Lexical implements indexdriver.Index. It walks the postings of each query term, accumulating
// BM25 scores per slot in a reusable buffer; a posting is live when its slot is (see posting),
// so the walk reads only the postings and one small array.
func (ix *Index) Lexical(ctx context.Context, scope driver.Scope, q indexdriver.LexicalQuery) (indexdriver.LexicalResult, error) {
	if err := ctx.Err(); err != nil {
		return indexdriver.LexicalResult{}, err
	}
	res := indexdriver.LexicalResult{DocFreq: make([]int64, len(q.Terms))}
	p := ix.get(scope)
	if p == nil {
		return res, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	res.Stats = p.stats
	filter := p.filter(q.PathPrefix, q.ExcludePaths)
	sp := p.lexScratch()
	defer p.lexPool.Put(sp)
	scores, touched := sp.scores, sp.touched[:0]
	meta := p.meta
	for ti, term := range q.Terms {
		pl := p.postings[term]
		if pl == nil {
			continue
		}
		df := int64(pl.size() - pl.dead)
		res.DocFreq[ti] = df
		w := indexdriver.Weight(q.Weights, ti)
		if q.TopK <= 0 || !(w > 0) {
			continue // document frequency only: nothing to rank, or the term scores nothing
		}
		scorer := q.BM25.Scorer(df, p.stats).Weighted(w)
		for _, e := range pl.narrow { // the same loop as below, on packed postings
			slot := int32(e >> 8)
			m := meta[slot]
			if m.chunkTerms < 0 || !filter.ok(slot) {
				continue
			}
			if scores[slot] == 0 {
				touched = append(touched, slot)
			}
			scores[slot] += scorer.Score(int(e&0xff), int(m.chunkTerms))
		}
		for _, e := range pl.wide {
			m := meta[e.slot]
			if m.chunkTerms < 0 || !filter.ok(e.slot) {
				continue
			}
			if scores[e.slot] == 0 {
				touched = append(touched, e.slot)
			}
			scores[e.slot] += scorer.Score(int(e.tf), int(m.chunkTerms))
		}
	}
	h := indexdriver.NewTopK[int32](q.TopK)
	for _, id := range touched {
		score := scores[id]
		scores[id] = 0
		if h.Wants(score) {
			h.Offer(p.ranked(id, score))
		}
	}
	sp.touched = touched
	res.Candidates = p.candidates(h.Sorted())
	return res, nil
}

// lexScratch is a query's reusable score buffer (one float per slot, zero between uses) and
// list of the slots it touched.
type lexScratch struct {
	scores  []float64
	touched []int32
}

func (p *project) lexScratch() *lexScratch {
	sp, _ := p.lexPool.Get().(*lexScratch)
	if sp == nil {
		sp = &lexScratch{}
	}
	if len(sp.scores) < len(p.slots) {
		sp.scores = make([]float64, len(p.slots)+len(p.slots)/4)
	}
	return sp
}
