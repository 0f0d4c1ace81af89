package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
)

// TestGrepCandidates: the trigram index leaves out exactly the files that cannot satisfy the
// query's literals; literals it cannot look up keep every file.
func TestGrepCandidates(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	for i := range 30 {
		put(t, s, testScope, fmt.Sprintf("/f%02d.txt", i), fmt.Sprintf("common text %d\n", i))
	}
	put(t, s, testScope, "/docs/zebra.md", "a Zebra crossing\n")
	put(t, s, testScope, "/docs/percent.md", "100% sure_thing\n")
	put(t, s, testScope, "/docs/both.md", "zebra and giraffe\n")
	put(t, s, testScope, "/docs/nul.md", "zebra\x00binary\n")
	lit := func(s string, fold bool) fileio.ContentQuery {
		return fileio.ContentQuery{Op: fileio.QueryLiteral, Literal: s, IgnoreCase: fold}
	}
	all := 34
	tests := []struct {
		name   string
		prefix string
		query  fileio.ContentQuery
		want   []string // nil: every file below prefix
	}{
		{"literal", "/", lit("zebra", false), []string{"/docs/both.md"}},
		{"ignore case", "/", lit("zebra", true), []string{"/docs/both.md", "/docs/zebra.md"}},
		{"and", "/", fileio.ContentQuery{Op: fileio.QueryAnd, Sub: []fileio.ContentQuery{lit("zebra", false), lit("giraffe", false)}}, []string{"/docs/both.md"}},
		{"or", "/", fileio.ContentQuery{Op: fileio.QueryOr, Sub: []fileio.ContentQuery{lit("giraffe", false), lit("crossing", false)}}, []string{"/docs/both.md", "/docs/zebra.md"}},
		{"sequence", "/", fileio.ContentQuery{Op: fileio.QuerySequence, Sub: []fileio.ContentQuery{lit("zebra", false), lit("giraffe", false)}}, []string{"/docs/both.md"}},
		{"sequence out of order", "/", fileio.ContentQuery{Op: fileio.QuerySequence, Sub: []fileio.ContentQuery{lit("giraffe", false), lit("zebra", false)}}, []string{}},
		{"ignore-case sequence", "/", fileio.ContentQuery{Op: fileio.QuerySequence, Sub: []fileio.ContentQuery{lit("zebra", true), lit("crossing", true)}}, []string{"/docs/zebra.md"}},
		{"LIKE wildcards are literal", "/", lit("0% sure_th", false), []string{"/docs/percent.md"}},
		{"no trigram: every file", "/docs/", lit("%_%", false), nil},
		{"none", "/", fileio.ContentQuery{Op: fileio.QueryNone}, []string{}},
		{"prefix", "/docs/", lit("text", false), []string{}},
		{"all", "/docs/", fileio.ContentQuery{Op: fileio.QueryAll}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := s.View(context.Background(), testScope, func(tx fileio.ReadTx) error {
				infos, err := tx.(fileio.ContentSearcher).GrepCandidates(context.Background(),
					fileio.GrepCandidates{Prefix: tc.prefix, Query: tc.query, Limit: 100, Deadline: time.Now().Add(time.Minute)})
				got = []string{}
				for _, fi := range infos {
					got = append(got, fi.Path)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = list(t, s, testScope, tc.prefix, 0)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if n := len(list(t, s, testScope, "/", 0)); n != all {
		t.Fatalf("fixture has %d files, want %d", n, all)
	}
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
	scope := fileio.Scope{Tenant: agentfiles.NewAuthContext("sk-timeout", "t").APIKeyHash, Project: "proj"}
	put(t, s, scope, "/b.md", "zebra\n")
	res, err := svc.Grep(actx, fileio.GrepRequest{Project: "proj", Pattern: "zebra", OutputMode: fileio.GrepFilesWithMatches})
	if err != nil || !cmp.Equal(res.Files, []string{"/b.md"}) {
		t.Fatalf("Grep after the lock = %+v, %v", res, err)
	}
}
