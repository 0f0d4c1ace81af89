package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/jackc/pgx/v5"
)

// backlog writes, for each of tenants tenants, files files (every other one empty, the others
// 1,850 bytes of text) with PutMany, leaving them to the grep indexer, and returns the bytes
// of text.
func backlog(tb testing.TB, s *pgstore.Store, tenants, files int) int64 {
	tb.Helper()
	ctx := context.Background()
	text := []byte(strings.Repeat("a line of text for the trigram index\n", 50))
	var total int64
	for k := range tenants {
		batch := make([]driver.File, files)
		for i := range batch {
			batch[i] = driver.File{FileInfo: driver.FileInfo{Path: fmt.Sprintf("/d%02d/f%06d.txt", i%50, i)}, Content: []byte{}}
			if i%2 == 1 {
				batch[i].Content = text
				total += int64(len(text))
			}
		}
		err := s.Update(ctx, driver.Scope{Tenant: fmt.Sprintf("%064d", k), Project: "upload"}, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
			return tx.(driver.BulkWriter).PutMany(ctx, batch, driver.BulkOptions{DeferIndex: true})
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return total
}

// BenchmarkIndexGrepCatchUp measures how fast the grep indexer catches up with a backlog of 6
// tenants × 1,000 files (half empty, half 1,850 bytes): IndexGrep in tenants' turns at the
// default GrepIndexBatchBytes (64 KiB) and at 256 KiB, against the reference of one UPDATE
// that indexes the whole backlog in one statement (the least work, holding every row until it
// ends). Each iteration unindexes everything first (outside the timing). x_* are each one's
// time over the reference's.
func BenchmarkIndexGrepCatchUp(b *testing.B) {
	ctx := context.Background()
	type variant struct {
		name string
		run  func() error
		took time.Duration
	}
	var variants []*variant
	var stores []*pgstore.Store
	for _, batch := range []int64{64 << 10, 256 << 10} {
		s, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1, PurgeInterval: -1, GrepIndexBatchBytes: batch})
		stores = append(stores, s)
		variants = append(variants, &variant{name: fmt.Sprintf("turns_%dKiB", batch>>10), run: func() error { _, err := s.IndexGrep(ctx); return err }})
	}
	ref, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1, PurgeInterval: -1})
	stores = append(stores, ref)
	variants = append(variants, &variant{name: "one_statement", run: func() error {
		_, err := ref.Pool().Exec(ctx, `SET agentfiles.history_versions = 0;
UPDATE mcp_files SET grep_indexed = TRUE WHERE deleted = FALSE AND NOT grep_indexed`)
		return err
	}})
	var files, text int64
	for _, s := range stores {
		text = backlog(b, s, 6, 1000)
		files = 6 * 1000
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range variants {
			v := variants[(i+k)%len(variants)]
			b.StopTimer()
			s := stores[(i+k)%len(variants)]
			for _, sql := range []string{"SET agentfiles.history_versions = 0; UPDATE mcp_files SET grep_indexed = FALSE WHERE grep_indexed", "VACUUM mcp_files"} {
				if _, err := s.Pool().Exec(ctx, sql); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			start := time.Now()
			if err := v.run(); err != nil {
				b.Fatal(err)
			}
			v.took += time.Since(start)
		}
	}
	b.StopTimer()
	reference := variants[len(variants)-1]
	for _, v := range variants {
		b.ReportMetric(float64(files*int64(b.N))/v.took.Seconds(), "files/s_"+v.name)
		if v != reference {
			b.ReportMetric(float64(v.took)/float64(reference.took), "x_"+v.name)
		}
	}
	b.Logf("backlog: %d files, %d bytes of text", files, text)
}

// BenchmarkClaimJobs measures one claim of 16 jobs from an outbox of 10 tenants × 2,000 jobs,
// each claim's jobs then completed (outside the timing): ClaimJobs, in tenants' turns, against
// the reference of the claim before them (one statement taking the 16 oldest jobs of any
// tenant, in the global queue order, on the index it had), each on a database of its own.
// x_turns is its time over the reference's.
func BenchmarkClaimJobs(b *testing.B) {
	ctx := context.Background()
	turnsStore, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1, PurgeInterval: -1})
	globalStore, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1, PurgeInterval: -1})
	for _, s := range []*pgstore.Store{turnsStore, globalStore} {
		backlog(b, s, 10, 2000)
	}
	if _, err := globalStore.Pool().Exec(ctx, `CREATE INDEX bench_jobs_global ON mcp_file_index_jobs (status, enqueued_at, id)`); err != nil {
		b.Fatal(err)
	}
	if b.N*16 > 20000 {
		b.Fatalf("%d claims of 16 jobs need more than the 20,000 jobs queued", b.N)
	}
	const sqlGlobal = `WITH c AS (
    SELECT id FROM mcp_file_index_jobs
    WHERE status = 'pending' AND available_at <= statement_timestamp()
    ORDER BY enqueued_at, id LIMIT 16 FOR UPDATE SKIP LOCKED)
UPDATE mcp_file_index_jobs j SET available_at = statement_timestamp() + interval '1 hour'
FROM c WHERE j.id = c.id RETURNING j.id`
	var turns, global time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		jobs, err := turnsStore.ClaimJobs(ctx, 16, time.Hour)
		turns += time.Since(start)
		if err != nil || len(jobs) != 16 {
			b.Fatalf("ClaimJobs: %d jobs, %v", len(jobs), err)
		}
		start = time.Now()
		rows, err := globalStore.Pool().Query(ctx, sqlGlobal)
		var ids []int64
		if err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		global += time.Since(start)
		if err != nil || len(ids) != 16 {
			b.Fatalf("the reference claim: %d jobs, %v", len(ids), err)
		}
		b.StopTimer()
		for _, j := range jobs {
			if err := turnsStore.CompleteJob(ctx, j); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := globalStore.Pool().Exec(ctx, "DELETE FROM mcp_file_index_jobs WHERE id = ANY($1)", ids); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(turns.Microseconds())/float64(b.N), "us/claim_turns")
	b.ReportMetric(float64(global.Microseconds())/float64(b.N), "us/claim_global")
	b.ReportMetric(float64(turns)/float64(global), "x_turns")
}
