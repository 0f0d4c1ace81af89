// Package int8vec holds float32 vectors as int8 codes with a certified error bound, so that an
// exact top-K search can scan one byte per dimension and re-score only the chunks that may
// still be in the top K. search/memindex and search/pgindex share it, so both find exactly the
// chunks an exhaustive indexdriver.Dot scan finds.
//
// # The bound
//
// A stored vector x is kept as codes c (int8, −127…127) and a scale s, so that x = s·c + e with
// a residual e whose L2 norm E is computed when x is encoded (Meta). A query q is quantised
// per query to int16 codes d with scale t (q = t·d + f, residual norm F; Query), small enough
// that the integer dot product c·d cannot overflow an int32. Then, exactly,
//
//	x·q = s·t·(c·d) + s·c·f + e·q,  so  |x·q − s·t·(c·d)| ≤ A·F + E·|q|
//
// by Cauchy–Schwarz, with A = |s·c|. indexdriver.Dot, the float32 score, differs from x·q by at
// most the float32 rounding bound (Slack). Query.Bounds turns one integer dot product into an
// interval [lo, hi] certain to hold the chunk's indexdriver.Dot score.
//
// # Exact top K
//
// Let T be the K-th largest lo over the eligible chunks. At least K chunks score T or more, so
// a chunk with hi < T scores strictly less than K others and cannot be in the top K whatever the
// tie-breaking; re-scoring exactly every chunk with hi ≥ T gives the exact top K. A scan that
// keeps the K best lo seen so far never has a running K-th best above T, so collecting each
// chunk whose hi reaches the running K-th best collects all of them.
//
// # Exact codes
//
// Some vectors are exactly float32(float32(code)·scale) for one scale (EncodeExact): the hashing
// embedder's are sums of ±1, ±½ and ±¼ scaled by one factor. Their codes are the vector: Decode
// gives back every float bit for bit, so they need no float copy.
package int8vec

import "math"

// Stride is the row length of dims codes: dims rounded up to a multiple of 32 (the kernel's
// step), the padding zero.
func Stride(dims int) int { return (dims + 31) &^ 31 }

// Meta is what the bound needs of one stored vector, every value rounded up.
type Meta struct {
	Scale float32 // s: x ≈ Scale·codes
	Resid float32 // ≥ E = |x − s·c|
	Norm  float32 // ≥ A = |s·c|
}

// roundUp32 returns the smallest float32 not below x (x ≥ 0), +Inf when it overflows.
func roundUp32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// Encode writes the nearest codes of v for scale max|v|/127 into row (at least len(v) long,
// zeroed) and returns their Meta. An all-zero vector gets codes 0 and residual 0 (exact); a
// vector that is not finite gets a zero Meta, which the caller must not use for a bound (its
// Slack is +Inf); a subnormal one is kept as residual only.
func Encode(row []int8, v []float32) Meta {
	var maxAbs float64
	for _, x := range v {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
	}
	if maxAbs == 0 || math.IsInf(maxAbs, 0) || math.IsNaN(maxAbs) {
		return Meta{}
	}
	scale := float32(maxAbs / 127)
	if scale == 0 { // subnormal vector: keep it exact as residual only
		var e float64
		for _, x := range v {
			e += float64(x) * float64(x)
		}
		return Meta{Resid: roundUp32(math.Sqrt(e)*(1+1e-9) + 1e-300)}
	}
	s := float64(scale)
	for j, x := range v {
		row[j] = int8(max(-127, min(127, math.Round(float64(x)/s))))
	}
	return meta(v, row, scale)
}

// EncodeExact writes codes of v into row (at least len(v) long) if some scale s and codes c in
// −127…127 give back every float of v bit for bit as float32(c·s), and reports whether they do
// (row is left unspecified when not). Vectors built as small multiples of one float32 step do:
// the smallest non-zero magnitude is then usually one step, or two to four.
func EncodeExact(row []int8, v []float32) (Meta, bool) {
	var m float32
	for _, x := range v {
		if a := float32(math.Abs(float64(x))); a != 0 && (m == 0 || a < m) {
			m = a
		}
	}
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		return Meta{}, false // all zero, or not finite: the float path
	}
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
			row[j] = int8(c)
		}
		if ok {
			return meta(v, row, s), true
		}
	}
	return Meta{}, false
}

