package pgstore_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/grepbench"
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
// files in path order within the scan budget, the time of one call (its first page). The
// corpus is written with no background indexer: Unindexed/* grep it as just written (no file
// in the trigram index yet), then IndexGrep catches up (its rate is logged) and the others run
// on the indexed corpus.
func BenchmarkGrepVsRipgrep(b *testing.B) {
	copies := grepBenchCopies(b)
	files := grepbench.Copies(grepbench.Corpus(b, 1000, 3000, 30<<20), copies)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, files)
	s, _ := newStore(b, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("bench-key", "bench")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "corpus"}
	start := time.Now()
	for i := 0; i < len(files); i += 200 {
		batch := files[i:min(i+200, len(files))]
		err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
			for _, f := range batch {
				if _, err := tx.Put(ctx, f.Path, f.Content, driver.PutOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	loaded := time.Since(start)
	if _, err := s.Pool().Exec(ctx, "ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
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
	// Just written: no file is in the trigram index yet, so grep reads them all within its scan
	// budget (a complete answer at ×1, a first page and a cursor past 64 MiB).
	for _, q := range queries[:2] {
		b.Run("Unindexed/"+q.name, func(b *testing.B) {
			req := fileio.GrepRequest{Project: "corpus", Pattern: q.pattern, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}
			var took time.Duration
			var scanned int64
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res, err := svc.Grep(sctx, req)
				took += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				scanned += res.ScannedBytes
			}
			b.ReportMetric(float64(took.Microseconds())/float64(b.N)/1000, "ms/grep")
			b.ReportMetric(float64(scanned)/float64(b.N)/1e6, "MB_scanned")
		})
	}
	start = time.Now()
	indexed, err := s.IndexGrep(ctx)
	if err != nil {
		b.Fatal(err)
	}
	catchUp := time.Since(start)
	if _, err := s.Pool().Exec(ctx, "VACUUM ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
	var indexBytes, pendingBytes, textBytes int64
	err = s.Pool().QueryRow(ctx, `SELECT pg_relation_size('idx_mcp_files_grep_fold'), pg_relation_size('idx_mcp_files_grep_pending'),
		(SELECT sum(size) FROM mcp_files WHERE deleted = FALSE)::bigint`).Scan(&indexBytes, &pendingBytes, &textBytes)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("corpus: %d files, %d bytes, loaded in %s; indexed for grep in %s (%.0f files/s, %.1f MB/s); trigram index %d bytes (%.2f x the text); pending-file index %d bytes",
		len(files), textBytes, loaded.Round(time.Millisecond), catchUp.Round(time.Millisecond), float64(indexed)/catchUp.Seconds(),
		float64(textBytes)/1e6/catchUp.Seconds(), indexBytes, float64(indexBytes)/float64(textBytes), pendingBytes)
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			req := fileio.GrepRequest{Project: "corpus", Pattern: q.pattern}
			benchGrepVsRipgrep(b, svc, sctx, dir, req, []string{"-l", "-e", q.pattern}, !q.complete)
			b.ReportMetric(float64(indexBytes)/float64(textBytes), "index_x_text")
		})
	}
}

// BenchmarkWriteGrepIndex: Service.Write (TRUNCATE, history off) of real-text files into four
// databases, in a rotating order in one loop: noindex, where migration 0008's grep indexes
// and its UTF-8 check were dropped (the reference); deferred, the schema as migrated with no background indexer,
// whose files are indexed between writes outside the timed part (IndexGrep every 50 writes), so
// that each timed write replaces an indexed row as in steady state; deferred_bg, the schema as
// migrated with the background indexer running at its default interval (it competes for the
// CPU); and inwrite, where 0008's indexes were replaced by migration 0007's GIN index on every
// active row, maintained by the write itself (the design before 0008). x_* are each one's time
// over noindex's. Two sizes: the corpus files as they are (about 16 KB on average), and their
// first lines up to 1 KiB (a note an agent writes). It logs each database's table size
// (pg_table_size, heap and TOAST, dead row versions included) after the writes.
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
	ctx := context.Background()
	type variant struct {
		name  string
		store *pgstore.Store
		svc   *fileio.Service
		took  time.Duration
	}
	mk := func(name string, opts pgstore.Options, sql ...string) *variant {
		s, _ := newStore(b, opts)
		for _, q := range sql {
			if _, err := s.Pool().Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
		return &variant{name: name, store: s, svc: storetest.NewService(b, s, func(c *fileio.Config) { c.HistoryVersions = 0 })}
	}
	const dropDeferred = "DROP INDEX idx_mcp_files_grep_fold, idx_mcp_files_grep_pending"
	noindex := mk("noindex", pgstore.Options{GrepIndexInterval: -1}, dropDeferred,
		"ALTER TABLE mcp_files DROP CONSTRAINT mcp_files_grep_text_valid")
	deferred := mk("deferred", pgstore.Options{GrepIndexInterval: -1})
	background := mk("deferred_bg", pgstore.Options{})
	inwrite := mk("inwrite", pgstore.Options{GrepIndexInterval: -1}, dropDeferred,
		"CREATE INDEX idx_mcp_files_grep_fold ON mcp_files USING gin (mcp_files_grep_fold(content) gin_trgm_ops) WHERE deleted = FALSE")
	all := []*variant{noindex, deferred, background, inwrite}
	sctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("bench-key", "bench"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := files[i%len(files)]
		for k := range all {
			v := all[(i+k)%len(all)]
			start := time.Now()
			if _, err := v.svc.Write(sctx, fileio.WriteRequest{Project: "w", Path: f.Path, Content: string(f.Content), Mode: fileio.ModeTruncate}); err != nil {
				b.Fatal(err)
			}
			v.took += time.Since(start)
		}
		if i%50 == 49 {
			b.StopTimer()
			if _, err := deferred.store.IndexGrep(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.StopTimer()
	for _, v := range all {
		b.ReportMetric(float64(v.took.Microseconds())/float64(b.N), "us/write_"+v.name)
		if v != noindex {
			b.ReportMetric(float64(v.took)/float64(noindex.took), "x_"+v.name)
		}
		var table int64
		if err := v.store.Pool().QueryRow(ctx, "SELECT pg_table_size('mcp_files')").Scan(&table); err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %d writes, mcp_files %d kB", v.name, b.N, table>>10)
	}
}
