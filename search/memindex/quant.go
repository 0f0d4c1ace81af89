package memindex

import (
	"math"
	"math/bits"
)

// Large dense vectors (neural embedders: 512 dimensions and more) also get an int8 copy, so a
// query whose vector is mostly non-zero reads one byte per dimension in its first pass instead
// of four, and multiplies integers (sixteen per instruction with AVX2, see dotsInt8).
//
// Stored vector x is kept as codes c (int8, −127…127) and a scale s = max|x_j| / 127, so that
// x = s·c + e with a residual e whose L2 norm E is computed when x is stored. A query q is
// quantised per query to int16 codes d with scale t (q = t·d + f, residual norm F), small enough
// that the integer dot product c·d cannot overflow int32. Then, exactly,
//
//	x·q = s·t·(c·d) + s·c·f + e·q,  so  |x·q − s·t·(c·d)| ≤ A·F + E·|q|
//
// by Cauchy–Schwarz, with A = |s·c|. search.Dot, the float32 score, differs from x·q by at
// most the float32 rounding bound (vectorStore.slack). Each chunk thus gets an interval
// [lo, hi] certain to hold its final score; see quantPass for how the exact top K follows.

// quantizeMinDims is the vector size from which a store keeps int8 codes. Below it the
// dimension-major float32 tiles serve every query (the hashing embedder's 256-dimension vectors
// and its short, sparse queries) and the codes would only cost memory. Tests lower it.
var quantizeMinDims = 512

// exactCodes lets a new vector store hold its vectors as int8 codes only, for as long as every
// vector stored is exactly float32(float32(code)·scale) for a per-vector scale (see putExact):
// a quarter of the memory, and the same answers, since search.Dot sees the same floats. The
// first vector that is not sends the store to float tiles for good (vectorStore.toFloats).
// Tests turn it off to exercise the tiles.
var exactCodes = true

// codeMeta is what the bound needs of one stored vector, every value rounded up.
type codeMeta struct {
	scale float32 // s: x ≈ scale·codes
	resid float32 // ≥ E = |x − s·c|
	norm  float32 // ≥ A = |s·c|
}

// codeStore holds the int8 codes of a vectorStore, row-major: slot id's codes are
// codes[id*stride : id*stride+dims], zero-padded to stride (a multiple of 32) bytes.
type codeStore struct {
	exact  bool // every vector is exactly float32(float32(code)·scale): no floats are kept
	stride int
	codes  []int8
	meta   []codeMeta
}

func newCodeStore(dims int) *codeStore {
	return &codeStore{stride: (dims + 31) &^ 31}
}

// roundUp32 returns the smallest float32 not below x (x ≥ 0), +Inf when it overflows.
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// rowOf returns slot id's codes, zeroed, growing the store as needed.
func (cs *codeStore) rowOf(id int32) []int8 {
	need := (int(id) + 1) * cs.stride
	if need > len(cs.codes) {
		cs.codes = append(cs.codes, make([]int8, max(need, len(cs.codes)+len(cs.codes)/8)-len(cs.codes))...) // ⅛ slack: memory over copies
	}
	for len(cs.meta) <= int(id) {
		cs.meta = append(cs.meta, codeMeta{})
	}
	row := cs.codes[int(id)*cs.stride : (int(id)+1)*cs.stride]
	clear(row)
	return row
}

// decode writes slot id's vector, float32(float32(code)·scale) per dimension, into dst.
func (cs *codeStore) decode(id int32, dst []float32) []float32 {
	row, s := cs.codes[int(id)*cs.stride:], cs.meta[id].scale
	for j := range dst {
		dst[j] = float32(row[j]) * s
	}
	return dst
}

// putExact stores v as slot id's codes if some scale s and codes c in −127…127 give back every
// float of v bit for bit as float32(c·s), and reports whether they do. Vectors built as small
// multiples of one float32 step do: the hashing embedder's are sums of ±1, ±½ and ±¼ scaled
// by one factor, so the smallest non-zero magnitude is usually one step, or two to four.
func (cs *codeStore) putExact(id int32, v []float32) bool {
	var m float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a != 0 && (m == 0 || a < m) {
			m = a
		}
	}
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		return false // all zero, or not finite: the float path
	}
	codes := make([]int8, len(v))
	for k := float32(1); k <= 4; k++ {
		s := m / k
		if s == 0 {
			break
		}
		ok := true
		for j, x := range v {
			c := math.Round(float64(x) / float64(s))
			if c < -127 || c > 127 || math.Float32bits(float32(int8(c))*s) != math.Float32bits(x) { // int8: −0 reads back as +0
				ok = false
				break
			}
			codes[j] = int8(c)
		}
		if ok {
			row := cs.rowOf(id)
			copy(row, codes)
			cs.setMeta(id, v, row, s)
			return true
		}
	}
	return false
}