// meta returns scale and the rounded-up norms of the residual v − scale·row and of scale·row.
func meta(v []float32, row []int8, scale float32) Meta {
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
	return Meta{
		Scale: scale,
		Resid: roundUp32(math.Sqrt(e2)*(1+1e-9) + 1e-15*math.Sqrt(n2) + 1e-300),
		Norm:  roundUp32(math.Sqrt(a2) * (1 + 1e-9)),
	}
}

// Decode writes the vector of row and m, float32(float32(code)·scale) per dimension, into dst
// and returns it: the vector itself when it was encoded by EncodeExact.
func Decode(dst []float32, row []int8, m Meta) []float32 {
	for j := range dst {
		dst[j] = float32(row[j]) * m.Scale
	}
	return dst
}

// Query is a query vector quantised for rows of one stride.
type Query struct {
	Codes []int16 // len stride; Scale·Codes ≈ q
	Scale float64 // t
	Resid float64 // ≥ F = |q − t·codes|
	Norm  float64 // ≥ |q|
}

// MaxQueryCode is the largest |code| a query may use so that c·d fits in an int32 for stride
// dimensions: stride·127·max ≤ 2³¹−1 (every partial sum is bounded by the same).
func MaxQueryCode(stride int) int {
	return min(32767, (math.MaxInt32)/(stride*127))
}

// NewQuery quantises q for rows of the given stride.
func NewQuery(q []float32, stride int) Query {
	qq := Query{Codes: make([]int16, stride)}
	var maxAbs, n2 float64
	for _, x := range q {
		maxAbs = max(maxAbs, math.Abs(float64(x)))
		n2 += float64(x) * float64(x)
	}
	qq.Norm = math.Sqrt(n2) * (1 + 1e-9)
	if maxAbs == 0 {
		return qq
	}
	limit := float64(MaxQueryCode(stride))
	t := maxAbs / limit
	var f2 float64
	for j, x := range q {
		d := max(-limit, min(limit, math.Round(float64(x)/t)))
		qq.Codes[j] = int16(d)
		r := float64(x) - t*d // t·d rounds by at most 2⁻⁵³·|x|: covered by the 1e-15·|q| below
		f2 += r * r
	}
	qq.Scale = t
	qq.Resid = math.Sqrt(f2)*(1+1e-9) + 1e-15*qq.Norm + 1e-300
	return qq
}

// Bounds returns an interval certain to hold indexdriver.Dot of the query and the vector encoded as
// m, given dot, the integer dot product of its codes with q.Codes (Dots), and slack, Slack for
// the vectors compared.
func (q *Query) Bounds(m Meta, dot int32, slack float64) (lo, hi float64) {
	approx := float64(m.Scale) * q.Scale * float64(dot)
	b := (float64(m.Norm)*q.Resid + float64(m.Resid)*q.Norm + slack + 4e-16*math.Abs(approx)) * (1 + 1e-9)
	return approx - b, approx + b
}

// Slack bounds how far a float32 dot product of two vectors of dims floats, of L2 norms at most
// qNorm and maxNorm, summed in any order (indexdriver.Dot, or a tiled first pass), can be from the
// real one. Each sums at most dims+4 rounded float32 products and partial sums, so it is within
// γ·Σ|q_j·x_j| ≤ γ·|q|·|x| of the exact real dot product (Cauchy–Schwarz), with
// γ = n·u/(1−n·u), u = 2⁻²⁴, n = dims+4 (Higham, Accuracy and Stability of Numerical Algorithms,
// §3.1). Two such sums differ by at most twice that; Slack doubles it again for the float64
// norms and adds a tiny absolute term for products that underflow. It is +Inf when the bound
// is unusable (norms that are not finite or so large that float32 sums could overflow), which
// tells the caller to score every row exactly.
func Slack(dims int, qNorm, maxNorm float64) float64 {
	const u = 0x1p-24
	n := float64(dims + 4)
	gamma := n * u / (1 - n*u)
	s := 4*gamma*qNorm*maxNorm + n*0x1p-126
	if n*u >= 0.5 || qNorm*maxNorm > math.MaxFloat32/2 || math.IsNaN(s) {
		return math.Inf(1)
	}
	return s
}

// DotsPortable is Dots without assembly.
func DotsPortable(codes []int8, q []int16, n int, out []int32) {
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
