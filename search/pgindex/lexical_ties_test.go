package pgindex_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestLexicalTiesMatchMemindex: many chunks with exactly the same score (identical texts)
// must be cut at K by path, then chunk index, as memindex does, also when the ties far
// outnumber K and when path filters remove some of them.
func TestLexicalTiesMatchMemindex(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	mem := memindex.New()
	ctx := context.Background()
	chunker := search.NewChunker(search.ChunkerConfig{TargetBytes: 24, OverlapBytes: -1})
	version := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	// Written in an order unrelated to path order, so chunk ids do not follow paths.
	for i := range 120 {
		n := (i * 37) % 120
		content := "alpha bravo charlie.\n\nalpha bravo charlie.\n\ndelta echo"
		if n%7 == 0 {
			content = "alpha alpha bravo.\n\n" + content
		}
		f := indexedFile(fmt.Sprintf("/t%d/f%03d.md", n%3, n), version, content, chunker, nil)
		for _, ix := range []search.Index{mem, pg} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{"alpha", "bravo charlie", "echo alpha"} {
		for _, prefix := range []string{"", "/t1/"} {
			for _, k := range []int{1, 5, 30, 200} {
				lq := search.LexicalQuery{Terms: search.QueryTerms(q), BM25: search.DefaultBM25(), PathPrefix: prefix,
					ExcludePaths: map[string]bool{"/t0/f000.md": true, "/t1/f001.md": true}, TopK: k}
				want, err := mem.Lexical(ctx, testScope, lq)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.Lexical(ctx, testScope, lq)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%q prefix %q k=%d (-memindex +pgindex):\n%s", q, prefix, k, diff)
				}
			}
		}
	}
}