// setMeta records scale s of slot id and the rounded-up norms of its residual v − s·row and
// of s·row.
func (cs *codeStore) setMeta(id int32, v []float32, row []int8, scale float32) {
	s := float64(scale)
	var e2, a2, n2 float64
	for j, x := range v {
		sc := s * float64(row[j]) // exact: a 24-bit mantissa times a 7-bit integer
		d := float64(x) - sc
		e2 += d * d
		a2 += sc * sc
		n2 += float64(x) * float64(x)
	}
	// The float64 sums are within a relative 1e-12 of the real ones at any size we store.
	cs.meta[id] = codeMeta{
		scale: scale,
		resid: roundUp32(math.Sqrt(e2)*(1+1e-9) + 1e-15*math.Sqrt(n2) + 1e-300),
		norm:  roundUp32(math.Sqrt(a2) * (1 + 1e-9)),
	}
}

// put stores the codes of v as slot id's: the nearest codes for scale max|v|/127.
func (cs *codeStore) put(id int32, v []float32) {
	row := cs.rowOf(id)
	var maxAbs float64
	for _, x := range v {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
	}
	if maxAbs == 0 || math.IsInf(maxAbs, 0) || math.IsNaN(maxAbs) {
		// All zero: codes 0 and residual 0 are exact. Not finite: the store's maxNorm is not
		// finite either, so slack is +Inf and the codes are never used.
		cs.meta[id] = codeMeta{}
		return
	}
	scale := float32(maxAbs / 127)
	if scale == 0 { // subnormal vector: keep it exact as residual only
		var e float64
		for _, x := range v {
			e += float64(x) * float64(x)
		}
		cs.meta[id] = codeMeta{resid: roundUp32(math.Sqrt(e)*(1+1e-9) + 1e-300)}
		return
	}
	s := float64(scale)
	for j, x := range v {
		row[j] = int8(max(-127, min(127, math.Round(float64(x)/s))))
	}
	cs.setMeta(id, v, row, scale)
}

// quantQuery is a query vector quantised for one codeStore.
type quantQuery struct {
	codes []int16 // len stride; t·codes ≈ q
	scale float64 // t
	resid float64 // ≥ F = |q − t·codes|
	norm  float64 // ≥ |q|
}

// maxQueryCode is the largest |code| a query may use so that c·d fits in an int32 for stride
// dimensions: stride·127·max ≤ 2³¹−1 (every partial sum is bounded by the same).
func maxQueryCode(stride int) int {
	return min(32767, (math.MaxInt32)/(stride*127))
}

func (cs *codeStore) quantize(q []float32) quantQuery {
	qq := quantQuery{codes: make([]int16, cs.stride)}
	var maxAbs, n2 float64
	for _, x := range q {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
		n2 += float64(x) * float64(x)
	}
	qq.norm = math.Sqrt(n2) * (1 + 1e-9)
	if maxAbs == 0 {
		return qq
	}
	limit := float64(maxQueryCode(cs.stride))
	t := maxAbs / limit
	var f2 float64
	for j, x := range q {
		d := max(-limit, min(limit, math.Round(float64(x)/t)))
		qq.codes[j] = int16(d)
		r := float64(x) - t*d // t·d rounds by at most 2⁻⁵³·|x|: covered by the 1e-15·|q| below
		f2 += r * r
	}
	qq.scale = t
	qq.resid = math.Sqrt(f2)*(1+1e-9) + 1e-15*qq.norm + 1e-300
	return qq
}

// interval is a chunk whose final score is at most hi.
type interval struct {
	id int32
	hi float64
}

// quantPass is one query's first pass over a codeStore: every eligible chunk gets an interval
// [lo, hi] holding its search.Dot score. Let T be the TopK-th largest lo. At least TopK chunks
// score T or more, so a chunk with hi < T scores strictly less than TopK others and cannot be in
// the top TopK whatever the tie-breaking; every chunk with hi ≥ T is re-scored exactly. The TopK
// best lo seen so far never exceed T, so collecting each chunk whose hi reaches the running
// TopK-th best lo collects all of them.
type quantPass struct {
	vs     *vectorStore
	q      quantQuery
	filter slotFilter
	k      int
	slack  float64 // float32 rounding bound of search.Dot for this query
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
		dotsInt8(cs.codes[base*cs.stride:(w*64+last+1)*cs.stride], qp.q.codes, last-first+1, dots[:])
		for ; m != 0; m &= m - 1 {
			r := bits.TrailingZeros64(m)
			id := w*64 + r
			cm := cs.meta[id]
			approx := float64(cm.scale) * qp.q.scale * float64(dots[r-first])
			b := (float64(cm.norm)*qp.q.resid + float64(cm.resid)*qp.q.norm + qp.slack + 4e-16*math.Abs(approx)) * (1 + 1e-9)
			lo, hi := approx-b, approx+b
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

// dotsInt8Go is the portable dotsInt8.
func dotsInt8Go(codes []int8, q []int16, n int, out []int32) {
	stride := len(q)
	for i := range n {
		row := codes[i*stride : (i+1)*stride]
		var s int32
		for j, c := range row {
			s += int32(c) * int32(q[j])
		}
		out[i] = s
	}
}
