package search

import (
	"math"
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
