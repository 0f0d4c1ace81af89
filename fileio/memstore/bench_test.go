package memstore_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// benchFixture is a store with one project of 100 files of 1 KiB under /dir, and a Service
// over it with the rate limiter on (at a rate the benchmark never reaches) so that its cost
// is included.
type benchFixture struct {
	store *memstore.Store
	svc   *fileio.Service
	ctx   context.Context
	scope driver.Scope
}

const benchFiles = 100

// newBenchService returns an empty store, a Service over it without a rate limit, and a
// context authenticated as the benchmark's tenant.
func newBenchService(b *testing.B) (*memstore.Store, *fileio.Service, context.Context) {
	b.Helper()
	store := memstore.New(memstore.Options{})
	return store, storetest.NewService(b, store), agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("bench-key", "bench"))
}

func newBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	store, svc, ctx := newBenchService(b)
	ac, _ := agentfiles.AuthFromContext(ctx)
	f := &benchFixture{store: store, svc: svc, ctx: ctx, scope: driver.Scope{Tenant: ac.APIKeyHash, Project: "bench"}}
	for i := 0; i < benchFiles; i++ {
		if _, err := svc.Write(f.ctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/dir/f%03d.txt", i), Content: strings.Repeat("x", 1024)}); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

var payload64 = strings.Repeat("y", 64)

// The same three operations, once through the Service and once directly on the Store.
func (f *benchFixture) serviceRead(i int) error {
	_, err := f.svc.Read(f.ctx, fileio.ReadRequest{Project: "bench", Path: fmt.Sprintf("/dir/f%03d.txt", i%benchFiles), OffsetBytes: 0, LengthBytes: new(int64(-1))})
	return err
}

func (f *benchFixture) directRead(i int) error {
	return f.store.View(f.ctx, f.scope, func(tx driver.ReadTx) error {
		file, err := tx.Get(f.ctx, fmt.Sprintf("/dir/f%03d.txt", i%benchFiles))
		_ = string(file.Content)
		return err
	})
}

func (f *benchFixture) serviceWrite(i int) error {
	_, err := f.svc.Write(f.ctx, fileio.WriteRequest{Project: "bench", Path: fmt.Sprintf("/dir/f%03d.txt", i%benchFiles), Content: payload64, Mode: fileio.ModeOverwrite})
	return err
}

func (f *benchFixture) directWrite(i int) error {
	return f.store.Update(f.ctx, f.scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		path := fmt.Sprintf("/dir/f%03d.txt", i%benchFiles)
		file, err := tx.Get(f.ctx, path)
		if err != nil {
			return err
		}
		content := make([]byte, len(file.Content))
		copy(content, file.Content)
		copy(content, payload64)
		_, err = tx.Put(f.ctx, path, content, driver.PutOptions{})
		return err
	})
}

func (f *benchFixture) serviceList(int) error {
	_, err := f.svc.List(f.ctx, fileio.ListRequest{Project: "bench", Path: "/dir", Depth: 1, Limit: 0})
	return err
}

// directList is the least a caller of the Store must do for the same answer: check that the
// path is not a file, list the files below it, keep the immediate children and turn them into
// the FileEntry values a listing returns. (The fixture's directory has no subdirectories, so
// no implicit directory is derived; the Service's check for them counts as its overhead.)
func (f *benchFixture) directList(int) error {
	return f.store.View(f.ctx, f.scope, func(tx driver.ReadTx) error {
		_, err := directListEntries(f.ctx, tx, "/dir")
		return err
	})
}

func directListEntries(ctx context.Context, tx driver.ReadTx, dir string) ([]fileio.FileEntry, error) {
	if _, isFile, err := tx.Stat(ctx, dir); err != nil || isFile {
		return nil, fmt.Errorf("%s: not a directory (%v)", dir, err)
	}
	files, err := tx.List(ctx, dir+"/", 0)
	if err != nil {
		return nil, err
	}
	entries := make([]fileio.FileEntry, 0, len(files))
	for _, fi := range files {
		if strings.Contains(fi.Path[len(dir)+1:], "/") {
			continue
		}
		entries = append(entries, fileio.FileEntry{Name: fi.Path[strings.LastIndexByte(fi.Path, '/')+1:], Path: fi.Path,
			Type: fileio.TypeFile, SizeBytes: fi.SizeBytes, CreatedAt: fi.CreatedAt, UpdatedAt: fi.UpdatedAt})
	}
	return entries, nil
}

// checkSameList fails the benchmark unless directList and the Service return the same entries,
// so that the ratio compares equal work.
func (f *benchFixture) checkSameList(b *testing.B) {
	b.Helper()
	res, err := f.svc.List(f.ctx, fileio.ListRequest{Project: "bench", Path: "/dir", Depth: 1, Limit: 0})
	if err != nil {
		b.Fatal(err)
	}
	var direct []fileio.FileEntry
	if err := f.store.View(f.ctx, f.scope, func(tx driver.ReadTx) error {
		direct, err = directListEntries(f.ctx, tx, "/dir")
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if diff := cmp.Diff(direct, res.Entries); diff != "" {
		b.Fatalf("direct and Service listings differ (-direct +service):\n%s", diff)
	}
}

type benchOp struct {
	name            string
	service, direct func(f *benchFixture, i int) error
}

var benchOps = []benchOp{
	{"read", (*benchFixture).serviceRead, (*benchFixture).directRead},
	{"write", (*benchFixture).serviceWrite, (*benchFixture).directWrite},
	{"list", (*benchFixture).serviceList, (*benchFixture).directList},
}

// BenchmarkService measures Service operations on memstore with 1 and 8 goroutines
// (1 KiB files, 64-byte overwrites, a 100-entry directory) and reports ops/s.
func BenchmarkService(b *testing.B) {
	for _, op := range benchOps {
		for _, goroutines := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", op.name, goroutines), func(b *testing.B) {
				f := newBenchFixture(b)
				b.ResetTimer()
				start := time.Now()
				if goroutines == 1 {
					for i := 0; i < b.N; i++ {
						if err := op.service(f, i); err != nil {
							b.Fatal(err)
						}
					}
				} else {
					b.SetParallelism((goroutines + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
					b.RunParallel(func(pb *testing.PB) {
						i := 0
						for pb.Next() {
							if err := op.service(f, i); err != nil {
								b.Error(err)
								return
							}
							i++
						}
					})
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
			})
		}
	}
}

// BenchmarkServiceOverhead runs the same operation through the Service and directly on the
// Store in the same benchmark and reports both costs and their ratio (service/direct). The
// direct side does the same work and returns the same values (a string for read, FileEntry
// values for list); the Service adds authentication, rate limiting, path and argument
// validation, the conflict and quota checks, the implicit-directory check, and a (disabled)
// log call.
func BenchmarkServiceOverhead(b *testing.B) {
	for _, op := range benchOps {
		b.Run(op.name, func(b *testing.B) {
			f := newBenchFixture(b)
			f.checkSameList(b)
			b.ResetTimer()
			// Interleaved, so that a noisy neighbour slows both sides alike.
			var direct, service time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := op.direct(f, i); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := op.service(f, i); err != nil {
					b.Fatal(err)
				}
				direct += t1.Sub(t0)
				service += time.Since(t1)
			}
			b.ReportMetric(float64(direct.Nanoseconds())/float64(b.N), "direct-ns/op")
			b.ReportMetric(float64(service.Nanoseconds())/float64(b.N), "service-ns/op")
			b.ReportMetric(service.Seconds()/direct.Seconds(), "service/direct")
		})
	}
}

// BenchmarkServiceListLarge lists a project of 2,000 files: 20 directories of 100 files each
// and one flat directory of 2,000 files, with the default limit (256). It measures deriving
// implicit directories, ordering them among the files, and cutting at the limit.
func BenchmarkServiceListLarge(b *testing.B) {
	_, svc, ctx := newBenchService(b)
	for i := 0; i < 2000; i++ {
		for _, p := range []string{fmt.Sprintf("/tree/d%02d/f%03d.txt", i/100, i%100), fmt.Sprintf("/flat/f%04d.txt", i)} {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "bench", Path: p, Content: "x"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		path  string
		depth int
	}{
		{"tree/depth=1", "/tree", 1}, // 20 directories
		{"tree/depth=2", "/tree", 2}, // 20 directories among 2,000 files, cut at 256
		{"flat/depth=1", "/flat", 1}, // 2,000 files, cut at 256
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := svc.List(ctx, fileio.ListRequest{Project: "bench", Path: tc.path, Depth: tc.depth, Limit: 0}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// A page far down a listing: a cursor past /flat/f1792, so the call skips 1,792 entries
	// before it fills its page, run interleaved with the first page and reported as a ratio:
	// what continuing a listing costs over starting it.
	b.Run("flat/depth=1/cursor", func(b *testing.B) {
		req := fileio.ListRequest{Project: "bench", Path: "/flat", Depth: 1}
		for {
			res, err := svc.List(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if !res.Truncated || res.Entries[len(res.Entries)-1].Path >= "/flat/f1792" {
				break
			}
			req.Cursor = res.NextCursor
		}
		b.ReportAllocs()
		b.ResetTimer()
		// Interleaved with the first page, so that a noisy neighbour slows both sides alike.
		var first, cursor time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := svc.List(ctx, fileio.ListRequest{Project: "bench", Path: "/flat", Depth: 1, Limit: 0}); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := svc.List(ctx, req); err != nil {
				b.Fatal(err)
			}
			first += t1.Sub(t0)
			cursor += time.Since(t1)
		}
		b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-ns/op")
		b.ReportMetric(float64(cursor.Nanoseconds())/float64(b.N), "cursor-ns/op")
		b.ReportMetric(cursor.Seconds()/first.Seconds(), "cursor/first")
	})
}
