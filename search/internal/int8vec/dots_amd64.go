package int8vec

// UseAVX2 says whether Dots uses the AVX2 kernel: whether the CPU and the OS support AVX2
// (CPUID leaf 7 EBX bit 5, with the OS saving the YMM registers: OSXSAVE and XCR0 bits 1 and 2).
// Tests switch it off to exercise the portable loop.
var UseAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(1<<27) == 0 || ecx1&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// dotsInt8AVX2 sets out[i] = Σ_j codes[i*dims+j]·q[j] for i < n; dims is a positive multiple
// of 32 and no partial sum may overflow an int32.
//
//go:noescape
func dotsInt8AVX2(codes *int8, q *int16, dims, n int, out *int32)

// Dots sets out[i] to the dot product of row i of codes (rows of len(q) bytes, len(q) a
// multiple of 32) with q, for i < n.
func Dots(codes []int8, q []int16, n int, out []int32) {
	if n <= 0 {
		return
	}
	if !UseAVX2 {
		DotsPortable(codes, q, n, out)
		return
	}
	_ = codes[n*len(q)-1]
	_ = out[n-1]
	if len(q) == 0 || len(q)%32 != 0 {
		panic("int8vec: query codes are not a multiple of 32")
	}
	dotsInt8AVX2(&codes[0], &q[0], len(q), n, &out[0])
}
