package pgstore_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// proseBenchMB is the size of the generated prose corpus of BenchmarkGrepProse in MB, 100
// files per MB: AGENTFILES_GREP_PROSE_MB, default 20 (a quick run); 300 is about 30,000 files
// / 300 MB.
func proseBenchMB() int {
	n, err := strconv.Atoi(os.Getenv("AGENTFILES_GREP_PROSE_MB"))
	if err != nil || n < 1 {
		return 20
	}
	return n
}

// BenchmarkGrepProse: Service.Grep on a PostgreSQL project holding generated Markdown prose
// (grepbench.NewProse: Zipf word frequencies, not Go source), against rg over the same tree on
// disk, alternately in one loop (x_rg: the ratio of their times). The corpus is loaded with
// the bulk path (driver.BulkWriter), its trigram index built in one pass (buildGrepIndex),
// then VACUUM ANALYZE. The patterns: a
// word in about 1% of the files (files_with_matches and count), the same ignoring case, two
// such words as an alternation and as "a.*b" (two words in about 10% of the files each), and
// a pattern without literal text (a date), whose answer is a first page within the scan
// budget. Every complete answer is checked against rg's on the first iteration. Each pattern
// runs on sql, the store with the grep cache off (a literal pattern answered in SQL by
// driver.LiteralGrepper, no content leaving PostgreSQL; the others through the trigram
// index's candidates), and cache, a second Store on the same database that answers from its
// grep cache (warmed by one grep before the loop; the log says how long the Store's first grep,
// which fills the cache from PostgreSQL, took); each
// literal pattern also on read, where the Service reads the candidate files and matches them
// itself (storetest.WithoutLiteralGrep).
func BenchmarkGrepProse(b *testing.B) {
	mb := proseBenchMB()
	prose := grepbench.NewProse(mb*100, int64(mb)<<20, 35)
	files := prose.Files
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, files)
	s, url := newStore(b, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: -1})
	cached := pgtest.Open(b, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1, SkipMigrations: true})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("bench-key", "bench")
	scope := driver.Scope{Tenant: ac.APIKeyHash, Project: "prose"}
	start := time.Now()
	for i := 0; i < len(files); i += 100 { // batches that fit work_mem
		batch := make([]driver.File, 0, 100)
		for _, f := range files[i:min(i+100, len(files))] {
			batch = append(batch, driver.File{FileInfo: driver.FileInfo{Path: f.Path}, Content: f.Content})
		}
		err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
			return tx.(driver.BulkWriter).PutMany(ctx, batch, driver.BulkOptions{DeferIndex: true})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	buildGrepIndex(b, s)
	if _, err := s.Pool().Exec(ctx, "VACUUM ANALYZE mcp_files"); err != nil {
		b.Fatal(err)
	}
	loaded := time.Since(start)
	b.Logf("prose corpus: %d files, %d bytes, loaded and indexed in %s", len(files), grepbench.Bytes(files), loaded.Round(time.Millisecond))
	// A time budget that a loaded machine does not exhaust: the benchmark compares times.
	cfg := func(c *fileio.Config) {
		c.MaxProjectBytes = 1 << 40
		c.MaxFileBytes = 1 << 30
		c.GrepTimeout = time.Minute
	}
	services := []struct {
		name string
		svc  *fileio.Service
	}{
		{"sql", storetest.NewService(b, s, cfg)},                                // LiteralGrepper answers literal patterns in SQL
		{"cache", storetest.NewService(b, cached, cfg)},                         // LiteralGrepper answers them from the grep cache
		{"read", storetest.NewService(b, storetest.WithoutLiteralGrep(s), cfg)}, // the Service reads the candidates
	}
	sctx := agentfiles.WithAuth(ctx, ac)
	rare, common, other := prose.Word(0.01), prose.Word(0.1), prose.Word(0.08)
	queries := []struct {
		name    string
		req     fileio.GrepRequest
		rg      []string
		partial bool // a first page: not compared with rg
	}{
		{name: "Literal1pct", req: fileio.GrepRequest{Pattern: rare}, rg: []string{"-l", "-e", rare}},
		{name: "Literal1pctCount", req: fileio.GrepRequest{Pattern: rare, OutputMode: fileio.GrepCount}, rg: []string{"-c", "-e", rare}},
		{name: "IgnoreCase1pct", req: fileio.GrepRequest{Pattern: strings.ToUpper(rare), IgnoreCase: true}, rg: []string{"-l", "-i", "-e", strings.ToUpper(rare)}},
		{name: "Alternation", req: fileio.GrepRequest{Pattern: "(" + rare + "|" + prose.Word(0.005) + ")"}, rg: []string{"-l", "-e", "(" + rare + "|" + prose.Word(0.005) + ")"}},
		{name: "Sequence", req: fileio.GrepRequest{Pattern: common + ".*" + other}, rg: []string{"-l", "-e", common + ".*" + other}},
		{name: "NoLiteral", req: fileio.GrepRequest{Pattern: "[0-9]{4}-[0-9]{2}"}, rg: []string{"-l", "-e", "[0-9]{4}-[0-9]{2}"}, partial: true},
	}
	t0 := time.Now()
	if _, err := services[1].svc.Grep(sctx, fileio.GrepRequest{Project: "prose", Pattern: rare, OutputMode: fileio.GrepFilesWithMatches}); err != nil {
		b.Fatal(err)
	}
	b.Logf("the cache Store's first grep (%s, filling its cache from PostgreSQL): %s", rare, time.Since(t0).Round(time.Millisecond))
	for _, q := range queries {
		for _, v := range services {
			if v.name == "read" && exactLiteralsFree(q.name) {
				continue // the same path as sql
			}
			b.Run(q.name+"/"+v.name, func(b *testing.B) {
				req := q.req
				req.Project = "prose"
				if v.name == "cache" { // the rows measure it warm
					if _, err := v.svc.Grep(sctx, req); err != nil {
						b.Fatal(err)
					}
				}
				benchGrepVsRipgrep(b, v.svc, sctx, dir, req, q.rg, q.partial)
			})
		}
	}
	// The cache after a write: each grep follows a write of one file of the project through
	// the cache's Store (the listing is brought up to date from the change feed).
	b.Run("Literal1pctAfterWrite/cache", func(b *testing.B) {
		cachedSvc := services[1].svc
		var grep, write time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := cachedSvc.Write(sctx, fileio.WriteRequest{Project: "prose", Path: "/scratch.md", Content: fmt.Sprintf("note %d\n", i), Mode: fileio.ModeTruncate}); err != nil {
				b.Fatal(err)
			}
			write += time.Since(t0)
			t1 := time.Now()
			if _, err := cachedSvc.Grep(sctx, fileio.GrepRequest{Project: "prose", Pattern: rare, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}); err != nil {
				b.Fatal(err)
			}
			grep += time.Since(t1)
		}
		b.ReportMetric(float64(write.Microseconds())/float64(b.N)/1000, "ms/write")
		b.ReportMetric(float64(grep.Microseconds())/float64(b.N)/1000, "ms/grep")
	})
}

