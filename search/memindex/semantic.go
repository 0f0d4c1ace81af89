package memindex

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"sync"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/internal/int8vec"
)

// Semantic implements indexdriver.Index. Its results are exactly those of scoring every eligible
// chunk with indexdriver.Dot, in two passes:
//
//  1. a first pass over the tiles computes every eligible chunk's dot product over the query's
//     non-zero dimensions only, keeps the TopK best such scores, and collects the chunks that
//     are within twice the rounding bound (vectorStore.slack) of the TopK-th best so far;
//  2. the collected chunks still within that distance of the final TopK-th best first-pass
//     score are re-scored with indexdriver.Dot, and the best TopK of those are returned.
//
// No chunk of the exact top TopK can be missed: each of the TopK best first-pass chunks has an
// exact score of at least (TopK-th first-pass score − slack), so every exact top-TopK chunk has
// a first-pass score of at least (TopK-th first-pass score − 2·slack), and the TopK-th best so
// far never exceeds the final one.
func (ix *Index) Semantic(ctx context.Context, scope driver.Scope, q indexdriver.SemanticQuery) ([]indexdriver.Candidate, error) {
	p, err := ix.lookup(ctx, scope)
	if p == nil || len(q.Vector) == 0 {
		return nil, err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	vs := p.vectors[vectorKey{q.Model, len(q.Vector)}]
	if vs == nil || q.TopK <= 0 {
		return []indexdriver.Candidate{}, nil
	}
	var qNorm float64
	nz := 0
	for _, x := range q.Vector {
		qNorm += float64(x) * float64(x)
		if x != 0 {
			nz++
		}
	}
	slack := vs.slack(math.Sqrt(qNorm))
	if vs.exact() || (vs.codes != nil && 4*nz >= vs.dims && !math.IsInf(slack, 1)) {
		return p.candidates(p.semanticQuantized(vs, q, slack)), nil
	}
	fp := firstPass{
		vs: vs, w: weights(q.Vector, vs.rows), filter: p.filter(q.PathPrefix, q.ExcludePaths),
		k: q.TopK, margin: 2 * slack,
	}
	kth, near := fp.run()
	cut := kth - fp.margin
	if math.IsInf(fp.margin, 1) {
		cut = math.Inf(-1) // the bound is unusable: score every eligible chunk exactly
	}

	// Second pass: exact scores for the chunks that can still make the top K.
	h := indexdriver.NewTopK[int32](q.TopK)
	row := make([]float32, vs.dims)
	for _, c := range near {
		if float64(c.score) < cut {
			continue
		}
		if score := float64(indexdriver.Dot(vs.row(c.id, row), q.Vector)); h.Wants(score) {
			h.Offer(p.ranked(c.id, score))
		}
	}
	return p.candidates(h.Sorted()), nil
}

// semanticQuantized is Semantic's search through the int8 codes (see quantPass): chunks whose
// interval reaches the TopK-th best lower bound are re-scored with indexdriver.Dot.
func (p *project) semanticQuantized(vs *vectorStore, q indexdriver.SemanticQuery, slack float64) []indexdriver.Ranked[int32] {
	qp := quantPass{vs: vs, q: int8vec.NewQuery(q.Vector, vs.codes.stride), filter: p.filter(q.PathPrefix, q.ExcludePaths), k: q.TopK, slack: slack}
	var kth float64
	var near []interval
	if math.IsInf(slack, 1) {
		// The bound is unusable (an exact-codes store of vectors with enormous norms): score
		// every eligible chunk exactly.
		kth = math.Inf(-1)
		for w := range vs.live {
			for m := vs.liveWord(w) & qp.filter.word(w); m != 0; m &= m - 1 {
				near = append(near, interval{int32(w*64 + bits.TrailingZeros64(m)), math.Inf(1)})
			}
		}
	} else {
		kth, near = qp.run()
	}
	h := indexdriver.NewTopK[int32](q.TopK)
	row := make([]float32, vs.dims)
	for _, c := range near {
		if c.hi < kth {
			continue
		}
		if score := float64(indexdriver.Dot(vs.row(c.id, row), q.Vector)); h.Wants(score) {
			h.Offer(p.ranked(c.id, score))
		}
	}
	return h.Sorted()
}

// parallelScanChunks is the store size (in slots) from which the first pass is split across
// CPUs.
const parallelScanChunks = 16384

// firstPass is one query's approximate scan of a vector store.
type firstPass struct {
	vs     *vectorStore
	w      []weight
	filter slotFilter
	k      int
	margin float64 // twice the rounding bound; +Inf keeps every eligible chunk
}

// scored is a chunk's first-pass score.
type scored struct {
	id    int32
	score float32
}

// run returns the k-th best first-pass score (-Inf when fewer than k chunks are eligible) and
// every eligible chunk whose score was within margin of the k-th best at the time it was seen.
func (fp *firstPass) run() (kth float64, near []scored) {
	return scanInParts(len(fp.vs.tiles), fp.vs.slots(), fp.k, fp.scan)
}

// scanInParts runs scan over units [0, units) — in up to 8 concurrent parts when slots (the
// chunks those units hold) reach parallelScanChunks — and merges the parts: it returns the k-th
// best score of all (-Inf when fewer than k were offered) and every part's near candidates.
func scanInParts[F float32 | float64, N any](units, slots, k int, scan func(lo, hi int) (floatHeap[F], []N)) (kth float64, near []N) {
	parts := 1
	if slots >= parallelScanChunks {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	best := make([]floatHeap[F], parts)
	found := make([][]N, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*units/parts, (i+1)*units/parts
		if parts == 1 {
			best[i], found[i] = scan(lo, hi)
			break
		}
		wg.Add(1)
		go func() { defer wg.Done(); best[i], found[i] = scan(lo, hi) }()
	}
	wg.Wait()
	all := floatHeap[F]{k: k}
	for i := range best {
		for _, x := range best[i].items {
			all.offer(x)
		}
		near = append(near, found[i]...)
	}
	if !all.full() {
		return math.Inf(-1), near
	}
	return float64(all.items[0]), near
}

// scan runs the first pass over tiles [lo, hi).
func (fp *firstPass) scan(lo, hi int) (best floatHeap[float32], near []scored) {
	vs, keepAll := fp.vs, math.IsInf(fp.margin, 1)
	best.k = fp.k
	acc := make([]float32, vs.rows)
	masks := make([]uint64, max(vs.rows/64, 1))
	for t := lo; t < hi; t++ {
		if vs.tileMasks(t, fp.filter, masks) == 0 {
			continue
		}
		tileDots(vs.tiles[t], fp.w, acc)
		for j, m := range masks {
			for ; m != 0; m &= m - 1 {
				r := j*64 + bits.TrailingZeros64(m)
				s := acc[r]
				if !best.full() || s > best.items[0] {
					best.offer(s)
				}
				if keepAll || !best.full() || float64(s) >= float64(best.items[0])-fp.margin {
					near = append(near, scored{int32(t*vs.rows + r), s})
				}
			}
		}
	}
	return best, near
}

// floatHeap keeps the k largest float32s in a min-heap (root: the smallest kept).
type floatHeap[F float32 | float64] struct {
	k     int
	items []F
}

func (h *floatHeap[F]) full() bool { return len(h.items) >= h.k }

func (h *floatHeap[F]) offer(x F) {
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
