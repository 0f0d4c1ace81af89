package pgindex_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestFileStateListAcrossInstances: instance A answers FileStateList from its in-process cache
// while instance B (no cache) and a memindex receive every change; A sees each change made
// through B at its next call, and A, B, a tiny-cache instance and memindex agree for prefixes
// that need bytewise order and LIKE escaping. A list already returned never changes.
func TestFileStateListAcrossInstances(t *testing.T) {
	a, url := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	b := pgtest.Open(t, url, pgindex.Open, pgindex.Options{FileStateCacheBytes: -1})
	tiny := pgtest.Open(t, url, pgindex.Open, pgindex.Options{FileStateCacheBytes: 100})
	mem := memindex.New()
	base := time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC)
	put := func(path string, v int, content string) {
		t.Helper()
		f := indexedFile(path, base.Add(time.Duration(v)), content, search.Chunker{}, nil)
		for _, ix := range []search.Index{b, mem} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := func(path string) {
		t.Helper()
		for _, ix := range []search.Index{b, mem} {
			if err := ix.DeleteFile(ctx, testScope, path, base.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(stage string) {
		t.Helper()
		for _, prefix := range []string{"", "/", "/a", "/a_", "/a_b/", "/b", "/é", "/z", "\xff"} {
			want, err := mem.FileStateList(ctx, testScope, prefix)
			if err != nil {
				t.Fatal(err)
			}
			for name, ix := range map[string]*pgindex.Index{"cached": a, "uncached": b, "tiny-cache": tiny} {
				got, err := ix.FileStateList(ctx, testScope, prefix)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s, %s, prefix %q (-memindex +pgindex):\n%s", stage, name, prefix, diff)
				}
			}
		}
	}
	check("never indexed")
	for i, p := range []string{"/b/x.md", "/a_b/c.md", "/aXb/c.md", "/a/z.md", "/é/x.md", "/z/x.md", "/a/Z.md", "/a_/y.md"} {
		put(p, i, "some words for "+p)
	}
	check("after inserts")
	before, err := a.FileStateList(ctx, testScope, "")
	if err != nil {
		t.Fatal(err)
	}
	kept := append([]search.PathFileState(nil), before...)
	put("/a/z.md", 100, "a newer version with more words")
	check("after a replace through another instance")
	del("/a_b/c.md")
	put("/0.md", 1, "zero")
	check("after a delete and an insert through another instance")
	put("/a/lexical-only.md", 1, "")
	check("after a file with no chunks")
	if diff := cmp.Diff(kept, before); diff != "" {
		t.Errorf("a returned list changed after later writes (-then +now):\n%s", diff)
	}
	states, err := a.FileStates(ctx, testScope, "/a/")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := mem.FileStates(ctx, testScope, "/a/")
	if diff := cmp.Diff(want, states); diff != "" {
		t.Errorf("FileStates (-memindex +pgindex):\n%s", diff)
	}
}
