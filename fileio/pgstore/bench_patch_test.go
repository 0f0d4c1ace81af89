package pgstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
)

// BenchmarkApplyPatch30 changes one line in each of 30 files of 2.5 KiB (40 lines of 64
// bytes), history on, in the same run:
//
//	patch:  one Service.ApplyPatch of a V4A patch with 30 *** Update File sections (one
//	        transaction, every file all or nothing)
//	writes: the same change as 30 Service.Write TRUNCATE calls of the whole new files, what an
//	        agent without a patch tool sends
//
// It reports p50/p95 in ms and the patch/writes ratio of the p50s. Variants take turns in
// rounds.
func BenchmarkApplyPatch30(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	ctx := benchCaller()
	svc := benchService(b, s, true)
	const files, lines = 30, 40
	content := func(v string, flip bool) string {
		var sb strings.Builder
		for l := range lines {
			word := "line"
			if flip && l == lines/2 {
				word = "LINE"
			}
			fmt.Fprintf(&sb, "%s %02d of %s %s\n", word, l, v, strings.Repeat("x", 46))
		}
		return sb.String()
	}
	for _, v := range []string{"patch", "writes"} {
		for f := range files {
			path := fmt.Sprintf("/%s/f%02d.txt", v, f)
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "bench", Path: path, Content: content(v, false), Mode: fileio.ModeTruncate}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Operation i sets line 20 of every file to "LINE" (even i) or back to "line" (odd i).
	patchText := func(i int) string {
		from, to := "line", "LINE"
		if i%2 == 1 {
			from, to = to, from
		}
		var sb strings.Builder
		sb.WriteString("*** Begin Patch\n")
		for f := range files {
			fmt.Fprintf(&sb, "*** Update File: patch/f%02d.txt\n@@\n %s 19 of patch %s\n-%s 20 of patch %s\n+%s 20 of patch %s\n %s 21 of patch %s\n",
				f, "line", strings.Repeat("x", 46), from, strings.Repeat("x", 46), to, strings.Repeat("x", 46), "line", strings.Repeat("x", 46))
		}
		sb.WriteString("*** End Patch\n")
		return sb.String()
	}
	variants := []benchVariant{
		{"patch", func(i int) error {
			_, err := svc.ApplyPatch(ctx, fileio.ApplyPatchRequest{Project: "bench", Patch: patchText(i)})
			return err
		}},
		{"writes", func(i int) error {
			c := content("writes", i%2 == 0)
			for f := range files {
				if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/writes/f%02d.txt", f), Content: c, Mode: fileio.ModeTruncate}); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	p50 := reportLatencies(b, timeRounds(b, variants), time.Millisecond)
	b.ReportMetric(p50["patch"]/p50["writes"], "patch/writes-p50")
	b.ReportMetric(0, "ns/op")
}
