package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkWrite compares, in the same run, three ways to write a 1 KiB file with 1 and 8
// concurrent writers on one project (so all of them contend for the project lock):
//
//	base:    a bare INSERT ... ON CONFLICT DO UPDATE into mcp_files under the same
//	         pg_advisory_xact_lock and lock timeout, in its own transaction (3 round trips)
//	store:   Store.Update with one Put (file + byte count + outbox row, NOTIFY at commit)
//	service: fileio.Service.Write (TRUNCATE), i.e. path checks, quota, Put
//
// It reports p50/p95 latency in µs and throughput per variant, and the store/base and
// service/base ratios (the goal for store is within 1.5x). Variants run in alternating halves
// so that drift on a noisy machine hits all of them.
func BenchmarkWrite(b *testing.B) {
	for _, writers := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, _ := newStore(b, pgstore.Options{})
			ctx := context.Background()
			cfg := fileio.DefaultConfig()
			cfg.RateLimitPerSecond = 0
			svc, err := fileio.NewService(s, cfg)
			if err != nil {
				b.Fatal(err)
			}
			ac := fileio.NewAuthContext("bench-key", "bench")
			sctx := fileio.WithAuth(ctx, ac)
			scope := fileio.Scope{Tenant: ac.APIKeyHash, Project: "bench"}
			content := strings.Repeat("x", 1024)
			variants := []struct {
				name string
				op   func(w int) error
			}{
				{"base", func(w int) error {
					return bareUpsert(ctx, s.Pool(), scope, fmt.Sprintf("/base/w-%d.txt", w), []byte(content))
				}},
				{"store", func(w int) error {
					return s.Update(ctx, scope, func(tx fileio.WriteTx) error {
						_, err := tx.Put(ctx, fmt.Sprintf("/store/w-%d.txt", w), []byte(content), fileio.PutOptions{})
						return err
					})
				}},
				{"service", func(w int) error {
					_, err := svc.Write(sctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/svc/w-%d.txt", w), Content: content, Mode: fileio.ModeTruncate})
					return err
				}},
			}
			lat := make([][]time.Duration, len(variants))
			busy := make([]time.Duration, len(variants))
			b.ResetTimer()
			for half := 0; half < 2; half++ {
				n := b.N / 2
				if half == 1 {
					n = b.N - n
				}
				for v, variant := range variants {
					l, d := runWriters(b, writers, n, variant.op)
					lat[v] = append(lat[v], l...)
					busy[v] += d
				}
			}
			b.StopTimer()
			p50, p95, tput := map[string]float64{}, map[string]float64{}, map[string]float64{}
			for v, variant := range variants {
				slices.Sort(lat[v])
				p50[variant.name] = float64(pct(lat[v], 50).Microseconds())
				p95[variant.name] = float64(pct(lat[v], 95).Microseconds())
				tput[variant.name] = float64(len(lat[v])) / busy[v].Seconds()
				b.ReportMetric(p50[variant.name], variant.name+"-p50-µs")
				b.ReportMetric(p95[variant.name], variant.name+"-p95-µs")
				b.ReportMetric(tput[variant.name], variant.name+"-writes/s")
			}
			b.ReportMetric(p50["store"]/p50["base"], "store/base-p50")
			b.ReportMetric(tput["base"]/tput["store"], "base/store-time")
			b.ReportMetric(p50["service"]/p50["base"], "service/base-p50")
			b.ReportMetric(0, "ns/op") // the per-variant metrics above are the result
		})
	}
}

// bareUpsert is the reference: the least a correct locked write can do.
func bareUpsert(ctx context.Context, pool *pgxpool.Pool, scope fileio.Scope, path string, content []byte) error {
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
	ac := fileio.NewAuthContext("bench-key", "bench")
	scope := fileio.Scope{Tenant: ac.APIKeyHash, Project: "bench"}
	_, err := s.Pool().Exec(ctx, `INSERT INTO mcp_files (apikey_hash, project, path, content, size)
SELECT $1, $2, format('/d%s/f%s.txt', i / 100, i % 100), convert_to(repeat('x', 1024), 'UTF8'), 1024
FROM generate_series(0, 9999) i`, scope.Tenant, scope.Project)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, "ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	svc, err := fileio.NewService(s, cfg)
	if err != nil {
		b.Fatal(err)
	}
	sctx := fileio.WithAuth(ctx, ac)
	cases := []struct {
		name string
		op   func(i int) error
	}{
		{"Get", func(i int) error {
			return s.View(ctx, scope, func(tx fileio.ReadTx) error {
				_, err := tx.Get(ctx, fmt.Sprintf("/d%d/f%d.txt", i%100, i%97))
				return err
			})
		}},
		{"Stat", func(i int) error {
			return s.View(ctx, scope, func(tx fileio.ReadTx) error {
				_, _, err := tx.Stat(ctx, fmt.Sprintf("/d%d/f%d.txt", i%100, i%97))
				return err
			})
		}},
		{"ListDir100", func(i int) error {
			return s.View(ctx, scope, func(tx fileio.ReadTx) error {
				fis, err := tx.List(ctx, fmt.Sprintf("/d%d/", i%100), 0)
				if err == nil && len(fis) != 100 {
					err = fmt.Errorf("listed %d files, want 100", len(fis))
				}
				return err
			})
		}},
		{"ListRoot256", func(i int) error {
			return s.View(ctx, scope, func(tx fileio.ReadTx) error {
				_, err := tx.List(ctx, "/", 256)
				return err
			})
		}},
		{"ServiceRead", func(i int) error {
			_, err := svc.Read(sctx, "bench", fmt.Sprintf("/d%d/f%d.txt", i%100, i%97), 0, 0)
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
