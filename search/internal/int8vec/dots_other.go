//go:build !amd64

package int8vec

// UseAVX2 is false: the AVX2 kernel is for amd64.
var UseAVX2 = false

// Dots sets out[i] to the dot product of row i of codes (rows of len(q) bytes) with q, for
// i < n.
func Dots(codes []int8, q []int16, n int, out []int32) { DotsPortable(codes, q, n, out) }
