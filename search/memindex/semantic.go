package memindex

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
)

// Semantic implements search.Index. Its results are exactly those of scoring every eligible
// chunk with search.Dot, in two passes:
//
//  1. a first pass over the tiles computes every eligible chunk's dot product over the query's
//     non-zero dimensions only, and keeps the TopK-th best such score;
//  2. every chunk whose first-pass score is within twice the rounding bound (vectorStore.slack)
//     of that score is re-scored with search.Dot, and the best TopK of those are returned.
//
// No chunk of the exact top TopK can be missed: each of the TopK best first-pass chunks has an
// exact score of at least (TopK-th first-pass score − slack), so every exact top-TopK chunk has
// a first-pass score of at least (TopK-th first-pass score − 2·slack).
func (ix *Index) Semantic(ctx context.Context, scope fileio.Scope, q search.SemanticQuery) ([]search.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := ix.get(scope)
	if p == nil || len(q.Vector) == 0 {
		return nil, nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	vs := p.vectors[vectorKey{q.Model, len(q.Vector)}]
	if vs == nil || q.TopK <= 0 {
		return []search.Candidate{}, nil
	}
	filter := p.filter(q.PathPrefix, q.ExcludePaths)
	var qNorm float64
	for _, x := range q.Vector {
		qNorm += float64(x) * float64(x)
	}
	slack := vs.slack(math.Sqrt(qNorm))

	sp := p.semScratch(vs.slots())
	defer p.semPool.Put(sp)
	first := sp.first
	threshold := math.Inf(-1)
	if !math.IsInf(slack, 1) {
		threshold = p.firstPass(vs, weights(q.Vector, vs.rows), filter, q.TopK, first) - 2*slack
	}

	// Second pass: exact scores for the chunks that can still make the top K.
	h := &topK{k: q.TopK, items: make([]search.Candidate, 0, min(q.TopK, 1024))}
	row := make([]float32, vs.dims)
	for w := range vs.slots() / 64 {
		for m := vs.liveWord(w) & filter.word(w); m != 0; m &= m - 1 {
			id := int32(w*64 + bits.TrailingZeros64(m))
			if float64(first[id]) < threshold {
				continue
			}
			score := float64(search.Dot(vs.row(id, row), q.Vector))
			if h.full() && score < h.items[0].Score {
				continue
			}
			h.offer(p.candidate(id, score))
		}
	}
	return h.sorted(), nil
}

// parallelScanChunks is the store size (in slots) from which the first pass is split across
// CPUs.
const parallelScanChunks = 16384

// firstPass writes the first-pass score of every eligible slot into first and returns the k-th
// best of them (-Inf when fewer than k slots are eligible).
func (p *project) firstPass(vs *vectorStore, w []weight, filter slotFilter, k int, first []float32) float64 {
	tiles := len(vs.tiles)
	parts := 1
	if vs.slots() >= parallelScanChunks {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	best := make([]floatHeap, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*tiles/parts, (i+1)*tiles/parts
		best[i] = floatHeap{k: k}
		scan := func() {
			acc := make([]float32, vs.rows)
			masks := make([]uint64, vs.rows/64)
			for t := lo; t < hi; t++ {
				used := uint64(0)
				for j := range masks {
					masks[j] = vs.liveWord(t*len(masks)+j) & filter.word(t*len(masks)+j)
					used |= masks[j]
				}
				if used == 0 {
					continue
				}
				tileDots(vs.tiles[t], w, acc)
				for j, m := range masks {
					for ; m != 0; m &= m - 1 {
						r := j*64 + bits.TrailingZeros64(m)
						first[t*vs.rows+r] = acc[r]
						best[i].offer(acc[r])
					}
				}
			}
		}
		if parts == 1 {
			scan()
			break
		}
		wg.Add(1)
		go func() { defer wg.Done(); scan() }()
	}
	wg.Wait()
	all := floatHeap{k: k}
	for _, b := range best {
		for _, x := range b.items {
			all.offer(x)
		}
	}
	if !all.full() {
		return math.Inf(-1)
	}
	return float64(all.items[0])
}

// semScratch is a query's reusable buffer of first-pass scores, one per slot.
type semScratch struct{ first []float32 }

func (p *project) semScratch(n int) *semScratch {
	sp, _ := p.semPool.Get().(*semScratch)
	if sp == nil || len(sp.first) < n {
		sp = &semScratch{first: make([]float32, n)}
	}
	return sp
}

// floatHeap keeps the k largest float32s in a min-heap (root: the smallest kept).
type floatHeap struct {
	k     int
	items []float32
}

func (h *floatHeap) full() bool { return len(h.items) >= h.k }

func (h *floatHeap) offer(x float32) {
	if len(h.items) < h.k {
		h.items = append(h.items, x)
		for i := len(h.items) - 1; i > 0; {
			parent := (i - 1) / 2
			if h.items[parent] <= h.items[i] {
				break
			}
			h.items[parent], h.items[i] = h.items[i], h.items[parent]
			i = parent
		}
		return
	}
	if !(x > h.items[0]) {
		return
	}
	h.items[0] = x
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h.items) && h.items[l] < h.items[small] {
			small = l
		}
		if r := l + 1; r < len(h.items) && h.items[r] < h.items[small] {
			small = r
		}
		if small == i {
			return
		}
		h.items[i], h.items[small] = h.items[small], h.items[i]
		i = small
	}
}
