package indexdriver

import "container/heap"

// Ranked is one entry of a [TopK]: the keys that order the candidates of an [Index], and the
// value they rank (a chunk id, a Candidate, …).
type Ranked[T any] struct {
	Score float64 // higher ranks first
	Path  string  // equal scores: path ascending
	Index int     // equal paths: chunk index ascending
	Value T
}

// before reports whether a ranks before b: score descending, then path, then chunk index
// ascending — the order Index.Lexical and Index.Semantic return.
func (a *Ranked[T]) before(b *Ranked[T]) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Index < b.Index
}

// TopK keeps the k best of the entries offered to it, in the order of Index results (score
// descending, ties by path, then chunk index), so that every index selects its TopK candidates
// identically. It is a heap whose root is the worst entry kept; offering costs O(log k). A TopK
// is not safe for concurrent use.
type TopK[T any] struct {
	k int
	h rankedHeap[T]
}

// NewTopK returns an empty TopK that keeps k entries (none when k <= 0).
func NewTopK[T any](k int) *TopK[T] {
	return &TopK[T]{k: k, h: make(rankedHeap[T], 0, min(max(k, 0), 1024))}
}

// Wants reports whether an entry with this score could be kept: a cheap check before building
// the entry (its path, say). An entry with the score of the worst kept one may still lose on the
// path or chunk index.
func (t *TopK[T]) Wants(score float64) bool {
	return t.k > 0 && (len(t.h) < t.k || score >= t.h[0].Score)
}

// Offer keeps r if it is among the k best so far, dropping the worst kept entry if need be.
func (t *TopK[T]) Offer(r Ranked[T]) {
	switch {
	case t.k <= 0:
	case len(t.h) < t.k:
		heap.Push(&t.h, r)
	case r.before(&t.h[0]):
		t.h[0] = r
		heap.Fix(&t.h, 0)
	}
}

// Sorted returns the kept entries, best first, and empties t.
func (t *TopK[T]) Sorted() []Ranked[T] {
	out := make([]Ranked[T], len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(Ranked[T])
	}
	return out
}

// rankedHeap is a min-heap by rank: the root is the entry that ranks last.
type rankedHeap[T any] []Ranked[T]

func (h rankedHeap[T]) Len() int           { return len(h) }
func (h rankedHeap[T]) Less(i, j int) bool { return h[j].before(&h[i]) }
func (h rankedHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankedHeap[T]) Push(x any)        { *h = append(*h, x.(Ranked[T])) }
func (h *rankedHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
