package patch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/patch"
)

// benchPatch returns a file of n lines of 64 bytes and a V4A patch that changes every 10th
// line with three lines of context either side; perturbed writes the context as models
// sometimes do (trailing spaces, a typographic dash), so every chunk needs the loosest pass.
func benchPatch(n int, perturbed bool) (string, string) {
	var file, p strings.Builder
	line := func(i int) string { return fmt.Sprintf("line %06d - %s", i, strings.Repeat("x", 50)) }
	for i := range n {
		file.WriteString(line(i) + "\n")
	}
	ctxLine := func(i int) string {
		if perturbed {
			return strings.Replace(line(i), " - ", " – ", 1) + "  "
		}
		return line(i)
	}
	p.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for i := 5; i+4 < n; i += 10 {
		p.WriteString("@@\n")
		for j := i - 3; j < i; j++ {
			p.WriteString(" " + ctxLine(j) + "\n")
		}
		p.WriteString("-" + line(i) + "\n+" + strings.ToUpper(line(i)) + "\n")
		for j := i + 1; j <= i+3; j++ {
			p.WriteString(" " + ctxLine(j) + "\n")
		}
	}
	p.WriteString("*** End Patch\n")
	return file.String(), p.String()
}

// BenchmarkParseApply measures Parse and ApplyUpdate of a 1 MiB-class patch (2,000 chunks of
// seven lines against a 20,000-line file of 1.3 MB), in the same run:
//
//	exact:     the patch as its file has it: every chunk matches in the first pass
//	perturbed: context with trailing spaces and typographic dashes: every chunk falls through
//	           three passes to the Unicode one
//	reference: strings.Index of each chunk's old text and a strings.Builder splice, the least
//	           any exact applier does
//
// It reports ms per MB of patch for each, and exact/reference and perturbed/exact ratios.
func BenchmarkParseApply(b *testing.B) {
	const n = 20000
	content, exact := benchPatch(n, false)
	_, perturbed := benchPatch(n, true)
	run := func(text string) func() error {
		return func() error {
			p, err := patch.Parse(text)
			if err != nil {
				return err
			}
			_, _, err = patch.ApplyUpdate(context.Background(), content, p.Files[0], &patch.Budget{MaxWorkBytes: 32 << 20})
			return err
		}
	}
	reference := func() error {
		p, err := patch.Parse(exact)
		if err != nil {
			return err
		}
		var sb strings.Builder
		pos := 0
		for _, c := range p.Files[0].Chunks {
			old := strings.Join(c.Old(), "\n") + "\n"
			i := strings.Index(content[pos:], old)
			if i < 0 {
				return fmt.Errorf("chunk at patch line %d not found", c.PatchLine)
			}
			sb.WriteString(content[pos : pos+i])
			sb.WriteString(strings.Join(c.New(), "\n") + "\n")
			pos += i + len(old)
		}
		sb.WriteString(content[pos:])
		return nil
	}
	variants := []struct {
		name string
		size int
		op   func() error
	}{{"exact", len(exact), run(exact)}, {"perturbed", len(perturbed), run(perturbed)}, {"reference", len(exact), reference}}
	perMB := map[string]float64{}
	total := map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for _, v := range variants {
			t0 := time.Now()
			if err := v.op(); err != nil {
				b.Fatal(err)
			}
			total[v.name] += time.Since(t0)
		}
	}
	for _, v := range variants {
		perMB[v.name] = float64(total[v.name].Milliseconds()) / float64(b.N) / (float64(v.size) / 1e6)
		b.ReportMetric(perMB[v.name], v.name+"-ms/MB")
	}
	b.ReportMetric(float64(len(exact))/1e6, "patch-MB")
	b.ReportMetric(perMB["exact"]/perMB["reference"], "exact/reference")
	b.ReportMetric(perMB["perturbed"]/perMB["exact"], "perturbed/exact")
	b.ReportMetric(0, "ns/op")
}
