package fileio

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkUnifiedDiff measures the diff an Edit returns, within the default budget, with its
// allocations:
//
//	one-line-1MiB:   one line changed in a 1 MiB file of 16,384 lines (the common edit)
//	replace-all-2100: every line of 2,100 changed (the D = 4,200 case that once took ~140 MB)
//	every-10th-5000: one line in ten of 5,000 changed (many hunks)
func BenchmarkUnifiedDiff(b *testing.B) {
	var big strings.Builder
	for i := range 16384 {
		fmt.Fprintf(&big, "line %05d %s\n", i, strings.Repeat("x", 52))
	}
	var many, manyChanged strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "line %d\n", i)
		if i%10 == 0 {
			fmt.Fprintf(&manyChanged, "LINE %d\n", i)
		} else {
			fmt.Fprintf(&manyChanged, "line %d\n", i)
		}
	}
	cases := []struct{ name, old, new string }{
		{"one-line-1MiB", big.String(), strings.Replace(big.String(), "line 08000", "LINE 08000", 1)},
		{"replace-all-2100", strings.Repeat("x\n", 2100), strings.Repeat("y\n", 2100)},
		{"every-10th-5000", many.String(), manyChanged.String()},
	}
	lim := diffLimits{steps: DefaultMaxDiffCost, bytes: DefaultMaxDiffBytes}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := unifiedDiff("/f", c.old, c.new, 0, lim); d.text == "" {
					b.Fatal("no diff")
				}
			}
		})
	}
}