// exactLiteralsFree reports whether the query of that name is not literal text alone, so
// that a LiteralGrepper plays no part in it.
func exactLiteralsFree(name string) bool { return name == "Sequence" || name == "NoLiteral" }

// benchGrepVsRipgrep runs req (limit 1000, files_with_matches unless it says otherwise)
// through svc and rg with rgArgs over dir alternately, and reports both times and their ratio;
// unless partial, the answer must be complete and equal rg's on the first iteration.
func benchGrepVsRipgrep(b *testing.B, svc *fileio.Service, sctx context.Context, dir string, req fileio.GrepRequest, rgArgs []string, partial bool) {
	req.Limit = 1000
	if req.OutputMode == "" {
		req.OutputMode = fileio.GrepFilesWithMatches
	}
	var ours, ref time.Duration
	var scanned int64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := svc.Grep(sctx, req)
		ours += time.Since(t0)
		if err != nil || (!partial && res.Truncated) {
			b.Fatalf("Grep: %+v, %v", res.Note, err)
		}
		scanned += res.ScannedBytes
		rg, took := grepbench.Ripgrep(b, dir, append(rgArgs, ".")...)
		ref += took
		if i == 0 && !partial {
			if diff := cmp.Diff(rgEntries(rg), grepEntries(res)); diff != "" || len(rg) == 0 {
				b.Fatalf("%s differs from rg (-rg +ours):\n%s", req.Pattern, diff)
			}
		}
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/grep")
	b.ReportMetric(float64(ref.Microseconds())/float64(b.N)/1000, "ms/rg")
	b.ReportMetric(float64(ours)/float64(ref), "x_rg")
	b.ReportMetric(float64(scanned)/float64(b.N)/1e6, "MB_scanned")
}

