package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
)

// indexedViews is a Store whose every View first indexes every written file for grep, so
// that each search finds the trigram index complete (the background indexer is off).
type indexedViews struct{ *pgstore.Store }

func (s indexedViews) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if _, err := s.IndexGrep(ctx); err != nil {
		return err
	}
	return s.Store.View(ctx, scope, fn)
}

func (s indexedViews) ViewScan(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if _, err := s.IndexGrep(ctx); err != nil {
		return err
	}
	return s.Store.ViewScan(ctx, scope, fn)
}

// TestGrepGlobIndexStates runs the grep and glob suite with every file in the trigram index
// and with none (no indexer): the answers are exact either way. TestStoretest runs it with the
// background indexer, which indexes files while the suite writes and greps them.
func TestGrepGlobIndexStates(t *testing.T) {
	t.Run("Indexed", func(t *testing.T) {
		storetest.ExerciseGrep(t, func(t *testing.T) driver.Store {
			s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
			return indexedViews{s}
		})
	})
	t.Run("Unindexed", func(t *testing.T) {
		storetest.ExerciseGrep(t, func(t *testing.T) driver.Store {
			s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
			return s
		})
	})
}

// grepFiles returns the files in which svc finds pattern (files_with_matches, no limit cut).
func grepFiles(t *testing.T, svc *fileio.Service, ctx context.Context, project, pattern string) []string {
	t.Helper()
	res, err := svc.Grep(ctx, fileio.GrepRequest{Project: project, Pattern: pattern, OutputMode: fileio.GrepFilesWithMatches, Limit: 1000})
	if err != nil || res.Truncated {
		t.Fatalf("Grep %q: %+v, %v", pattern, res, err)
	}
	if res.Files == nil {
		return []string{}
	}
	return res.Files
}

