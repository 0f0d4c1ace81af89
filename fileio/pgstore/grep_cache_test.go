package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestGrepLiteralsCacheSizes runs the driver.LiteralGrepper contract and the grep suite with
// the grep cache off (SQL answers every grep) and with a cache far smaller than the suite's
// projects (greps evict each other's projects, and larger ones fall back to SQL).
// TestGrepLiterals and TestGrepGlobIndexStates run them with the default cache.
func TestGrepLiteralsCacheSizes(t *testing.T) {
	for _, size := range []int64{-1, 3000} {
		t.Run(fmt.Sprint("GrepCacheBytes=", size), func(t *testing.T) {
			opts := pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: size}
			s, _ := newStore(t, opts)
			storetest.ExerciseLiteralGrep(t, s, func(t *testing.T) {
				if _, err := s.IndexGrep(context.Background()); err != nil {
					t.Fatal(err)
				}
			})
			if held := s.GrepCacheHeld(); held > max(size, 0) {
				t.Errorf("GrepCacheHeld = %d, more than GrepCacheBytes %d", held, size)
			}
			storetest.ExerciseGrep(t, func(t *testing.T) driver.Store {
				s, _ := newStore(t, opts)
				return s
			})
		})
	}
}

// cacheGreps are the literal greps the cache tests compare with the Service's own matching.
var cacheGreps = []fileio.GrepRequest{
	{Pattern: "needle", OutputMode: fileio.GrepCount},
	{Pattern: "NEEDLE", IgnoreCase: true, OutputMode: fileio.GrepFilesWithMatches},
	{Pattern: "needle|haystack", OutputMode: fileio.GrepCount, Path: "/docs"},
	{Pattern: "needle", OutputMode: fileio.GrepFilesWithMatches, Limit: 1},
}

// checkCachedGreps runs cacheGreps on cached (a Service over a Store with the grep cache) and
// on plain (the Service reads and matches the files itself) and fails on any difference;
// it returns the answer of the first.
func checkCachedGreps(t *testing.T, ctx context.Context, cached, plain *fileio.Service, project string) fileio.GrepResult {
	t.Helper()
	var first fileio.GrepResult
	for i, req := range cacheGreps {
		req.Project = project
		got, err := cached.Grep(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Grep(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got.ScannedBytes, got.ScannedFiles, got.NextCursor = 0, 0, ""
		want.ScannedBytes, want.ScannedFiles, want.NextCursor = 0, 0, ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-reading files +grep cache):\n%s", req, diff)
		}
		if i == 0 {
			first = got
		}
	}
	return first
}

// TestGrepCacheFresh: after greps fill the cache, rewrites, deletes and renames through the
// Service are in the next grep's answer.
func TestGrepCacheFresh(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	plain := storetest.NewService(t, storetest.WithoutLiteralGrep(s))
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("cache-key", "cache"))
	write := func(path, content string) {
		t.Helper()
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	write("/docs/a.md", "a needle\nno\nneedle NEEDLE\r\n")
	write("/docs/b.md", "nothing\n")
	write("/c.md", "haystack\nneedle\x00binary\n")
	write("/d.md", "one needle\n")
	counts := func(r fileio.GrepResult) []fileio.GrepFileCount { return r.Counts }
	for _, step := range []struct {
		name   string
		change func()
		want   []fileio.GrepFileCount
	}{
		{"written", func() {}, []fileio.GrepFileCount{{Path: "/d.md", Count: 1}, {Path: "/docs/a.md", Count: 2}}},
		{"cached", func() {}, []fileio.GrepFileCount{{Path: "/d.md", Count: 1}, {Path: "/docs/a.md", Count: 2}}},
		{"rewritten", func() {
			write("/docs/b.md", "needle\nneedle\nneedle\n")
			write("/c.md", "needle now text\n")
		}, []fileio.GrepFileCount{{Path: "/c.md", Count: 1}, {Path: "/d.md", Count: 1}, {Path: "/docs/a.md", Count: 2}, {Path: "/docs/b.md", Count: 3}}},
		{"deleted", func() {
			if err := svc.Delete(ctx, fileio.DeleteRequest{Project: "p", Path: "/d.md"}); err != nil {
				t.Fatal(err)
			}
		}, []fileio.GrepFileCount{{Path: "/c.md", Count: 1}, {Path: "/docs/a.md", Count: 2}, {Path: "/docs/b.md", Count: 3}}},
		{"renamed", func() {
			if _, err := svc.Rename(ctx, fileio.RenameRequest{Project: "p", From: "/docs/a.md", To: "/e.md"}); err != nil {
				t.Fatal(err)
			}
		}, []fileio.GrepFileCount{{Path: "/c.md", Count: 1}, {Path: "/docs/b.md", Count: 3}, {Path: "/e.md", Count: 2}}},
		{"recreated", func() {
			write("/d.md", "needle\n")
		}, []fileio.GrepFileCount{{Path: "/c.md", Count: 1}, {Path: "/d.md", Count: 1}, {Path: "/docs/b.md", Count: 3}, {Path: "/e.md", Count: 2}}},
	} {
		step.change()
		got := checkCachedGreps(t, ctx, svc, plain, "p")
		if diff := cmp.Diff(step.want, counts(got)); diff != "" {
			t.Errorf("%s: counts (-want +got):\n%s", step.name, diff)
		}
		if s.GrepCacheHeld() == 0 {
			t.Errorf("%s: the grep cache holds nothing after a grep", step.name)
		}
	}
}

