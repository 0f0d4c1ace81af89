package pgstore_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
)

// BenchmarkEditLongOldStr times the dry-run edit of a 256 KiB file of "a" with an old_str of
// 4,095 "a" and a "b", which matches nowhere, in the same run:
//
//	bounded:  fileio.Service.Edit as it is: size × needle is over the Splicer's maxScan, so
//	          the Service reads the file and searches it in Go (linear)
//	position: the same search by PostgreSQL's position() on bytea (Locate without a bound),
//	          which compares the needle at every offset and cannot be interrupted
//
// It reports p50/p95 in ms and the bounded/position ratio of the p50s.
func BenchmarkEditLongOldStr(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	sctx := benchCaller()
	svc := benchService(b, s, true)
	if _, err := svc.Write(sctx, fileio.WriteRequest{Project: "proj", Path: "/h.txt", Content: strings.Repeat("a", 256<<10)}); err != nil {
		b.Fatal(err)
	}
	needle := strings.Repeat("a", 4095) + "b"
	scope := driver.Scope{Tenant: agentfiles.NewAuthContext("bench-key", "bench").APIKeyHash, Project: "proj"}
	variants := []benchVariant{
		{"bounded", func(int) error {
			_, err := svc.Edit(sctx, fileio.EditRequest{Project: "proj", Path: "/h.txt", DryRun: true, Edits: []fileio.Edit{{OldStr: needle, NewStr: "x"}}})
			if agentfiles.ErrorCode(err) == fileio.CodeNoMatch {
				return nil
			}
			return err
		}},
		{"position", func(int) error {
			return s.Update(context.Background(), scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				_, err := tx.(driver.Splicer).Locate(context.Background(), "/h.txt", []byte(needle), 16, math.MaxInt64, false)
				return err
			})
		}},
	}
	p50 := reportLatencies(b, timeRounds(b, variants), time.Millisecond)
	b.ReportMetric(p50["bounded"]/p50["position"], "bounded/position-p50")
	b.ReportMetric(0, "ns/op")
}
