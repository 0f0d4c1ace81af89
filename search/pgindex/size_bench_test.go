package pgindex_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// indexSizes are the project sizes BenchmarkIndexSize builds, in chunks.
var indexSizes = flag.String("pgindex.sizes", "10000", "comma-separated chunk counts that BenchmarkIndexSize builds (e.g. 10000,100000 or 1000000)")

// BenchmarkIndexSize measures, on the benchmark corpus (see bench_test.go: 400-byte chunks, ten
// per file, 64-dimension hashing vectors), what the index stores in PostgreSQL against the text
// it indexes, and how fast it ingests it against memindex in the same run. One op builds one
// project of each size of -pgindex.sizes (default 10000):
//
//	go test -run '^$' -bench IndexSize -benchtime 1x ./search/pgindex/
//	go test -run '^$' -bench IndexSize -benchtime 1x -pgindex.sizes=10000,100000 -timeout 2h ./search/pgindex/
//	go test -run '^$' -bench IndexSize -benchtime 1x -pgindex.sizes=1000000 -timeout 6h ./search/pgindex/
//
// Metrics: chunks/s of ReplaceFile from two goroutines (as two Indexer workers on a 2-core
// machine would call it; chunking, analysis and embedding are done before the clock starts) for
// pgindex and, over the same files, memindex (memindex-chunks/s, and x-memindex-rate, pgindex's
// rate as a fraction of memindex's); index_bytes/text_byte, the pg_total_relation_size of every
// search table except the vectors (projects, files, chunks, postings and their indexes, TOAST
// included) over the files' content bytes; and bytes/vector, the vector table's size per
// vector (raw-bytes/vector is 4 × dimensions). Each table's share is logged.
func BenchmarkIndexSize(b *testing.B) {
	for _, s := range strings.Split(*indexSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("-pgindex.sizes: %q is not a chunk count", s)
		}
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			for range b.N {
				measureIndexSize(b, n)
			}
		})
	}
}

// indexRelations are the tables whose pg_total_relation_size counts as the index (everything
// but the vectors).
var indexRelations = []string{"mcp_search_projects", "mcp_search_files", "mcp_search_segments", "mcp_search_pending", "mcp_search_served", "mcp_search_chunk_tsv"}

func measureIndexSize(t *testing.B, chunks int) {
	ix, _ := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	emb := search.NewHashingEmbedder(benchDims)
	r := rand.New(rand.NewPCG(1, uint64(chunks)))
	var textBytes int64
	var elapsed, memElapsed time.Duration
	mem := memindex.New()
	total, nfiles := 0, 0
	base := time.Now()
	for total < chunks {
		// Prepare a batch of files first (chunking, analysis, embedding), so that the clock
		// measures the index alone and memory stays bounded.
		var files []indexdriver.IndexedFile
		for batch := 0; batch < 20_000 && total < chunks; nfiles++ {
			content := benchFile(r)
			f := indexedFile(fmt.Sprintf("/dir%02d/file%07d.txt", nfiles%50, nfiles), base.Add(time.Duration(nfiles)), content, benchChunker, emb)
			files = append(files, f)
			textBytes += int64(len(content))
			total += len(f.Chunks)
			batch += len(f.Chunks)
		}
		elapsed += replaceAll(t, ix, files)
		memElapsed += replaceAll(t, mem, files)
	}
	// Ingest is done when the background merges are: merge what is still pending, on the clock.
	writes := elapsed
	start := time.Now()
	if err := ix.Merge(ctx, testScope); err != nil {
		t.Fatal(err)
	}
	elapsed += time.Since(start)
	if _, err := ix.Pool().Exec(ctx, "VACUUM ANALYZE"); err != nil {
		t.Fatal(err)
	}
	var indexBytes, vectorBytes, vectors int64
	for _, rel := range indexRelations {
		var n int64
		if err := ix.Pool().QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", rel).Scan(&n); err != nil {
			t.Fatal(err)
		}
		var live int64
		if err := ix.Pool().QueryRow(ctx, "SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM "+rel+" t").Scan(&live); err != nil {
			t.Fatal(err)
		}
		t.Logf("%-26s %12d bytes (%.2f× the text; rows %.2f×)", rel, n, float64(n)/float64(textBytes), float64(live)/float64(textBytes))
		indexBytes += n
	}
	if err := ix.Pool().QueryRow(ctx, "SELECT pg_total_relation_size('mcp_search_vectors'), (SELECT coalesce(sum(chunk_count), 0) FROM mcp_search_files WHERE embedding_model <> '')").Scan(&vectorBytes, &vectors); err != nil {
		t.Fatal(err)
	}
	rate, memRate := float64(total)/elapsed.Seconds(), float64(total)/memElapsed.Seconds()
	var segments int64
	if err := ix.Pool().QueryRow(ctx, "SELECT count(*) FROM mcp_search_segments").Scan(&segments); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d chunks in %d files, %d text bytes; ingest %.0f chunks/s (%v, 2 goroutines, of which the final merge %v; %d segments), memindex %.0f chunks/s",
		total, nfiles, textBytes, rate, elapsed.Round(time.Millisecond), (elapsed - writes).Round(time.Millisecond), segments, memRate)
	t.Logf("index without vectors: %d bytes, index bytes ÷ text bytes = %.2f (goal ≤ 1.0)", indexBytes, float64(indexBytes)/float64(textBytes))
	t.ReportMetric(rate, "chunks/s")
	t.ReportMetric(float64(total)/writes.Seconds(), "write-chunks/s")
	t.ReportMetric(memRate, "memindex-chunks/s")
	t.ReportMetric(rate/memRate, "x-memindex-rate")
	t.ReportMetric(float64(indexBytes)/float64(textBytes), "index_bytes/text_byte")
	if vectors > 0 {
		t.Logf("vectors: %d bytes for %d vectors of %d dims = %.0f bytes per vector (raw %d)", vectorBytes, vectors, benchDims, float64(vectorBytes)/float64(vectors), 4*benchDims)
		t.ReportMetric(float64(vectorBytes)/float64(vectors), "bytes/vector")
		t.ReportMetric(4*benchDims, "raw-bytes/vector")
	}
	t.ReportMetric(0, "ns/op") // one op builds a whole project: its time says nothing
}

// replaceAll indexes files with ReplaceFile from two goroutines and returns the time it took.
func replaceAll(t testing.TB, ix indexdriver.Index, files []indexdriver.IndexedFile) time.Duration {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	start := time.Now()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				if err := ix.ReplaceFile(context.Background(), testScope, files[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return elapsed
}
