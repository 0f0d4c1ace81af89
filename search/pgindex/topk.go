package pgindex

import (
	"container/heap"
	"sort"
)

// scored is a candidate under selection: its exact score and the keys that break ties.
type scored struct {
	id    int64
	path  string
	index int
	score float64
}

// better orders candidates as search.Index requires: score descending, then path, then chunk
// index ascending.
func better(a, b *scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.path != b.path {
		return a.path < b.path
	}
	return a.index < b.index
}

// bestK keeps the k best candidates in a heap whose root is the worst kept.
type bestK struct {
	k     int
	items []scored
}

func (h *bestK) Len() int           { return len(h.items) }
func (h *bestK) Less(i, j int) bool { return better(&h.items[j], &h.items[i]) }
func (h *bestK) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *bestK) Push(x any)         { h.items = append(h.items, x.(scored)) }
func (h *bestK) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// wants reports whether a candidate with this score could enter (cheap pre-check before
// building its path string).
func (h *bestK) wants(score float64) bool {
	return h.k > 0 && (len(h.items) < h.k || score >= h.items[0].score)
}

func (h *bestK) offer(c scored) {
	switch {
	case h.k <= 0:
	case len(h.items) < h.k:
		heap.Push(h, c)
	case better(&c, &h.items[0]):
		h.items[0] = c
		heap.Fix(h, 0)
	}
}

// sorted returns the kept candidates best first.
func (h *bestK) sorted() []scored {
	out := append([]scored(nil), h.items...)
	sort.Slice(out, func(i, j int) bool { return better(&out[i], &out[j]) })
	return out
}
