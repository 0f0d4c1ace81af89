package pgindex_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// BenchmarkIndexerIngest indexes as a server does: one-chunk files (about 300 bytes) written
// through fileio.Service on pgstore, search.Indexer.Start with its default workers draining the
// outbox into pgindex (merges included), the hashing embedder at 64 and 1,536 dimensions.
//
// A project is grown to 1k, 10k and (with AGENTFILES_BENCH_100K=1) 100k files. At each size
// the benchmark indexes 500 new files of that project and 500 of a new, empty project, twice in
// turn, and reports the rate of each (files/s@N, files/s-empty@N) and their ratio (x-empty@N):
// measured back to back, so the ratio holds on a loaded machine. A ratio near 1 at every size
// means a job's cost does not grow with its project. files/s-fill@N is the rate of growing the
// project to N. s-job-max@N is the longest any job of those runs waited from its write to its
// indexing (writing is untimed, so it includes the write phase): a job left leased by nobody
// would show as the lease, 120 s.
//
//	go test -run '^$' -bench IndexerIngest -benchtime 1x ./search/pgindex/
//	AGENTFILES_BENCH_100K=1 go test -run '^$' -bench IndexerIngest -benchtime 1x -timeout 2h ./search/pgindex/
func BenchmarkIndexerIngest(b *testing.B) {
	sizes := []int{1_000, 10_000}
	if os.Getenv("AGENTFILES_BENCH_100K") == "1" {
		sizes = append(sizes, 100_000)
	}
	for _, dims := range []int{64, 1536} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			for range b.N {
				ingestRun(b, dims, sizes)
			}
		})
	}
}

// ingestEnv is a pgstore Service and a pgindex Index on a fresh database.
type ingestEnv struct {
	store   *pgstore.Store
	ix      *pgindex.Index
	svc     *fileio.Service
	dims    int
	written map[string]int // files written per project
}

func ingestRun(b *testing.B, dims int, sizes []int) {
	b.StopTimer()
	ctx := context.Background()
	url := pgtest.New(b)
	store, err := pgstore.Open(ctx, url, pgstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ix, err := pgindex.Open(ctx, url, pgindex.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	cfg := fileio.DefaultConfig()
	cfg.RateLimitPerSecond = 0
	svc, err := fileio.NewService(store, fileio.Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	e := &ingestEnv{store: store, ix: ix, svc: svc, dims: dims, written: make(map[string]int)}
	const batch = 500
	for _, n := range sizes {
		grow := n - e.written["big"] - 2*batch
		fill, jobMax := e.index(b, "big", grow)
		var big, empty time.Duration
		for range 2 {
			took, slowest := e.index(b, "big", batch)
			big, jobMax = big+took, max(jobMax, slowest)
			took, slowest = e.index(b, fmt.Sprintf("empty%d", n), batch)
			empty, jobMax = empty+took, max(jobMax, slowest)
		}
		k := fmt.Sprintf("@%dk", n/1000)
		b.ReportMetric(jobMax.Seconds(), "s-job-max"+k)
		if grow > 0 {
			b.ReportMetric(float64(grow)/fill.Seconds(), "files/s-fill"+k)
		}
		b.ReportMetric(2*batch/big.Seconds(), "files/s"+k)
		b.ReportMetric(2*batch/empty.Seconds(), "files/s-empty"+k)
		b.ReportMetric(empty.Seconds()/big.Seconds(), "x-empty"+k)
	}
}

// index writes n files to project (untimed), then starts an Indexer with the default options
// and returns how long it took to index them and the longest a job waited from its write.
func (e *ingestEnv) index(b *testing.B, project string, n int) (took, jobMax time.Duration) {
	b.Helper()
	first := e.written[project]
	writeFiles(b, e.svc, project, first, first+n)
	e.written[project] += n
	ctx := context.Background()
	indexer, err := search.NewIndexer(e.store, e.ix, search.IndexerOptions{Embedder: search.NewHashingEmbedder(e.dims)})
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	start := time.Now()
	indexer.Start(ctx)
	tick := time.NewTicker(time.Millisecond)
	for indexer.Stats().Indexed < int64(n) {
		<-tick.C
	}
	took = time.Since(start)
	b.StopTimer()
	tick.Stop()
	if err := indexer.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	return took, indexer.Stats().Freshness.Max
}

// writeFiles writes the one-chunk files [from, to) of project (about 300 bytes of Zipf words
// each) through svc from four goroutines.
func writeFiles(b *testing.B, svc *fileio.Service, project string, from, to int) {
	b.Helper()
	ctx := indextest.Ctx(benchKey)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(from+w), 7))
			for i := from + w; i < to; i += 4 {
				var sb strings.Builder
				for sb.Len() < 300 {
					sb.WriteString(zipfWord(r))
					sb.WriteByte(' ')
				}
				path := fmt.Sprintf("/d%03d/f%06d.txt", i%500, i)
				if _, err := svc.Write(ctx, fileio.WriteRequest{Project: project, Path: path, Content: sb.String(), Mode: fileio.ModeTruncate}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
