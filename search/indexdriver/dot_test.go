package indexdriver

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDot(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 64, 257} {
		a, b := make([]float32, n), make([]float32, n)
		want := 0.0
		for i := range a {
			a[i], b[i] = float32(i%5)-2, float32(i%3)+0.5
			want += float64(a[i]) * float64(b[i])
		}
		if got := Dot(a, b); math.Abs(float64(got)-want) > 1e-3 {
			t.Errorf("n=%d: Dot %v, want %v", n, got, want)
		}
	}
}

func BenchmarkDot256(b *testing.B) {
	x, y := make([]float32, 256), make([]float32, 256)
	for i := range x {
		x[i], y[i] = float32(i), float32(256-i)
	}
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
}

// TestSparseDot: SparseDot over a strided copy equals Dot bit for bit, for every size around
// the eight-wide blocks and for sparse and dense queries.
func TestSparseDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 9, 15, 64, 256, 257, 1536} {
		for _, density := range []float64{0.05, 0.3, 1} {
			for range 20 {
				a, q := make([]float32, n), make([]float32, n)
				const stride, off = 5, 3
				data := make([]float32, off+n*stride)
				var nz []int
				for j := range n {
					a[j] = float32(r.NormFloat64())
					data[off+j*stride] = a[j]
					if r.Float64() < density {
						q[j] = float32(r.NormFloat64())
						nz = append(nz, j)
					}
				}
				if got, want := SparseDot(data, off, stride, q, nz), Dot(a, q); math.Float32bits(got) != math.Float32bits(want) && got != want {
					t.Fatalf("n=%d density %.2f: SparseDot %v, Dot %v", n, density, got, want)
				}
			}
		}
	}
}