// TestGrepIndexWritePaths: every way of changing a file's content leaves the written row out
// of the trigram index (so the write computes no trigrams), grep finds the new content at once,
// and the indexer then adds the row.
func TestGrepIndexWritePaths(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("grep-write-paths", "t")
	actx := agentfiles.WithAuth(ctx, ac)
	tests := []struct {
		name  string
		op    func(project string) error
		path  string // the file written
		token string // text only the written file holds
	}{
		{"write truncate", func(p string) error {
			_, err := svc.Write(actx, fileio.WriteRequest{Project: p, Path: "/a.md", Content: "zulu\n", Mode: fileio.ModeTruncate})
			return err
		}, "/a.md", "zulu"},
		{"write append", func(p string) error {
			_, err := svc.Write(actx, fileio.WriteRequest{Project: p, Path: "/a.md", Content: "zulu\n", Mode: fileio.ModeAppend})
			return err
		}, "/a.md", "zulu"},
		{"write overwrite", func(p string) error {
			_, err := svc.Write(actx, fileio.WriteRequest{Project: p, Path: "/a.md", Content: "zulu1", Mode: fileio.ModeOverwrite})
			return err
		}, "/a.md", "zulu1"},
		{"edit", func(p string) error {
			_, err := svc.Edit(actx, fileio.EditRequest{Project: p, Path: "/a.md", Edits: []fileio.Edit{{OldStr: "alpha", NewStr: "zulu"}}})
			return err
		}, "/a.md", "zulu"},
		{"edit insert", func(p string) error {
			_, err := svc.Edit(actx, fileio.EditRequest{Project: p, Path: "/a.md", Insert: true, InsertLine: 1, InsertText: "zulu\n"})
			return err
		}, "/a.md", "zulu"},
		{"rename", func(p string) error {
			_, err := svc.Rename(actx, fileio.RenameRequest{Project: p, From: "/a.md", To: "/b.md", Overwrite: false})
			return err
		}, "/b.md", "alpha"},
		{"rename over an indexed file", func(p string) error {
			_, err := svc.Rename(actx, fileio.RenameRequest{Project: p, From: "/a.md", To: "/other.md", Overwrite: true})
			return err
		}, "/other.md", "alpha"},
		{"restore", func(p string) error {
			if _, err := svc.Write(actx, fileio.WriteRequest{Project: p, Path: "/a.md", Content: "zulu\n", Mode: fileio.ModeTruncate}); err != nil {
				return err
			}
			if _, err := s.IndexGrep(ctx); err != nil {
				return err
			}
			_, err := svc.Restore(actx, fileio.RestoreRequest{Project: p, Path: "/a.md", Version: 1})
			return err
		}, "/a.md", "alpha"},
		{"delete and create again", func(p string) error {
			if err := svc.Delete(actx, fileio.DeleteRequest{Project: p, Path: "/a.md", Recursive: false}); err != nil {
				return err
			}
			_, err := svc.Write(actx, fileio.WriteRequest{Project: p, Path: "/a.md", Content: "zulu\n", Mode: fileio.ModeTruncate})
			return err
		}, "/a.md", "zulu"},
		{"store Put", func(p string) error {
			return s.Update(ctx, driver.Scope{Tenant: ac.APIKeyHash, Project: p}, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				_, err := tx.Put(ctx, "/a.md", []byte("zulu\n"), driver.PutOptions{})
				return err
			})
		}, "/a.md", "zulu"},
		{"another statement's UPDATE of content", func(p string) error {
			// Not one of pgstore's statements: the trigger of migration 0008 unindexes the row.
			_, err := s.Pool().Exec(ctx, `UPDATE mcp_files SET content = 'zulu'::bytea, size = 4
WHERE apikey_hash = $1 AND project = $2 AND path = '/a.md' AND NOT deleted`, ac.APIKeyHash, p)
			return err
		}, "/a.md", "zulu"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			project := fmt.Sprintf("p%d", i)
			scope := driver.Scope{Tenant: ac.APIKeyHash, Project: project}
			for path, content := range map[string]string{"/a.md": "alpha\n", "/other.md": "other\n"} {
				if _, err := svc.Write(actx, fileio.WriteRequest{Project: project, Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.IndexGrep(ctx); err != nil {
				t.Fatal(err)
			}
			if err := tc.op(project); err != nil {
				t.Fatal(err)
			}
			if indexed, err := s.GrepIndexed(ctx, scope, tc.path); err != nil || indexed {
				t.Errorf("after the write: grep_indexed = %v, %v; want false", indexed, err)
			}
			if diff := cmp.Diff([]string{tc.path}, grepFiles(t, svc, actx, project, tc.token)); diff != "" {
				t.Errorf("grep before indexing (-want +got):\n%s", diff)
			}
			if _, err := s.IndexGrep(ctx); err != nil {
				t.Fatal(err)
			}
			if indexed, err := s.GrepIndexed(ctx, scope, tc.path); err != nil || !indexed {
				t.Errorf("after IndexGrep: grep_indexed = %v, %v; want true", indexed, err)
			}
			if diff := cmp.Diff([]string{tc.path}, grepFiles(t, svc, actx, project, tc.token)); diff != "" {
				t.Errorf("grep after indexing (-want +got):\n%s", diff)
			}
		})
	}
}

// tableState returns every row of the tables that the indexer must not change, as JSON, in a
// fixed order (mcp_files without its grep_indexed column).
func tableState(t *testing.T, s *pgstore.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	for table, order := range map[string]string{
		"mcp_files":              "id",
		"mcp_file_versions":      "apikey_hash, project, path, version",
		"mcp_file_history_usage": "apikey_hash, project",
		"mcp_file_project_usage": "apikey_hash, project",
		"mcp_file_index_jobs":    "id",
	} {
		rows, err := s.Pool().Query(ctx, "SELECT (to_jsonb(t) - 'grep_indexed')::text FROM "+table+" AS t ORDER BY "+order)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var row string
			if err := rows.Scan(&row); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestGrepIndexerChangesNothingElse: the indexer's UPDATE keeps no history version, and
// leaves every file's content, times and version, the byte counts and the outbox as they were,
// even where the database makes history the default for every session.
func TestGrepIndexerChangesNothingElse(t *testing.T) {
	s, url := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	ctx := context.Background()
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("grep-nothing-else", "t"))
	for i := range 20 {
		p := fmt.Sprintf("/d%d/f%d.md", i%3, i)
		for _, c := range []string{"first", "second"} {
			if _, err := svc.Write(actx, fileio.WriteRequest{Project: "p", Path: p, Content: fmt.Sprintf("%s %d\n", c, i), Mode: fileio.ModeTruncate}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := svc.Edit(actx, fileio.EditRequest{Project: "p", Path: "/d0/f0.md", Edits: []fileio.Edit{{OldStr: "second", NewStr: "third"}}}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(actx, fileio.DeleteRequest{Project: "p", Path: "/d1/f1.md", Recursive: false}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Rename(actx, fileio.RenameRequest{Project: "p", From: "/d2", To: "/moved", Overwrite: false}); err != nil {
		t.Fatal(err)
	}
	// Sessions of this database now keep history unless they say otherwise; the indexer says so.
	if _, err := s.Pool().Exec(ctx, `DO $$ BEGIN
EXECUTE format('ALTER DATABASE %I SET agentfiles.history_versions = %L', current_database(), '5'); END $$`); err != nil {
		t.Fatal(err)
	}
	indexer := pgtest.Open(t, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1})
	before := tableState(t, s)
	n, err := indexer.IndexGrep(ctx)
	if err != nil || n != 19 {
		t.Fatalf("IndexGrep = %d, %v; want the 19 active files", n, err)
	}
	if diff := cmp.Diff(before, tableState(t, s)); diff != "" {
		t.Errorf("the indexer changed rows (-before +after):\n%s", diff)
	}
	if left, err := s.GrepUnindexed(ctx); err != nil || left != 0 {
		t.Errorf("unindexed files left: %d, %v", left, err)
	}
	if n, err := indexer.IndexGrep(ctx); err != nil || n != 0 {
		t.Errorf("IndexGrep again = %d, %v; want 0", n, err)
	}
}

// TestGrepFindsFreshWrites: with the background indexer running, a file written (created or
// replaced) is found by a grep right after the write returns, whether or not the indexer has
// reached it, and the replaced text is not found any more.
func TestGrepFindsFreshWrites(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: time.Millisecond})
	svc := storetest.NewService(t, s)
	ctx := context.Background()
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("grep-fresh", "t"))
	write := func(path, content string) {
		t.Helper()
		if _, err := svc.Write(actx, fileio.WriteRequest{Project: "p", Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("/old/f%02d.md", i), fmt.Sprintf("settled text %d\n", i))
	}
	poll.Eventually(t, 30*time.Second, "the indexer indexes every file", func() bool {
		n, err := s.GrepUnindexed(ctx)
		return err == nil && n == 0
	})
	for i := range 30 {
		path := fmt.Sprintf("/new/f%02d.md", i)
		write(path, fmt.Sprintf("fresh token%03d here\n", i))
		if diff := cmp.Diff([]string{path}, grepFiles(t, svc, actx, "p", fmt.Sprintf("token%03d", i))); diff != "" {
			t.Fatalf("new file %s (-want +got):\n%s", path, diff)
		}
		old := fmt.Sprintf("/old/f%02d.md", i)
		write(old, fmt.Sprintf("replaced by later%03d\n", i))
		if diff := cmp.Diff([]string{old}, grepFiles(t, svc, actx, "p", fmt.Sprintf("later%03d", i))); diff != "" {
			t.Fatalf("replaced file %s (-want +got):\n%s", old, diff)
		}
		if got := grepFiles(t, svc, actx, "p", fmt.Sprintf(`settled text %d\b`, i)); len(got) != 0 {
			t.Fatalf("the replaced text of %s is still found in %q", old, got)
		}
	}
}

// TestGrepIndexConcurrentWriters: writers append to and replace files while two stores (two
// pools, as two processes would have) index them all the time. No write fails or is lost, and
// once the indexer has caught up every file is indexed and grep finds exactly the current text.
func TestGrepIndexConcurrentWriters(t *testing.T) {
	s, url := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	other := pgtest.Open(t, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	ctx := context.Background()
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("grep-concurrent", "t"))
	const writers, each, files = 4, 60, 3
	var wg sync.WaitGroup
	stop := make(chan struct{})
	indexed := make([]int64, 2)
	for k, idx := range []*pgstore.Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				n, err := idx.IndexGrep(ctx)
				if err != nil {
					t.Errorf("IndexGrep: %v", err)
					return
				}
				indexed[k] += n
			}
		}()
	}
	errs := make(chan error, writers)
	var writersWG sync.WaitGroup
	for w := range writers {
		writersWG.Add(1)
		go func() {
			defer writersWG.Done()
			for i := range each {
				_, err := svc.Write(actx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/w%d/log.md", w), Content: fmt.Sprintf("rec w%dr%03d\n", w, i), Mode: fileio.ModeAppend})
				if err == nil {
					_, err = svc.Write(actx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/w%d/f%d.md", w, i%files),
						Content: fmt.Sprintf("state w%ds%03d\n", w, i), Mode: fileio.ModeTruncate})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	writersWG.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a write failed while indexing: %v", err)
	}
	if _, err := s.IndexGrep(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("files indexed by the two indexers while writing: %v", indexed)
	if left, err := s.GrepUnindexed(ctx); err != nil || left != 0 {
		t.Fatalf("unindexed files left: %d, %v", left, err)
	}
	for w := range writers {
		f, err := get(t, s, driver.Scope{Tenant: agentfiles.NewAuthContext("grep-concurrent", "t").APIKeyHash, Project: "p"}, fmt.Sprintf("/w%d/log.md", w))
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for i := range each {
			fmt.Fprintf(&want, "rec w%dr%03d\n", w, i)
		}
		if diff := cmp.Diff(want.String(), string(f.Content)); diff != "" {
			t.Errorf("log of writer %d (-want +got):\n%s", w, diff)
		}
		if diff := cmp.Diff([]string{fmt.Sprintf("/w%d/log.md", w)}, grepFiles(t, svc, actx, "p", fmt.Sprintf("rec w%dr%03d", w, each-1))); diff != "" {
			t.Errorf("grep for writer %d's last record (-want +got):\n%s", w, diff)
		}
		for i := each - files; i < each; i++ {
			want := []string{fmt.Sprintf("/w%d/f%d.md", w, i%files)}
			if diff := cmp.Diff(want, grepFiles(t, svc, actx, "p", fmt.Sprintf("state w%ds%03d", w, i))); diff != "" {
				t.Errorf("grep for the current state %d of writer %d (-want +got):\n%s", i, w, diff)
			}
		}
		if got := grepFiles(t, svc, actx, "p", fmt.Sprintf("state w%ds%03d", w, each-files-1)); len(got) != 0 {
			t.Errorf("a replaced state of writer %d is still found in %q", w, got)
		}
	}
}

// TestGrepIndexMigrationUpgrade: files written before migration 0008 (whose write maintained
// the old index) become unindexed by it; grep finds them at once, and the indexer catches up.
func TestGrepIndexMigrationUpgrade(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pgstore.MigrateTo(ctx, pool, 7); err != nil {
		t.Fatal(err)
	}
	ac := agentfiles.NewAuthContext("grep-upgrade", "t")
	for _, f := range []struct{ path, content string }{{"/a.md", "older alpha\n"}, {"/b.md", "older beta\n"}, {"/c.md", "other\n"}} {
		if _, err := pool.Exec(ctx, `INSERT INTO mcp_files (apikey_hash, project, path, content, size) VALUES ($1, 'p', $2, $3, $4)`,
			ac.APIKeyHash, f.path, []byte(f.content), len(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	actx := agentfiles.WithAuth(ctx, ac)
	if n, err := s.GrepUnindexed(ctx); err != nil || n != 3 {
		t.Fatalf("after the upgrade: %d unindexed files, %v; want 3", n, err)
	}
	if diff := cmp.Diff([]string{"/a.md", "/b.md"}, grepFiles(t, svc, actx, "p", "older")); diff != "" {
		t.Errorf("grep before indexing (-want +got):\n%s", diff)
	}
	if n, err := s.IndexGrep(ctx); err != nil || n != 3 {
		t.Fatalf("IndexGrep = %d, %v; want 3", n, err)
	}
	if diff := cmp.Diff([]string{"/a.md", "/b.md"}, grepFiles(t, svc, actx, "p", "older")); diff != "" {
		t.Errorf("grep after indexing (-want +got):\n%s", diff)
	}
	pgtest.CheckMigrated(t, url, "mcp_files_schema_migrations", pgstore.SchemaVersion(), pgstore.Migrate)
}

// TestGrepIndexRefusesInvalidText: content that is not valid UTF-8 cannot be stored (the
// indexer could never index it, and would stop at it), as under migration 0007; content with a
// NUL byte can, stays out of the index, and does not stop the indexer.
func TestGrepIndexRefusesInvalidText(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: -1}) // the trigram index's candidates
	ctx := context.Background()
	tests := []struct {
		name, path, content string
		code                agentfiles.Code // the zero Code for success
	}{
		{"invalid UTF-8", "/bad.md", "ok \xff\xfe no", agentfiles.CodeInvalidArgument},
		{"NUL byte", "/nul.md", "zebra\x00\xff binary", agentfiles.Code{}},
		{"text", "/ok.md", "zebra\n", agentfiles.Code{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				_, err := tx.Put(ctx, tc.path, []byte(tc.content), driver.PutOptions{})
				return err
			})
			if got := agentfiles.ErrorCode(err); got != tc.code {
				t.Fatalf("Put: %v, want code %v", err, tc.code)
			}
		})
	}
	if n, err := s.IndexGrep(ctx); err != nil || n != 2 {
		t.Fatalf("IndexGrep = %d, %v; want 2 files", n, err)
	}
	var got []string
	err := s.View(ctx, testScope, func(tx driver.ReadTx) error {
		infos, err := tx.(driver.ContentSearcher).GrepCandidates(ctx, driver.GrepCandidates{Prefix: "/",
			Query: driver.ContentQuery{Op: driver.QueryLiteral, Literal: "zebra"}, Limit: 10})
		for _, fi := range infos {
			got = append(got, fi.Path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/ok.md"}, got); diff != "" {
		t.Errorf("candidates for zebra (-want +got):\n%s", diff)
	}
}

// TestGrepGlobCollations runs the grep and glob suite (its differential against a plain Go
// scan included) on databases whose default collation is ICU en-US, tr-TR and lt-LT, with
// every file in the trigram index (TestGrepGlobIndexStates runs it on a C database): the
// answers do not depend on the collation's case mapping (tr-TR lower-cases "I" to a dotless
// "ı", lt-LT puts a dot above an "I" before an accent).
func TestGrepGlobCollations(t *testing.T) {
	for _, locale := range []string{"en-US", "tr-TR", "lt-LT"} {
		t.Run(locale, func(t *testing.T) {
			storetest.ExerciseGrepStore(t, func(t *testing.T) driver.Store {
				return indexedViews{pgtest.Open(t, pgtest.NewICU(t, locale), pgstore.Open, pgstore.Options{GrepIndexInterval: -1})}
			})
		})
	}
}

// TestGrepIndexTakesTurns: the indexer takes turns among the tenants with unindexed files, and
// a tenant's projects take turns within its turns. Tenant A writes many files, then tenant B
// one: the first round (one turn each, a few files' bytes) indexes B's file along with A's
// first ones, instead of A's whole burst before it; A's second project gets A's next turn.
func TestGrepIndexTakesTurns(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1, GrepIndexBatchBytes: 4 << 10})
	ctx := context.Background()
	burst := driver.Scope{Tenant: strings.Repeat("a", 64), Project: "burst"}
	small := driver.Scope{Tenant: strings.Repeat("b", 64), Project: "note"}
	err := s.Update(ctx, burst, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		for i := range 200 {
			if _, err := tx.Put(ctx, fmt.Sprintf("/f%03d.md", i), []byte(strings.Repeat("burst text\n", 100)), driver.PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, small, "/note.md", "a note\n")
	files, err := s.IndexGrepRound(ctx)
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := s.GrepIndexed(ctx, small, "/note.md")
	if err != nil || !indexed || files >= 200 {
		t.Errorf("after one round of %d files: B's file indexed %v (%v); want it indexed with A's first files", files, indexed, err)
	}
	for _, p := range []string{"/f000.md", "/f199.md"} {
		if indexed, err := s.GrepIndexed(ctx, burst, p); err != nil || indexed != (p == "/f000.md") {
			t.Errorf("%s of the burst after one round: indexed %v, %v; want only A's first files", p, indexed, err)
		}
	}
	second := driver.Scope{Tenant: burst.Tenant, Project: "second"}
	put(t, s, second, "/later.md", "written after the burst\n")
	if _, err := s.IndexGrepRound(ctx); err != nil {
		t.Fatal(err)
	}
	if indexed, err := s.GrepIndexed(ctx, second, "/later.md"); err != nil || !indexed {
		t.Errorf("A's second project after A's next turn: indexed %v, %v; want its file indexed", indexed, err)
	}
	if indexed, err := s.GrepIndexed(ctx, burst, "/f199.md"); err != nil || indexed {
		t.Errorf("A's burst's last file after two rounds: indexed %v, %v; want it still waiting", indexed, err)
	}
	if _, err := s.IndexGrep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/f000.md", "/f199.md"} {
		if indexed, err := s.GrepIndexed(ctx, burst, p); err != nil || !indexed {
			t.Errorf("%s of the burst after IndexGrep: indexed %v, %v", p, indexed, err)
		}
	}
}
