//go:build !amd64

package memindex

var useAVX2 = false

// dotsInt8 sets out[i] to the dot product of row i of codes (rows of len(q) bytes) with q, for
// i < n.
func dotsInt8(codes []int8, q []int16, n int, out []int32) { dotsInt8Go(codes, q, n, out) }