// buildGrepIndex puts every file of s in the trigram index as a restore would: the index
// dropped, every row marked indexed, the index built again from its own definition in one
// pass (far faster than the indexer's row-by-row inserts for hundreds of MB), in one
// transaction.
func buildGrepIndex(b *testing.B, s *pgstore.Store) {
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var def string
	if err := tx.QueryRow(ctx, "SELECT pg_get_indexdef('idx_mcp_files_grep_fold'::regclass)").Scan(&def); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"DROP INDEX idx_mcp_files_grep_fold", "SET LOCAL agentfiles.history_versions = '0'",
		"UPDATE mcp_files SET grep_indexed = TRUE WHERE NOT grep_indexed", "SET LOCAL maintenance_work_mem = '256MB'", def} {
		if _, err := tx.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// rgEntries are rg's -l or -c lines as store paths ("/a b.md" or "/a b.md:3"), sorted.
func rgEntries(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "/" + strings.TrimPrefix(l, "./")
	}
	slices.Sort(out)
	return out
}

// grepEntries are the files or counts of res in rgEntries' form.
func grepEntries(res fileio.GrepResult) []string {
	out := slices.Clone(res.Files)
	for _, c := range res.Counts {
		out = append(out, c.Path+":"+strconv.Itoa(c.Count))
	}
	slices.Sort(out)
	return out
}

