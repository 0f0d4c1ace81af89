package memindex

import (
	"container/heap"

	"github.com/agentfiles/agentfiles/search"
)

// topK keeps the k best candidates (score descending, then path, then chunk index ascending)
// in a min-heap whose root is the worst kept.
type topK struct {
	k     int
	items []search.Candidate
}

func worse(a, b *search.Candidate) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	if a.Path != b.Path {
		return a.Path > b.Path
	}
	return a.Chunk.Index > b.Chunk.Index
}

func (h *topK) Len() int           { return len(h.items) }
func (h *topK) Less(i, j int) bool { return worse(&h.items[i], &h.items[j]) }
func (h *topK) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topK) Push(x any)         { h.items = append(h.items, x.(search.Candidate)) }
func (h *topK) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}

func (h *topK) full() bool { return h.k > 0 && len(h.items) >= h.k }

func (h *topK) offer(c search.Candidate) {
	if h.k <= 0 {
		return
	}
	if len(h.items) < h.k {
		heap.Push(h, c)
		return
	}
	if worse(&h.items[0], &c) {
		h.items[0] = c
		heap.Fix(h, 0)
	}
}

// sorted returns the kept candidates best first.
func (h *topK) sorted() []search.Candidate {
	out := make([]search.Candidate, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(search.Candidate)
	}
	return out
}
