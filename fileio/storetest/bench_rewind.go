package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// BenchmarkRewind measures fileio.Service.Rewind of `files` changed files of 1 KiB (in 10
// directories, history on) on store: each operation rewinds the project to the other of two
// checkpoints, so every rewind changes every file. The reference, in the same run and taking
// turns with it, is what a client without rewind does to the same effect in another project:
// one Service.Write (TRUNCATE) per file with the content it wants back. It reports the p50 and
// p95 of each in ms and the rewind/writes ratio of the p50s.
func BenchmarkRewind(b *testing.B, store driver.Store, files int) {
	svc := NewService(b, store, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 30 })
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-rewind", "bench"))
	path := func(f int) string { return fmt.Sprintf("/d%d/f%04d.txt", f%10, f) }
	content := func(state, f int) string { return fmt.Sprintf("%d %d\n", state, f) + strings.Repeat("x", 1000) }
	writeAll := func(project string, state int) error {
		for f := range files {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path(f), Content: content(state, f), Mode: fileio.ModeTruncate}); err != nil {
				return err
			}
		}
		return nil
	}
	var checkpoints [2]string
	for state := range 2 {
		for _, project := range []string{"rewind", "writes"} {
			if err := writeAll(project, state); err != nil {
				b.Fatal(err)
			}
		}
		cp, err := svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: "rewind", Label: fmt.Sprint("state ", state)})
		if err != nil {
			b.Fatal(err)
		}
		checkpoints[state] = cp.ID
	}
	variants := []struct {
		name string
		op   func(state int) error
	}{
		{"rewind", func(state int) error {
			res, err := svc.Rewind(ctx, fileio.RewindRequest{Project: "rewind", Checkpoint: checkpoints[state]})
			if err == nil && res.Total != files {
				err = fmt.Errorf("rewound %d files, want %d", res.Total, files)
			}
			return err
		}},
		{"writes", func(state int) error { return writeAll("writes", state) }},
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range variants {
			t0 := time.Now()
			if err := v.op(i % 2); err != nil {
				b.Fatal(err)
			}
			lat[v.name] = append(lat[v.name], time.Since(t0))
		}
	}
	b.StopTimer()
	p50 := map[string]float64{}
	for name, l := range lat {
		slices.Sort(l)
		p50[name] = float64(l[len(l)/2]) / float64(time.Millisecond)
		b.ReportMetric(p50[name], name+"-p50-ms")
		b.ReportMetric(float64(l[(len(l)*95)/100])/float64(time.Millisecond), name+"-p95-ms")
	}
	b.ReportMetric(p50["rewind"]/p50["writes"], "rewind/writes-p50")
	b.ReportMetric(0, "ns/op")
}