// BenchmarkGrepAfterBurst: how long a small write of one tenant waits for the background
// grep indexer (default interval and batch size) when another tenant has just written a
// burst of files. Each iteration, tenant A writes burstFiles prose files (10 KB on average,
// 100 per transaction, as many file_write calls leave them: not yet indexed), then tenant B
// writes one note through the Service; ms_until_indexed is the time from B's write until its
// file is in the trigram index, a_pending_then the files of A's burst still waiting then,
// and ms_grep_b B's grep of its note once indexed.
func BenchmarkGrepAfterBurst(b *testing.B) {
	const burstFiles = 2000
	prose := grepbench.NewProse(burstFiles, burstFiles*10<<10, 36)
	s, _ := newStore(b, pgstore.Options{})
	ctx := context.Background()
	acA := agentfiles.NewAuthContext("burst-key", "a")
	acB := agentfiles.NewAuthContext("note-key", "b")
	scopeA := driver.Scope{Tenant: acA.APIKeyHash, Project: "burst"}
	svc := storetest.NewService(b, s, func(c *fileio.Config) { c.MaxProjectBytes = 1 << 40 })
	sctxB := agentfiles.WithAuth(ctx, acB)
	var waited, grepped time.Duration
	var pending int64
	for i := 0; i < b.N; i++ {
		for k := 0; k < burstFiles; k += 100 {
			err := s.Update(ctx, scopeA, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				for _, f := range prose.Files[k:min(k+100, burstFiles)] {
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
		note := fmt.Sprintf("/note%d.md", i)
		start := time.Now()
		if _, err := svc.Write(sctxB, fileio.WriteRequest{Project: "b", Path: note, Content: "zanzibar quokka\n"}); err != nil {
			b.Fatal(err)
		}
		for {
			indexed, err := s.GrepIndexed(ctx, driver.Scope{Tenant: acB.APIKeyHash, Project: "b"}, note)
			if err != nil {
				b.Fatal(err)
			}
			if indexed {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		waited += time.Since(start)
		var n int64
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM mcp_files WHERE apikey_hash = $1 AND NOT grep_indexed AND NOT deleted`, scopeA.Tenant).Scan(&n); err != nil {
			b.Fatal(err)
		}
		pending += n
		t0 := time.Now()
		res, err := svc.Grep(sctxB, fileio.GrepRequest{Project: "b", Pattern: "quokka", OutputMode: fileio.GrepFilesWithMatches})
		grepped += time.Since(t0)
		if err != nil || len(res.Files) != i+1 {
			b.Fatalf("B's grep: %+v, %v", res, err)
		}
		if _, err := s.IndexGrep(ctx); err != nil { // the next burst rewrites A's files
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(waited.Microseconds())/float64(b.N)/1000, "ms_until_indexed")
	b.ReportMetric(float64(pending)/float64(b.N), "a_pending_then")
	b.ReportMetric(float64(grepped.Microseconds())/float64(b.N)/1000, "ms_grep_b")
}

// BenchmarkGrepRightAfterWrites: 8 writers put generated prose (AGENTFILES_GREP_PROSE_MB,
// 100 files per MB, default 20) into a new project through Service.Write, as an agent
// platform's upload does, with the background indexer at its defaults; the moment the last
// write is acknowledged a grep for a word in about 1% of the files runs (files_with_matches),
// on the same Store (x_rg: its grep cache holds what the writes committed) and on a second
// Store on the same database, as another instance (x_rg_other: it fetches the contents or
// answers in SQL), each against rg -l over the same tree on disk.
func BenchmarkGrepRightAfterWrites(b *testing.B) {
	mb := proseBenchMB()
	prose := grepbench.NewProse(mb*100, int64(mb)<<20, 37)
	dir := b.TempDir()
	grepbench.WriteTree(b, dir, prose.Files)
	s, url := newStore(b, pgstore.Options{})
	other := pgtest.Open(b, url, pgstore.Open, pgstore.Options{SkipMigrations: true})
	cfg := func(c *fileio.Config) {
		c.MaxProjectBytes = 1 << 40
		c.GrepTimeout = time.Minute
	}
	svc, otherSvc := storetest.NewService(b, s, cfg), storetest.NewService(b, other, cfg)
	sctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("writes-key", "writes"))
	word := prose.Word(0.01)
	var ours, theirs, rg, wrote time.Duration
	for i := 0; i < b.N; i++ {
		project := fmt.Sprintf("upload%d", i)
		t0 := time.Now()
		var next atomic.Int64
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				for {
					k := int(next.Add(1) - 1)
					if k >= len(prose.Files) {
						errs <- nil
						return
					}
					f := prose.Files[k]
					if _, err := svc.Write(sctx, fileio.WriteRequest{Project: project, Path: f.Path, Content: string(f.Content)}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
		wrote += time.Since(t0)
		req := fileio.GrepRequest{Project: project, Pattern: word, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000}
		for _, g := range []struct {
			svc  *fileio.Service
			took *time.Duration
		}{{svc, &ours}, {otherSvc, &theirs}} {
			t1 := time.Now()
			res, err := g.svc.Grep(sctx, req)
			*g.took += time.Since(t1)
			if err != nil || res.Truncated {
				b.Fatalf("grep right after the writes: %+v, %v", res.Note, err)
			}
			want, took := grepbench.Ripgrep(b, dir, "-l", "-F", word, ".")
			rg += took / 2
			if diff := cmp.Diff(rgEntries(want), grepEntries(res)); diff != "" {
				b.Fatalf("grep right after the writes differs from rg (-rg +grep):\n%s", diff)
			}
		}
	}
	b.ReportMetric(wrote.Seconds()/float64(b.N), "s/writes")
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N)/1000, "ms/grep")
	b.ReportMetric(float64(theirs.Microseconds())/float64(b.N)/1000, "ms/grep_other")
	b.ReportMetric(float64(rg.Microseconds())/float64(b.N)/1000, "ms/rg")
	b.ReportMetric(float64(ours)/float64(rg), "x_rg")
	b.ReportMetric(float64(theirs)/float64(rg), "x_rg_other")
}