// TestGrepCacheTenants: two tenants with a project of the same name, the same paths and the
// same file versions (updated_at) each grep their own contents through the cache.
func TestGrepCacheTenants(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	svc := storetest.NewService(t, s)
	ctxA := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "a"))
	ctxB := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-b", "b"))
	for i := range 5 {
		for ctx, word := range map[context.Context]string{ctxA: "alpha", ctxB: "bravo"} {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/f%d.md", i), Content: strings.Repeat(word+"\n", i+1)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The same versions in both tenants: only the scope tells their contents apart.
	if _, err := s.Pool().Exec(context.Background(), `UPDATE mcp_files SET created_at = '2026-01-02T03:04:05Z', updated_at = '2026-01-02T03:04:05Z'`); err != nil {
		t.Fatal(err)
	}
	want := func(n int) []fileio.GrepFileCount {
		var out []fileio.GrepFileCount
		for i := range n {
			out = append(out, fileio.GrepFileCount{Path: fmt.Sprintf("/f%d.md", i), Count: i + 1})
		}
		return out
	}
	for range 2 { // the first grep of each tenant fills the cache, the second reads it
		for _, tc := range []struct {
			ctx     context.Context
			pattern string
			want    []fileio.GrepFileCount
		}{
			{ctxA, "alpha", want(5)}, {ctxA, "bravo", nil},
			{ctxB, "bravo", want(5)}, {ctxB, "alpha", nil},
		} {
			got, err := svc.Grep(tc.ctx, fileio.GrepRequest{Project: "p", Pattern: tc.pattern, OutputMode: fileio.GrepCount})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Counts, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: counts (-want +got):\n%s", tc.pattern, diff)
			}
		}
	}
}

