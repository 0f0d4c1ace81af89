package int8vec

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDots compares the integer kernel (AVX2 where available) with the portable loop,
// including the extreme codes that come closest to overflowing an int32.
func TestDots(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, stride := range []int{32, 64, 1536, 4096} {
		limit := MaxQueryCode(stride)
		for _, n := range []int{1, 2, 7, 64} {
			codes := make([]int8, n*stride)
			q := make([]int16, stride)
			for i := range codes {
				codes[i] = int8(r.IntN(255) - 127)
			}
			for j := range q {
				q[j] = int16(r.IntN(2*limit+1) - limit)
			}
			if n == 64 { // the largest possible sums, both signs
				for j := range q {
					q[j] = int16(limit)
				}
				for i := range stride {
					codes[i], codes[stride+i] = 127, -127
				}
			}
			want, got := make([]int32, n), make([]int32, n)
			DotsPortable(codes, q, n, want)
			Dots(codes, q, n, got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("stride %d, %d rows (avx2 %v): (-portable +kernel)\n%s", stride, n, UseAVX2, diff)
			}
			if n == 64 && (int64(want[0]) != int64(stride)*127*int64(limit) || want[0] != -want[1]) {
				t.Fatalf("stride %d: extreme sums %d, %d", stride, want[0], want[1])
			}
		}
	}
}

// BenchmarkDots is the integer kernel alone, one goroutine: 50k rows of 1,536 codes.
func BenchmarkDots(b *testing.B) {
	const stride, rows = 1536, 50_000
	codes := make([]int8, stride*rows)
	for i := range codes {
		codes[i] = int8(i * 7)
	}
	q := make([]int16, stride)
	for i := range q {
		q[i] = int16(i)
	}
	out := make([]int32, 64)
	b.SetBytes(int64(len(codes)))
	for b.Loop() {
		for r := 0; r < rows; r += 64 {
			Dots(codes[r*stride:], q, min(64, rows-r), out)
		}
	}
}
