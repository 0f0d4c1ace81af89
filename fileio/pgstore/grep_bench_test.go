package pgstore_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/google/go-cmp/cmp"
)

// grepBenchCopies is how many times over the GOROOT/src corpus (about 3,000 files / 30 MB) the
// PostgreSQL grep benchmark loads into one project: AGENTFILES_GREP_BENCH_COPIES, default 1.
// The scale is 10 (about 300 MB, several minutes to load on a small machine).
func grepBenchCopies(b *testing.B) int {
	n, err := strconv.Atoi(os.Getenv("AGENTFILES_GREP_BENCH_COPIES"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// BenchmarkGrepVsRipgrep: Service.Grep (files_with_matches) on a PostgreSQL project holding the
// corpus grepBenchCopies times over, against rg -l over the same tree on disk, alternately in
// one loop (x_rg: the ratio of their times). It also reports the trigram index's size against
// the text it covers (index_x_text), and for the pattern without literal text, which reads
// files in path order within the scan budget, the time of one call (its first page).
func BenchmarkGrepVsRipgrep(b *testing.B) {
	copies := grepBenchCopies(b)
	files := grepbench.Copies(grepbench.Corpus(b, 1000, 3000, 30<<20), copies)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, files)
	s, _ := newStore(b, pgstore.Options{})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("bench-key", "bench")
	scope := fileio.Scope{Tenant: ac.APIKeyHash, Project: "corpus"}
	start := time.Now()
	for i := 0; i < len(files); i += 200 {
		batch := files[i:min(i+200, len(files))]
		err := s.Update(ctx, scope, fileio.UpdateOptions{}, func(tx fileio.WriteTx) error {
			for _, f := range batch {
				if _, err := tx.Put(ctx, f.Path, f.Content, fileio.PutOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Pool().Exec(ctx, "VACUUM ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
	var indexBytes, textBytes int64
	err := s.Pool().QueryRow(ctx, `SELECT pg_relation_size('idx_mcp_files_grep_trgm'),
		(SELECT sum(size) FROM mcp_files WHERE deleted = FALSE)::bigint`).Scan(&indexBytes, &textBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("corpus: %d files, %d bytes, loaded in %s; trigram index %d bytes (%.2f x the text)",
		len(files), textBytes, time.Since(start).Round(time.Second), indexBytes, float64(indexBytes)/float64(textBytes))
	svc := storetest.NewService(b, s, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 40; c.MaxFileBytes = 1 << 30 })
	sctx := agentfiles.WithAuth(ctx, ac)
	queries := []struct {
		name, pattern string
		complete      bool // the answer must be complete (and equal rg's)
	}{
		{"RareLiteral", "maxConsecutiveEmptyReads", true},
		{"Regexp", `func \(\w+ \*\w+\) Close\(\) error`, true},
		{"NoLiteral", `^[A-Z][a-z]+ [A-Z]{3,}[a-z]`, false},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			req := fileio.GrepRequest{Project: "corpus", Pattern: q.pattern, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}
			var ours, ref time.Duration
			var scanned int64
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := svc.Grep(sctx, req)
				ours += time.Since(t0)
				if err != nil || (q.complete && res.Truncated) {
					b.Fatalf("Grep: %+v, %v", res, err)
				}
				scanned += res.ScannedBytes
				rg, took := grepbench.Ripgrep(b, dir, "-l", "-e", q.pattern, ".")
				ref += took
				if i == 0 && q.complete {
					want := make([]string, len(rg))
					for k, p := range rg {
						want[k] = "/" + strings.TrimPrefix(p, "./")
					}
					slices.Sort(want)
					if diff := cmp.Diff(want, res.Files); diff != "" || len(want) == 0 {
						b.Fatalf("files differ from rg -l (-rg +ours):\n%s", diff)
					}
				}
			}
			b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/grep")
			b.ReportMetric(float64(ref.Microseconds())/float64(b.N)/1000, "ms/rg")
			b.ReportMetric(float64(ours)/float64(ref), "x_rg")
			b.ReportMetric(float64(scanned)/float64(b.N)/1e6, "MB_scanned")
			b.ReportMetric(float64(indexBytes)/float64(textBytes), "index_x_text")
		})
	}
}

// BenchmarkWriteGrepIndex: Service.Write (TRUNCATE) of real-text files into a database with the
// trigram index of migration 0007 and into one where it was dropped, alternately in one loop;
// x_noindex is the ratio of their times. Two sizes: the corpus files as they are (about 16 KB
// on average), and their first lines up to 1 KiB (a note an agent writes).
func BenchmarkWriteGrepIndex(b *testing.B) {
	files := grepbench.Corpus(b, 200, 600, 8<<20)
	small := make([]grepbench.File, len(files))
	for i, f := range files {
		c := f.Content
		if len(c) > 1024 {
			c = c[:strings.LastIndexByte(string(c[:1024]), '\n')+1]
		}
		small[i] = grepbench.File{Path: f.Path, Content: c}
	}
	for _, size := range []struct {
		name  string
		files []grepbench.File
	}{{"corpus", files}, {"1KiB", small}} {
		b.Run(size.name, func(b *testing.B) { benchWriteGrepIndex(b, size.files) })
	}
}

func benchWriteGrepIndex(b *testing.B, files []grepbench.File) {
	indexed, _ := newStore(b, pgstore.Options{})
	plain, _ := newStore(b, pgstore.Options{})
	ctx := context.Background()
	if _, err := plain.Pool().Exec(ctx, "DROP INDEX idx_mcp_files_grep_trgm"); err != nil {
		b.Fatal(err)
	}
	cfg := func(c *fileio.Config) { c.HistoryVersions = 0 }
	withIndex, without := storetest.NewService(b, indexed, cfg), storetest.NewService(b, plain, cfg)
	sctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("bench-key", "bench"))
	var tIndexed, tPlain time.Duration
	write := func(svc *fileio.Service, f grepbench.File) time.Duration {
		start := time.Now()
		if _, err := svc.Write(sctx, fileio.WriteRequest{Project: "w", Path: f.Path, Content: string(f.Content), Mode: fileio.ModeTruncate}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := files[i%len(files)]
		if i%2 == 0 {
			tIndexed += write(withIndex, f)
			tPlain += write(without, f)
		} else {
			tPlain += write(without, f)
			tIndexed += write(withIndex, f)
		}
	}
	b.ReportMetric(float64(tIndexed.Microseconds())/float64(b.N), "us/write_indexed")
	b.ReportMetric(float64(tPlain.Microseconds())/float64(b.N), "us/write_noindex")
	b.ReportMetric(float64(tIndexed)/float64(tPlain), "x_noindex")
}
