package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkWrite compares, in the same run, four ways to write a 1 KiB file with 1 and 8
// concurrent writers on one project (so all of them contend for the project lock):
//
//	base:     a bare INSERT ... ON CONFLICT DO UPDATE into mcp_files under the same
//	          pg_advisory_xact_lock and lock timeout, in its own transaction (3 round trips)
//	store:    Store.Update with one Put (file + byte count + outbox row, NOTIFY at commit)
//	service:  fileio.Service.Write (TRUNCATE) with the history off (Config.HistoryVersions 0):
//	          path checks, quota and the write in one driver.ConditionalWriter statement, sent
//	          with BEGIN, the lock and COMMIT in one batch (driver.ConditionalUpdater: 1 round
//	          trip)
//	history:  the same with the history on (the default: 10 versions), so that the same
//	          statement also copies each replaced version into mcp_file_versions (the CTEs
//	          of sqlWriteIfAllowed; before migration 0006 the trigger of 0005 did)
//	portable: the same Service.Write over storetest.WithoutOptional(store), i.e. without the
//	          optional interfaces: a Stat per ancestor, List, Get, then Put (6 round trips)
//
// It reports p50/p95 latency in µs and throughput per variant, and the store/base,
// service/base and portable/base ratios (the goal is within 1.5x), and history/base (the goal
// is within 2x). Variants take turns in
// rounds (see rounds) so that drift on a noisy machine hits all of them.
func BenchmarkWrite(b *testing.B) {
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, _ := newStore(b, pgstore.Options{})
			ctx := context.Background()
			history := benchService(b, s, true)
			svc := benchService(b, s, false)
			portable := benchService(b, storetest.WithoutOptional(s), false)
			ac := agentfiles.NewAuthContext("bench-key", "bench")
			sctx := agentfiles.WithAuth(ctx, ac)
			scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "bench"}
			content := strings.Repeat("x", 1024)
			variants := []benchVariant{
				{"base", func(w int) error {
					return bareUpsert(ctx, s.Pool(), scope, fmt.Sprintf("/base/w-%d.txt", w), []byte(content))
				}},
				{"store", func(w int) error {
					return s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
						_, err := tx.Put(ctx, fmt.Sprintf("/store/w-%d.txt", w), []byte(content), driver.PutOptions{})
						return err
					})
				}},
				{"service", func(w int) error {
					_, err := svc.Write(sctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/svc/w-%d.txt", w), Content: content, Mode: fileio.ModeTruncate})
					return err
				}},
				{"history", func(w int) error {
					_, err := history.Write(sctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/history/w-%d.txt", w), Content: content, Mode: fileio.ModeTruncate})
					return err
				}},
				{"portable", func(w int) error {
					_, err := portable.Write(sctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/portable/w-%d.txt", w), Content: content, Mode: fileio.ModeTruncate})
					return err
				}},
			}
			lat, busy := map[string][]time.Duration{}, map[string]time.Duration{}
			b.ResetTimer()
			for _, n := range rounds(b.N) {
				for _, variant := range variants {
					l, d := runWriters(b, writers, n, variant.op)
					lat[variant.name] = append(lat[variant.name], l...)
					busy[variant.name] += d
				}
			}
			b.StopTimer()
			p50 := reportLatencies(b, lat, time.Microsecond)
			tput := map[string]float64{}
			for name, l := range lat {
				tput[name] = float64(len(l)) / busy[name].Seconds()
				b.ReportMetric(tput[name], name+"-writes/s")
			}
			b.ReportMetric(p50["store"]/p50["base"], "store/base-p50")
			b.ReportMetric(tput["base"]/tput["store"], "base/store-time")
			b.ReportMetric(p50["service"]/p50["base"], "service/base-p50")
			b.ReportMetric(tput["base"]/tput["service"], "base/service-time")
			b.ReportMetric(p50["portable"]/p50["base"], "portable/base-p50")
			b.ReportMetric(p50["history"]/p50["base"], "history/base-p50")
			b.ReportMetric(tput["base"]/tput["history"], "base/history-time")
			b.ReportMetric(0, "ns/op") // the per-variant metrics above are the result
		})
	}
}

