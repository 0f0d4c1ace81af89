package pgstore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// BenchmarkEdit1MiB edits one line of a 1 MiB file (16,384 lines of 64 bytes) through
// fileio.Service.Edit, in the same run:
//
//	splice:   over pgstore, whose driver.Splicer finds the line with position() and replaces it
//	          with overlay() in SQL: only the searched text, a window of context for the diff
//	          and the new line travel, never the file
//	portable: over storetest.WithoutOptional(store): Get ships the file to the Service, Put
//	          ships it back
//	rewrite:  what an agent did before file_edit: Service.Read of the whole file and a
//	          Service.Write TRUNCATE of it
//
// The history is on (the default), so every edit also keeps the previous 1 MiB version, inside
// the database. It reports p50/p95 in µs and the splice/portable and splice/rewrite ratios of
// the p50s. Variants take turns in rounds.
func BenchmarkEdit1MiB(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	sctx := benchCaller()
	const lines = 16384
	var sb strings.Builder
	for i := range lines {
		fmt.Fprintf(&sb, "line %05d %s\n", i, strings.Repeat("x", 52))
	}
	content := sb.String()
	svc := benchService(b, s, true)
	portable := benchService(b, storetest.WithoutOptional(s), true)
	for _, v := range []string{"splice", "portable", "rewrite"} {
		if _, err := svc.Write(sctx, fileio.WriteRequest{Project: "bench", Path: "/" + v, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			b.Fatal(err)
		}
	}
	// Operation i toggles line (i/2) % lines between "line" and "LINE", so the file stays 1 MiB.
	edit := func(i int) fileio.Edit {
		k := (i / 2) % lines
		from, to := fmt.Sprintf("line %05d", k), fmt.Sprintf("LINE %05d", k)
		if i%2 == 1 {
			from, to = to, from
		}
		return fileio.Edit{OldStr: from, NewStr: to}
	}
	variants := []benchVariant{
		{"splice", func(i int) error {
			_, err := svc.Edit(sctx, fileio.EditRequest{Project: "bench", Path: "/splice", Edits: []fileio.Edit{edit(i)}})
			return err
		}},
		{"portable", func(i int) error {
			_, err := portable.Edit(sctx, fileio.EditRequest{Project: "bench", Path: "/portable", Edits: []fileio.Edit{edit(i)}})
			return err
		}},
		{"rewrite", func(i int) error {
			res, err := svc.Read(sctx, fileio.ReadRequest{Project: "bench", Path: "/rewrite", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
			if err != nil {
				return err
			}
			e := edit(i)
			_, err = svc.Write(sctx, fileio.WriteRequest{Project: "bench", Path: "/rewrite", Mode: fileio.ModeTruncate,
				Content: strings.Replace(res.Content, e.OldStr, e.NewStr, 1)})
			return err
		}},
	}
	p50 := reportLatencies(b, timeRounds(b, variants), time.Microsecond)
	b.ReportMetric(p50["splice"]/p50["portable"], "splice/portable-p50")
	b.ReportMetric(p50["splice"]/p50["rewrite"], "splice/rewrite-p50")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRename1000 renames a directory of 1,000 files of 1 KiB back and forth through
// fileio.Service.Rename, in the same run over pgstore (mover: one driver.Mover statement, the
// contents stay in the database) and over storetest.WithoutOptional(store) (portable: a Get, a
// Put and a Delete per file). The history is on, so each rename also keeps 1,000 versions of
// the old paths. It reports p50/p95 in ms and the mover/portable ratio of the p50s.
func BenchmarkRename1000(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	sctx := benchCaller()
	stores := []struct {
		name  string
		store driver.Store
	}{{"mover", s}, {"portable", storetest.WithoutOptional(s)}}
	variants := make([]benchVariant, len(stores))
	for v, st := range stores {
		svc := benchService(b, st.store, true)
		for f := range 1000 {
			req := fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/%s/a/d%d/f%03d.txt", st.name, f/100, f), Content: strings.Repeat("x", 1024)}
			if _, err := svc.Write(sctx, req); err != nil {
				b.Fatal(err)
			}
		}
		variants[v] = benchVariant{st.name, func(i int) error {
			from, to := fmt.Sprintf("/%s/a", st.name), fmt.Sprintf("/%s/b", st.name)
			if i%2 == 1 {
				from, to = to, from
			}
			res, err := svc.Rename(sctx, fileio.RenameRequest{Project: "bench", From: from, To: to, Overwrite: false})
			if err == nil && res.Files != 1000 {
				err = fmt.Errorf("moved %d files, want 1000", res.Files)
			}
			return err
		}}
	}
	p50 := reportLatencies(b, timeRounds(b, variants), time.Millisecond)
	b.ReportMetric(p50["mover"]/p50["portable"], "mover/portable-p50")
	b.ReportMetric(0, "ns/op")
}
