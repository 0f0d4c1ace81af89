package memindex

import (
	"math/bits"

	"github.com/agentfiles/agentfiles/search/internal/int8vec"
)

// Large dense vectors (neural embedders: 512 dimensions and more) also get an int8 copy, so a
// query whose vector is mostly non-zero reads one byte per dimension in its first pass instead
// of four, and multiplies integers (sixteen per instruction with AVX2). The codes, their error
// bound and the exact top-K argument are package int8vec's, shared with search/pgindex: each
// chunk gets an interval [lo, hi] certain to hold its indexdriver.Dot score; see quantPass.

// quantizeMinDims is the vector size from which a store keeps int8 codes. Below it the
// dimension-major float32 tiles serve every query (the hashing embedder's 256-dimension vectors
// and its short, sparse queries) and the codes would only cost memory. Tests lower it.
var quantizeMinDims = 512

// exactCodes lets a new vector store hold its vectors as int8 codes only, for as long as every
// vector stored is exactly float32(float32(code)·scale) for a per-vector scale (see putExact):
// a quarter of the memory, and the same answers, since indexdriver.Dot sees the same floats. The
// first vector that is not sends the store to float tiles for good (vectorStore.toFloats).
// Tests turn it off to exercise the tiles.
var exactCodes = true

// codeStore holds the int8 codes of a vectorStore, row-major: slot id's codes are
// codes[id*stride : id*stride+dims], zero-padded to stride (a multiple of 32) bytes.
type codeStore struct {
	exact  bool // every vector is exactly float32(float32(code)·scale): no floats are kept
	stride int
	codes  []int8
	meta   []int8vec.Meta
}

func newCodeStore(dims int) *codeStore {
	return &codeStore{stride: int8vec.Stride(dims)}
}

// rowOf returns slot id's codes, zeroed, growing the store as needed.
func (cs *codeStore) rowOf(id int32) []int8 {
	need := (int(id) + 1) * cs.stride
	if need > len(cs.codes) {
		cs.codes = append(cs.codes, make([]int8, max(need, len(cs.codes)+len(cs.codes)/8)-len(cs.codes))...) // ⅛ slack: memory over copies
	}
	for len(cs.meta) <= int(id) {
		cs.meta = append(cs.meta, int8vec.Meta{})
	}
	row := cs.codes[int(id)*cs.stride : (int(id)+1)*cs.stride]
	clear(row)
	return row
}

// decode writes slot id's vector, float32(float32(code)·scale) per dimension, into dst.
func (cs *codeStore) decode(id int32, dst []float32) []float32 {
	return int8vec.Decode(dst, cs.codes[int(id)*cs.stride:], cs.meta[id])
}

// putExact stores v as slot id's codes if they give back every float of v bit for bit (see
// int8vec.EncodeExact), and reports whether they do.
func (cs *codeStore) putExact(id int32, v []float32) bool {
	codes := make([]int8, len(v))
	m, ok := int8vec.EncodeExact(codes, v)
	if ok {
		copy(cs.rowOf(id), codes)
		cs.meta[id] = m
	}
	return ok
}

// put stores the codes of v as slot id's: the nearest codes for scale max|v|/127.
func (cs *codeStore) put(id int32, v []float32) {
	cs.meta[id] = int8vec.Encode(cs.rowOf(id), v)
}

// interval is a chunk whose final score is at most hi.
type interval struct {
	id int32
	hi float64
}

// quantPass is one query's first pass over a codeStore: every eligible chunk gets an interval
// [lo, hi] holding its indexdriver.Dot score, and the chunks whose hi reaches the TopK-th best lo
// are collected for exact re-scoring (see int8vec, "Exact top K").
type quantPass struct {
	vs     *vectorStore
	q      int8vec.Query
	filter slotFilter
	k      int
	slack  float64 // float32 rounding bound of indexdriver.Dot for this query
}

// run returns T (-Inf when fewer than k chunks are eligible) and the chunks that may reach it.
func (qp *quantPass) run() (kth float64, near []interval) {
	words := (len(qp.vs.codes.meta) + 63) / 64
	return scanInParts(words, words*64, qp.k, qp.scan)
}

// scan runs the pass over slots [64·w0, 64·w1).
func (qp *quantPass) scan(w0, w1 int) (best floatHeap[float64], near []interval) {
	cs := qp.vs.codes
	best.k = qp.k
	var dots [64]int32
	for w := w0; w < w1; w++ {
		m := qp.vs.liveWord(w) & qp.filter.word(w)
		if m == 0 {
			continue
		}
		first, last := bits.TrailingZeros64(m), 63-bits.LeadingZeros64(m)
		base := w*64 + first
		int8vec.Dots(cs.codes[base*cs.stride:(w*64+last+1)*cs.stride], qp.q.Codes, last-first+1, dots[:])
		for ; m != 0; m &= m - 1 {
			r := bits.TrailingZeros64(m)
			id := w*64 + r
			lo, hi := qp.q.Bounds(cs.meta[id], dots[r-first], qp.slack)
			if !best.full() || lo > best.items[0] {
				best.offer(lo)
			}
			if !best.full() || hi >= best.items[0] {
				near = append(near, interval{int32(id), hi})
			}
		}
	}
	return best, near
}