// BenchmarkAppend compares, in the same run, APPEND writes of 256 bytes to a file that starts
// at 64 KiB (one file per writer, 1 and 8 writers on one project) through fileio.Service.Write
// with the optional interfaces (service: one driver.ConditionalWriter statement that runs
// content = content || $data in PostgreSQL) and without them (portable: Get ships the whole
// file to the client, Put ships it back). It reports p50/p95 in µs and the service/portable
// ratio of p50s.
func BenchmarkAppend(b *testing.B) {
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, _ := newStore(b, pgstore.Options{})
			sctx := benchCaller()
			record := strings.Repeat("r", 255) + "\n"
			variants := []struct {
				name  string
				store driver.Store
			}{{"service", s}, {"portable", storetest.WithoutOptional(s)}}
			ops := make([]func(w int) error, len(variants))
			for v, variant := range variants {
				svc := benchService(b, variant.store, true)
				for w := 0; w < writers; w++ {
					req := fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/%s/log-%d.txt", variant.name, w), Content: strings.Repeat("x", 64<<10), Mode: fileio.ModeTruncate}
					if _, err := svc.Write(sctx, req); err != nil {
						b.Fatal(err)
					}
				}
				ops[v] = func(w int) error {
					_, err := svc.Write(sctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/%s/log-%d.txt", variant.name, w), Content: record, Mode: fileio.ModeAppend})
					return err
				}
			}
			lat := map[string][]time.Duration{}
			b.ResetTimer()
			for _, n := range rounds(b.N) {
				for v, variant := range variants {
					l, _ := runWriters(b, writers, n, ops[v])
					lat[variant.name] = append(lat[variant.name], l...)
				}
			}
			b.StopTimer()
			p50 := reportLatencies(b, lat, time.Microsecond)
			b.ReportMetric(p50["service"]/p50["portable"], "service/portable-p50")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// bareUpsert is the reference: the least a correct locked write can do.
func bareUpsert(ctx context.Context, pool *pgxpool.Pool, scope driver.Scope, path string, content []byte) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, fmt.Sprintf("BEGIN; SET LOCAL lock_timeout = 5000; SELECT pg_advisory_xact_lock(%d)", pgstore.ProjectLockKey(scope))); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, `INSERT INTO mcp_files (apikey_hash, project, path, content, size)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
SET content = EXCLUDED.content, size = EXCLUDED.size, updated_at = now()`,
		scope.Tenant, scope.Project, path, content, int64(len(content)))
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return err
	}
	_, err = conn.Exec(ctx, "COMMIT")
	return err
}