// TestGrepCacheTwoStores: what another Store on the same database writes is in the next
// grep's answer of a Store whose cache holds the project.
func TestGrepCacheTwoStores(t *testing.T) {
	s1, url := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	s2 := pgtest.Open(t, url, pgstore.Open, pgstore.Options{GrepIndexInterval: -1, SkipMigrations: true})
	svc1, svc2 := storetest.NewService(t, s1), storetest.NewService(t, s2)
	plain := storetest.NewService(t, storetest.WithoutLiteralGrep(s1))
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("two-key", "two"))
	for i := range 20 {
		if _, err := svc1.Write(ctx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/docs/f%02d.md", i), Content: fmt.Sprintf("file %d\nneedle %d\n", i, i)}); err != nil {
			t.Fatal(err)
		}
	}
	checkCachedGreps(t, ctx, svc1, plain, "p")
	done := make(chan error)
	go func() { // the other Store writes while the first greps
		for i := range 20 {
			content := fmt.Sprintf("no match %d\n", i)
			if i%2 == 0 {
				content = "haystack\nneedle\nneedle\n"
			}
			if _, err := svc2.Write(ctx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/docs/f%02d.md", i), Content: content, Mode: fileio.ModeTruncate}); err != nil {
				done <- err
				return
			}
		}
		done <- svc2.Delete(ctx, fileio.DeleteRequest{Project: "p", Path: "/docs/f00.md"})
	}()
	for range 5 {
		if _, err := svc1.Grep(ctx, fileio.GrepRequest{Project: "p", Pattern: "needle", OutputMode: fileio.GrepCount}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := checkCachedGreps(t, ctx, svc1, plain, "p")
	var want []fileio.GrepFileCount
	for i := 2; i < 20; i += 2 {
		want = append(want, fileio.GrepFileCount{Path: fmt.Sprintf("/docs/f%02d.md", i), Count: 2})
	}
	if diff := cmp.Diff(want, got.Counts); diff != "" {
		t.Errorf("after the other Store's writes: counts (-want +got):\n%s", diff)
	}
}

// TestGrepCacheDeadline: a literal grep past its deadline is TIMEOUT whether the cache is
// cold (the fill stops) or warm (the matching stops), and a grep within it then answers.
func TestGrepCacheDeadline(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	for i := range 30 {
		put(t, s, testScope, fmt.Sprintf("/f%02d.md", i), strings.Repeat("some text\n", 100)+"needle\n")
	}
	grep := func(deadline time.Time) ([]driver.LiteralFile, error) {
		var out []driver.LiteralFile
		err := s.View(context.Background(), testScope, func(tx driver.ReadTx) error {
			var err error
			out, _, err = tx.(driver.LiteralGrepper).GrepLiterals(context.Background(), driver.LiteralGrep{
				Prefix: "/", Literals: []string{"needle"}, Limit: 100, Deadline: deadline})
			return err
		})
		return out, err
	}
	for _, state := range []string{"cold", "warm"} {
		if _, err := grep(time.Now().Add(-time.Second)); agentfiles.ErrorCode(err) != agentfiles.CodeTimeout {
			t.Errorf("%s: a grep past its deadline: %v, want TIMEOUT", state, err)
		}
		if state == "cold" {
			if _, err := grep(time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := grep(time.Now().Add(time.Minute))
	if err != nil || len(out) != 30 {
		t.Fatalf("a grep within its deadline: %d files, %v", len(out), err)
	}
}

// TestGrepCacheWrittenThrough: what a transaction writes (Put, PutMany) is in the grep cache
// once it commits, and nothing of a transaction that rolls back; a grep right after the
// writes answers from the cache (a content changed behind the Store's back, with the same
// updated_at and size, is not fetched again), and the cache stays within its budget.
func TestGrepCacheWrittenThrough(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	put(t, s, testScope, "/a.md", "a needle\n")
	err := s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		return tx.(driver.BulkWriter).PutMany(ctx, []driver.File{
			{FileInfo: driver.FileInfo{Path: "/b.md"}, Content: []byte("b needle\n")},
			{FileInfo: driver.FileInfo{Path: "/c.md"}, Content: []byte("c hay\n")},
		}, driver.BulkOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	written := pgstore.GrepScopeCost(testScope) + pgstore.GrepCachedCost("/a.md", int64(len("a needle\n"))) +
		pgstore.GrepCachedCost("/b.md", int64(len("b needle\n"))) + pgstore.GrepCachedCost("/c.md", int64(len("c hay\n")))
	if got := s.GrepCacheHeld(); got != written {
		t.Errorf("after the writes GrepCacheHeld = %d, want %d", got, written)
	}
	abort := errors.New("abort")
	err = s.Update(ctx, testScope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		if _, err := tx.Put(ctx, "/d.md", []byte(strings.Repeat("rolled back\n", 100)), driver.PutOptions{}); err != nil {
			return err
		}
		return abort
	})
	if !errors.Is(err, abort) {
		t.Fatalf("Update = %v, want the callback's error", err)
	}
	if got := s.GrepCacheHeld(); got != written {
		t.Errorf("after a rolled-back write GrepCacheHeld = %d, want %d", got, written)
	}
	// Behind the Store's back: the same size and updated_at, another word.
	if _, err := s.Pool().Exec(ctx, `UPDATE mcp_files SET content = 'c needle'::bytea || E'\\x0a'::bytea WHERE path = '/c.md' AND NOT deleted`); err != nil {
		t.Fatal(err)
	}
	grep := func() []string {
		var paths []string
		err := s.View(ctx, testScope, func(tx driver.ReadTx) error {
			out, _, err := tx.(driver.LiteralGrepper).GrepLiterals(ctx, driver.LiteralGrep{Prefix: "/", Literals: []string{"needle"}, Limit: 10})
			for _, f := range out {
				paths = append(paths, f.Path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return paths
	}
	if diff := cmp.Diff([]string{"/a.md", "/b.md"}, grep()); diff != "" {
		t.Errorf("grep after the writes (-want +got):\n%s", diff)
	}
	written = s.GrepCacheHeld() // with the grep's listing of the project

	// Service.Write: a truncating write and appends (the cache held the version appended to)
	// are cached as the file's whole content.
	svc := storetest.NewService(t, s)
	sctx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("through-key", "through"))
	for _, w := range []fileio.WriteRequest{
		{Path: "/w.md", Content: "first line\n", Mode: fileio.ModeTruncate},
		{Path: "/w.md", Content: "a needle appended\n", Mode: fileio.ModeAppend},
		{Path: "/new.md", Content: "needle in a new file\n", Mode: fileio.ModeAppend},
	} {
		w.Project = "p"
		if _, err := svc.Write(sctx, w); err != nil {
			t.Fatal(err)
		}
	}
	through := driver.Scope{Tenant: agentfiles.NewAuthContext("through-key", "through").TenantID(), Project: "p"}
	if got, want := s.GrepCacheHeld()-written, pgstore.GrepScopeCost(through)+
		pgstore.GrepCachedCost("/w.md", int64(len("first line\na needle appended\n")))+
		pgstore.GrepCachedCost("/new.md", int64(len("needle in a new file\n"))); got != want {
		t.Errorf("after Service.Write the cache grew by %d bytes, want %d", got, want)
	}
	res, err := svc.Grep(sctx, fileio.GrepRequest{Project: "p", Pattern: "needle", OutputMode: fileio.GrepCount})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]fileio.GrepFileCount{{Path: "/new.md", Count: 1}, {Path: "/w.md", Count: 1}}, res.Counts); diff != "" {
		t.Errorf("grep after Service.Write (-want +got):\n%s", diff)
	}

	// A cache with room for a project and three of its files, after writes of ten.
	budget := pgstore.GrepScopeCost(testScope) + 3*pgstore.GrepCachedCost("/f0.md", 20)
	small, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: budget})
	for i := range 10 {
		put(t, small, testScope, fmt.Sprintf("/f%d.md", i), strings.Repeat("x", 20))
	}
	if held := small.GrepCacheHeld(); held > budget || held == 0 {
		t.Errorf("a %d-byte cache holds %d bytes after writes of ten files", budget, held)
	}
	// The copies a transaction kept are released when it ends, committed or not: rolled-back
	// 50-byte writes leave room for a committed one of the same size.
	other := driver.Scope{Tenant: testScope.Tenant, Project: "other"}
	budget = pgstore.GrepScopeCost(other) + pgstore.GrepCachedCost("/big.md", 50)
	small, _ = newStore(t, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: budget})
	for range 3 {
		err := small.Update(ctx, other, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
			if _, err := tx.Put(ctx, "/big.md", []byte(strings.Repeat("y", 50)), driver.PutOptions{}); err != nil {
				return err
			}
			return abort
		})
		if !errors.Is(err, abort) {
			t.Fatal(err)
		}
	}
	if held := small.GrepCacheHeld(); held != 0 {
		t.Errorf("after rolled-back writes the cache holds %d bytes, want 0", held)
	}
	put(t, small, other, "/big.md", strings.Repeat("z", 50))
	if held := small.GrepCacheHeld(); held != budget {
		t.Errorf("after rolled-back writes and a committed one of 50 bytes the cache holds %d bytes, want %d", held, budget)
	}
}

// ExampleOptions_grepCacheBytes bounds the memory a Store's grep cache holds for the literal
// greps of its projects, and reports how much it holds. (It needs a database, so it has no
// checked output.)
func ExampleOptions_grepCacheBytes() {
	ctx := context.Background()
	store, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"), pgstore.Options{GrepCacheBytes: 128 << 20})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	svc, err := fileio.NewService(store, fileio.Options{Config: fileio.DefaultConfig()})
	if err != nil {
		log.Fatal(err)
	}
	ctx = agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("api-key-of-the-caller", "alice"))
	res, err := svc.Grep(ctx, fileio.GrepRequest{Project: "demo", Pattern: "TODO", OutputMode: fileio.GrepCount})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Counts, store.GrepCacheHeld())
}
