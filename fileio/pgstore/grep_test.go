package pgstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// TestGrepCandidates: the trigram index leaves out exactly the files that cannot satisfy the
// query's literals; literals it cannot look up keep every file. Files the indexer has not
// reached yet are always candidates: before it runs every file is, after it the index
// decides, and a file written since (new or replaced) is a candidate again. The grep cache is
// off: with it, the candidates are the files whose contents hold the literals.
func TestGrepCandidates(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: -1})
	for i := range 30 {
		put(t, s, testScope, fmt.Sprintf("/f%02d.txt", i), fmt.Sprintf("common text %d\n", i))
	}
	put(t, s, testScope, "/docs/zebra.md", "a Zebra crossing\n")
	put(t, s, testScope, "/docs/percent.md", "100% sure_thing\n")
	put(t, s, testScope, "/docs/both.md", "zebra and giraffe\n")
	put(t, s, testScope, "/docs/nul.md", "zebra\x00binary\n")
	lit := func(s string, fold bool) driver.ContentQuery {
		return driver.ContentQuery{Op: driver.QueryLiteral, Literal: s, IgnoreCase: fold}
	}
	all := 34
	tests := []struct {
		name   string
		prefix string
		query  driver.ContentQuery
		want   []string // nil: every file below prefix
	}{
		{"literal", "/", lit("zebra", false), []string{"/docs/both.md"}},
		{"ignore case", "/", lit("zebra", true), []string{"/docs/both.md", "/docs/zebra.md"}},
		{"and", "/", driver.ContentQuery{Op: driver.QueryAnd, Sub: []driver.ContentQuery{lit("zebra", false), lit("giraffe", false)}}, []string{"/docs/both.md"}},
		{"or", "/", driver.ContentQuery{Op: driver.QueryOr, Sub: []driver.ContentQuery{lit("giraffe", false), lit("crossing", false)}}, []string{"/docs/both.md", "/docs/zebra.md"}},
		{"sequence", "/", driver.ContentQuery{Op: driver.QuerySequence, Sub: []driver.ContentQuery{lit("zebra", false), lit("giraffe", false)}}, []string{"/docs/both.md"}},
		{"sequence out of order", "/", driver.ContentQuery{Op: driver.QuerySequence, Sub: []driver.ContentQuery{lit("giraffe", false), lit("zebra", false)}}, []string{}},
		{"ignore-case sequence", "/", driver.ContentQuery{Op: driver.QuerySequence, Sub: []driver.ContentQuery{lit("zebra", true), lit("crossing", true)}}, []string{"/docs/zebra.md"}},
		{"LIKE wildcards are literal", "/", lit("0% sure_th", false), []string{"/docs/percent.md"}},
		{"no trigram: every file", "/docs/", lit("%_%", false), nil},
		{"none", "/", driver.ContentQuery{Op: driver.QueryNone}, []string{}},
		{"prefix", "/docs/", lit("text", false), []string{}},
		{"all", "/docs/", driver.ContentQuery{Op: driver.QueryAll}, nil},
	}
	candidates := func(t *testing.T, prefix string, q driver.ContentQuery) []string {
		t.Helper()
		var got []string
		err := s.View(context.Background(), testScope, func(tx driver.ReadTx) error {
			infos, err := tx.(driver.ContentSearcher).GrepCandidates(context.Background(),
				driver.GrepCandidates{Prefix: prefix, Query: q, Limit: 100, Deadline: time.Now().Add(time.Minute)})
			got = []string{}
			for _, fi := range infos {
				got = append(got, fi.Path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if n := len(list(t, s, testScope, "/", 0)); n != all {
		t.Fatalf("fixture has %d files, want %d", n, all)
	}
	t.Run("unindexed", func(t *testing.T) {
		for _, tc := range tests {
			want := list(t, s, testScope, tc.prefix, 0)
			if tc.query.Op == driver.QueryNone {
				want = []string{}
			}
			if diff := cmp.Diff(want, candidates(t, tc.prefix, tc.query)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
	})
	if n, err := s.IndexGrep(context.Background()); err != nil || n != int64(all) {
		t.Fatalf("IndexGrep = %d, %v; want %d files", n, err, all)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = list(t, s, testScope, tc.prefix, 0)
			}
			if diff := cmp.Diff(want, candidates(t, tc.prefix, tc.query)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("written since", func(t *testing.T) {
		put(t, s, testScope, "/docs/zebra2.md", "no stripes\n")     // new: unindexed
		put(t, s, testScope, "/docs/both.md", "giraffe, no more\n") // replaced: unindexed again
		got := candidates(t, "/", lit("zebra", false))
		if diff := cmp.Diff([]string{"/docs/both.md", "/docs/zebra2.md"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if n, err := s.IndexGrep(context.Background()); err != nil || n != 2 {
			t.Fatalf("IndexGrep = %d, %v; want 2 files", n, err)
		}
		if got := candidates(t, "/", lit("zebra", false)); len(got) != 0 {
			t.Errorf("after indexing: %q, want none", got)
		}
	})
}

// TestGrepStatementTimeout: a grep whose statement cannot finish within the time budget (here:
// the files table is locked by another session) is cancelled by its statement_timeout and
// fails with TIMEOUT instead of waiting, and releases its connection.
func TestGrepStatementTimeout(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	put(t, s, testScope, "/a.md", "zebra\n")
	ctx := context.Background()
	locker, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Rollback(ctx)
	if _, err := locker.Exec(ctx, "LOCK TABLE mcp_files IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	svc := storetest.NewService(t, s, func(c *fileio.Config) { c.GrepTimeout = 300 * time.Millisecond })
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("sk-timeout", "t"))
	_, err = svc.Grep(actx, fileio.GrepRequest{Project: "proj", Pattern: "zebra"})
	if agentfiles.ErrorCode(err) != agentfiles.CodeTimeout {
		t.Fatalf("Grep on a locked table: %v, want TIMEOUT", err)
	}
	locker.Rollback(ctx)
	scope := driver.Scope{Tenant: agentfiles.NewAuthContext("sk-timeout", "t").APIKeyHash, Project: "proj"}
	put(t, s, scope, "/b.md", "zebra\n")
	res, err := svc.Grep(actx, fileio.GrepRequest{Project: "proj", Pattern: "zebra", OutputMode: fileio.GrepFilesWithMatches})
	if err != nil || !cmp.Equal(res.Files, []string{"/b.md"}) {
		t.Fatalf("Grep after the lock = %+v, %v", res, err)
	}
}

// TestGrepLiterals runs the driver.LiteralGrepper contract on files the indexer has not
// reached (the pending-file index finds them) and again once they are indexed (the trigram
// index finds them).
func TestGrepLiterals(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	storetest.ExerciseLiteralGrep(t, s, func(t *testing.T) {
		if _, err := s.IndexGrep(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGrepLiteralsSendNoContent: Service.Grep answers files_with_matches and count for a
// literal pattern with GrepLiterals alone, reading no file's content (no GetMany, Get or
// ReadRanges), and gives the answer it gives when it reads and matches the files itself; a
// pattern that asks more than literal text (an anchor) reads the candidates.
func TestGrepLiteralsSendNoContent(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	counting := &countingStore{Store: s}
	svc := storetest.NewService(t, counting)
	plain := storetest.NewService(t, storetest.WithoutLiteralGrep(s))
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("lit-key", "lit"))
	for i := range 40 {
		content := fmt.Sprintf("line %d\nnothing here\n", i)
		if i%7 == 0 {
			content += "Needle in a haystack\nneedle again\r\n"
		}
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: fmt.Sprintf("/d%d/f%02d.md", i%3, i), Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	for _, indexed := range []bool{false, true} {
		if indexed {
			if _, err := s.IndexGrep(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			req      fileio.GrepRequest
			literals bool
		}{
			{fileio.GrepRequest{Pattern: "needle", OutputMode: fileio.GrepCount}, true},
			{fileio.GrepRequest{Pattern: "NEEDLE", IgnoreCase: true, OutputMode: fileio.GrepCount}, true},
			{fileio.GrepRequest{Pattern: "needle|haystack", OutputMode: fileio.GrepFilesWithMatches, Limit: 2}, true},
			{fileio.GrepRequest{Pattern: "needle", Path: "/d1", Glob: "f1*", OutputMode: fileio.GrepFilesWithMatches}, true},
			{fileio.GrepRequest{Pattern: "^needle", OutputMode: fileio.GrepCount}, false},
		} {
			tc.req.Project = "p"
			counting.literals.Store(0)
			counting.reads.Store(0)
			got, err := svc.Grep(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.Grep(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			// Where a truncated answer's cursor points (past the last file reported, or past
			// the last file read) and what was read differ; the entries and pages do not.
			got.ScannedBytes, got.ScannedFiles, got.NextCursor = 0, 0, ""
			want.ScannedBytes, want.ScannedFiles, want.NextCursor = 0, 0, ""
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("indexed %v, %+v (-reading files +GrepLiterals):\n%s", indexed, tc.req, diff)
			}
			if lits, reads := counting.literals.Load(), counting.reads.Load(); (lits > 0) != tc.literals || (reads > 0) == tc.literals {
				t.Errorf("indexed %v, %+v: %d GrepLiterals calls and %d content reads, want literals %v", indexed, tc.req, lits, reads, tc.literals)
			}
		}
	}
}

// countingStore counts the GrepLiterals calls and the content reads of its transactions.
type countingStore struct {
	*pgstore.Store
	literals, reads atomic.Int64
}

func (c *countingStore) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	return c.Store.View(ctx, scope, func(tx driver.ReadTx) error { return fn(&countingTx{ReadTx: tx, tx: tx, s: c}) })
}

func (c *countingStore) ViewScan(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	return c.Store.ViewScan(ctx, scope, func(tx driver.ReadTx) error { return fn(&countingTx{ReadTx: tx, tx: tx, s: c}) })
}

// countingTx is a ReadTx with the optional read interfaces grep uses, counting calls.
type countingTx struct {
	driver.ReadTx
	tx driver.ReadTx
	s  *countingStore
}

func (c *countingTx) Get(ctx context.Context, path string) (driver.File, error) {
	c.s.reads.Add(1)
	return c.tx.Get(ctx, path)
}

func (c *countingTx) GetMany(ctx context.Context, paths []string) ([]driver.File, error) {
	c.s.reads.Add(1)
	return c.tx.(driver.MultiGetter).GetMany(ctx, paths)
}

func (c *countingTx) GrepCandidates(ctx context.Context, q driver.GrepCandidates) ([]driver.FileInfo, error) {
	return c.tx.(driver.ContentSearcher).GrepCandidates(ctx, q)
}

func (c *countingTx) GrepLiterals(ctx context.Context, g driver.LiteralGrep) ([]driver.LiteralFile, bool, error) {
	c.s.literals.Add(1)
	return c.tx.(driver.LiteralGrepper).GrepLiterals(ctx, g)
}
