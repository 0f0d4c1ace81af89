package memstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/memgrep"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

// TestGrepCandidatesAsOneAtATime checks the block-parallel candidate filter against its
// definition, one file at a time in path order with driver.ContentQuery.Matches: the same
// candidates and the same account of what was read, at every limit and read budget, from
// every starting point (a fixed sample of the combinations by default, all of them with
// AGENTFILES_FULL=1).
func TestGrepCandidatesAsOneAtATime(t *testing.T) {
	prose := grepbench.NewProse(1500, 12<<20, 5)
	store := memstore.New(memstore.Options{})
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ctx := context.Background()
	err := store.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		for _, f := range prose.Files {
			if _, err := tx.Put(ctx, f.Path, f.Content, driver.PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	word, common := prose.Word(0.01), prose.Word(0.3)
	queries := []driver.ContentQuery{
		{Op: driver.QueryAll},
		{Op: driver.QueryNone},
		{Op: driver.QueryLiteral, Literal: word},
		{Op: driver.QueryLiteral, Literal: strings.ToLower(common), IgnoreCase: true},
		{Op: driver.QueryOr, Sub: []driver.ContentQuery{{Op: driver.QueryLiteral, Literal: word}, {Op: driver.QueryLiteral, Literal: common}}},
		{Op: driver.QueryAnd, Sub: []driver.ContentQuery{{Op: driver.QueryLiteral, Literal: "the"}, {Op: driver.QueryLiteral, Literal: common}}},
		{Op: driver.QuerySequence, Sub: []driver.ContentQuery{{Op: driver.QueryLiteral, Literal: common}, {Op: driver.QueryLiteral, Literal: "the"}}},
	}
	type answer struct {
		Paths []string
		Read  driver.CandidateRead
	}
	oneAtATime := func(tx driver.ReadTx, c driver.GrepCandidates) answer {
		infos, err := tx.List(ctx, c.Prefix, 0)
		if err != nil {
			t.Fatal(err)
		}
		var a answer
		for _, info := range infos {
			if len(a.Paths) >= c.Limit {
				break
			}
			if !strings.HasPrefix(info.Path, c.Prefix) || info.Path <= c.After {
				continue
			}
			if c.Query.Op == driver.QueryAll {
				a.Paths = append(a.Paths, info.Path)
				continue
			}
			if c.MaxReadBytes > 0 && a.Read.Bytes >= c.MaxReadBytes && a.Read.Through != "" {
				a.Read.Stopped = true
				break
			}
			f, err := tx.Get(ctx, info.Path)
			if err != nil {
				t.Fatal(err)
			}
			a.Read.Bytes += (int64(len(f.Content)) + memgrep.FilterCost - 1) / memgrep.FilterCost // the filter's charge
			a.Read.Through = info.Path
			if c.Query.Matches(f.Content) {
				a.Paths = append(a.Paths, info.Path)
			}
		}
		return a
	}
	// Every combination of query, prefix, starting point, limit and budget: 672 cases, a fixed
	// sample of them by default (all with AGENTFILES_FULL=1).
	var cases []driver.GrepCandidates
	for _, q := range queries {
		for _, prefix := range []string{"/", "/docs/s1", "/docs/s7/"} {
			for _, after := range []string{"", prose.Files[700].Path} {
				for _, limit := range []int{1, 5, 256, 5000} {
					for _, budget := range []int64{0, 1, 100 << 10, 3 << 20} {
						cases = append(cases, driver.GrepCandidates{Prefix: prefix, After: after, Query: q, Limit: limit, MaxReadBytes: budget})
					}
				}
			}
		}
	}
	err = store.View(ctx, scope, func(tx driver.ReadTx) error {
		cs := tx.(driver.ContentSearcher)
		for _, c := range testsize.Sample(t, cases, 150) {
			want := oneAtATime(tx, c)
			var got answer
			c.Read = &got.Read
			infos, err := cs.GrepCandidates(ctx, c)
			if err != nil {
				return err
			}
			for _, info := range infos {
				got.Paths = append(got.Paths, info.Path)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%v below %q after %q, limit %d, budget %d (-one at a time +got):\n%s",
					c.Query, c.Prefix, c.After, c.Limit, c.MaxReadBytes, diff)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
}
