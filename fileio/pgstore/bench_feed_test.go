package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// BenchmarkRewind1000: fileio.Service.Rewind of 1,000 changed files in one transaction against
// 1,000 writes (see storetest.BenchmarkRewind).
func BenchmarkRewind1000(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	storetest.BenchmarkRewind(b, s, 1000)
}

// BenchmarkWriteFeed measures what the change feed costs a write: Service.Write (TRUNCATE, 1 KiB,
// history on, one writer, 100 files replaced in turn) with the triggers of migration 0010
// enabled ("feed") and disabled ("nofeed"), taking turns in rounds on one database. It reports
// p50/p95 in µs and the feed/nofeed ratio of the p50s.
func BenchmarkWriteFeed(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	svc := benchService(b, s, true)
	ctx := benchCaller()
	enabled := true
	setFeed := func(on bool) error {
		if on == enabled {
			return nil
		}
		verb := map[bool]string{true: "ENABLE", false: "DISABLE"}[on]
		_, err := s.Pool().Exec(context.Background(), fmt.Sprintf(
			"ALTER TABLE mcp_files %[1]s TRIGGER mcp_files_record_insert, %[1]s TRIGGER mcp_files_record_update", verb))
		enabled = on
		return err
	}
	content := strings.Repeat("x", 1024)
	write := func(on bool) func(i int) error {
		return func(i int) error {
			if err := setFeed(on); err != nil {
				return err
			}
			_, err := svc.Write(ctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/f%02d.txt", i%100), Content: content, Mode: fileio.ModeTruncate})
			return err
		}
	}
	p50 := reportLatencies(b, timeRounds(b, []benchVariant{{"feed", write(true)}, {"nofeed", write(false)}}), time.Microsecond)
	if err := setFeed(true); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(p50["feed"]/p50["nofeed"], "feed/nofeed-p50")
	b.ReportMetric(0, "ns/op")
}
