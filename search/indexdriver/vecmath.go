package indexdriver

// Dot returns the dot product of a and b (the cosine similarity for L2-normalised vectors).
// It panics if the lengths differ. Indexes use it so that every index scores identically: the
// products are rounded to float32 before they are added (float32(x*y) is never fused into a
// multiply-add), so the floats are the same on every architecture.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("Dot: length mismatch")
	}
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8] // one bounds check per eight products
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
		s4 += float32(x[4] * y[4])
		s5 += float32(x[5] * y[5])
		s6 += float32(x[6] * y[6])
		s7 += float32(x[7] * y[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += float32(a[i] * b[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// SparseDot is Dot(a, q), bit for bit, for a vector a stored with a stride,
// a[j] = data[off+j*stride], read only at the dimensions nz lists: the indexes, in increasing
// order, of every element of q that is not zero. It adds the same products to the same partial
// sums in the same order as Dot; the products it skips are exact zeros, which leave those sums
// unchanged as long as a is finite. Indexes that keep vectors dimension-major (search/memindex)
// use it to score a few chunks against a sparse query without gathering whole rows.
func SparseDot(data []float32, off, stride int, q []float32, nz []int) float32 {
	var s [8]float32
	full := len(q) &^ 7 // dimensions Dot sums eight at a time; the rest go to s[0] after them
	for _, j := range nz {
		p := float32(data[off+j*stride] * q[j])
		if j < full {
			s[j&7] += p
		} else {
			s[0] += p
		}
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}