// rounds splits n operations into up to 20 rounds of at least 25. The variants of a benchmark
// take turns round by round, so that load from elsewhere on a shared machine hits all of them.
func rounds(n int) []int {
	k := min(20, max(1, n/25))
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// runWriters performs n operations split across writers goroutines and returns each
// operation's latency and the wall time.
func runWriters(b *testing.B, writers, n int, op func(w int) error) ([]time.Duration, time.Duration) {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < writers; w++ {
		count := n / writers
		if w < n%writers {
			count++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, count)
			for i := 0; i < count; i++ {
				t0 := time.Now()
				if err := op(w); err != nil {
					b.Error(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, time.Since(start)
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}

// BenchmarkRead10k measures reads in a project of 10,000 files of 1 KiB (100 directories of 100
// files): Get of one file, Stat, List of one directory (100 entries), List of the first 256 paths
// of the project, and the Service's Read of a file. It reports p50/p95 in µs.
func BenchmarkRead10k(b *testing.B) {
	s, _ := newStore(b, pgstore.Options{})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("bench-key", "bench")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "bench"}
	_, err := s.Pool().Exec(ctx, `INSERT INTO mcp_files (apikey_hash, project, path, content, size)
SELECT $1, $2, format('/d%s/f%s.txt', i / 100, i % 100), convert_to(repeat('x', 1024), 'UTF8'), 1024
FROM generate_series(0, 9999) i`, scope.Tenant, scope.Project)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, "ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
	svc := benchService(b, s, true)
	sctx := agentfiles.WithAuth(ctx, ac)
	cases := []benchVariant{
		{"Get", func(i int) error {
			return s.View(ctx, scope, func(tx driver.ReadTx) error {
				_, err := tx.Get(ctx, fmt.Sprintf("/d%d/f%d.txt", i%100, i%97))
				return err
			})
		}},
		{"Stat", func(i int) error {
			return s.View(ctx, scope, func(tx driver.ReadTx) error {
				_, _, err := tx.Stat(ctx, fmt.Sprintf("/d%d/f%d.txt", i%100, i%97))
				return err
			})
		}},
		{"ListDir100", func(i int) error {
			return s.View(ctx, scope, func(tx driver.ReadTx) error {
				fis, err := tx.List(ctx, fmt.Sprintf("/d%d/", i%100), 0)
				if err == nil && len(fis) != 100 {
					err = fmt.Errorf("listed %d files, want 100", len(fis))
				}
				return err
			})
		}},
		{"ListRoot256", func(i int) error {
			return s.View(ctx, scope, func(tx driver.ReadTx) error {
				_, err := tx.List(ctx, "/", 256)
				return err
			})
		}},
		{"ServiceRead", func(i int) error {
			_, err := svc.Read(sctx, fileio.ReadRequest{Project: "bench", Path: fmt.Sprintf("/d%d/f%d.txt", i%100, i%97), OffsetBytes: 0, LengthBytes: new(int64(0))})
			return err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				if err := c.op(i); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(pct(lat, 50).Microseconds()), "p50-µs")
			b.ReportMetric(float64(pct(lat, 95).Microseconds()), "p95-µs")
		})
	}
}

// benchVariant is one named way of doing what a benchmark measures: op performs one operation,
// given its number (timeRounds, b.Loop) or its writer's (runWriters).
type benchVariant struct {
	name string
	op   func(i int) error
}

// timeRounds runs b.N operations of each variant on one goroutine, the variants taking turns in
// rounds, with the timer running only meanwhile, and returns each variant's latencies by name.
func timeRounds(b *testing.B, variants []benchVariant) map[string][]time.Duration {
	lat := make(map[string][]time.Duration, len(variants))
	counts := make([]int, len(variants))
	b.ResetTimer()
	for _, n := range rounds(b.N) {
		for v, variant := range variants {
			for range n {
				t0 := time.Now()
				if err := variant.op(counts[v]); err != nil {
					b.Fatal(err)
				}
				lat[variant.name] = append(lat[variant.name], time.Since(t0))
				counts[v]++
			}
		}
	}
	b.StopTimer()
	return lat
}

// reportLatencies sorts each variant's latencies, reports their p50 and p95 in unit (µs or ms)
// as "<name>-p50-<unit>" and "<name>-p95-<unit>", and returns the p50s by name for ratios.
func reportLatencies(b *testing.B, lat map[string][]time.Duration, unit time.Duration) map[string]float64 {
	suffix := map[time.Duration]string{time.Microsecond: "µs", time.Millisecond: "ms"}[unit]
	p50 := make(map[string]float64, len(lat))
	for name, l := range lat {
		slices.Sort(l)
		p50[name] = float64(pct(l, 50)) / float64(unit)
		b.ReportMetric(p50[name], name+"-p50-"+suffix)
		b.ReportMetric(float64(pct(l, 95))/float64(unit), name+"-p95-"+suffix)
	}
	return p50
}

// benchCaller is the context of every benchmark's Service calls: the tenant of the API key
// "bench-key".
func benchCaller() context.Context {
	return agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
}

// benchService returns a Service over store with the default configuration, no rate limit and
// the history on (the default) or off.
func benchService(b *testing.B, store driver.Store, history bool) *fileio.Service {
	b.Helper()
	if history {
		return storetest.NewService(b, store)
	}
	return storetest.NewService(b, store, func(cfg *fileio.Config) { cfg.HistoryVersions = 0 })
}
