package memindex_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestIndexAcceptance(t *testing.T) {
	indextest.Exercise(t, func(t *testing.T) indexdriver.Index { return memindex.New() })
}

// TestIndexAcceptanceWithoutFileStateList runs the suite with memindex seen only as a plain
// indexdriver.Index, so the Searcher takes its FileStates (map) path, as it does for indexes that
// do not implement indexdriver.FileStateLister.
func TestIndexAcceptanceWithoutFileStateList(t *testing.T) {
	indextest.Exercise(t, func(t *testing.T) indexdriver.Index { return struct{ indexdriver.Index }{memindex.New()} })
}

// TestFileStateList checks that FileStateList is FileStates sorted by path, for several prefixes
// and after every kind of change, and that a list already returned is not changed by later
// writes (it is shared, so it must be immutable).
func TestFileStateList(t *testing.T) {
	ctx := context.Background()
	scope := driver.Scope{Tenant: "t", Project: "p"}
	ix := memindex.New()
	file := func(path string, v int64, chunks int) indexdriver.IndexedFile {
		f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: time.Unix(v, 0)}
		for i := range chunks {
			f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Index: i, Text: "x"}, Terms: map[string]int{"x": 1}, ChunkTerms: 1})
		}
		return f
	}
	check := func(step string) {
		t.Helper()
		for _, prefix := range []string{"", "/", "/a", "/a/", "/a/b", "/b", "/zz", "\xff"} {
			m, err := ix.FileStates(ctx, scope, prefix)
			if err != nil {
				t.Fatal(err)
			}
			var want []indexdriver.PathFileState
			for p, st := range m {
				want = append(want, indexdriver.PathFileState{Path: p, FileState: st})
			}
			sort.Slice(want, func(i, j int) bool { return want[i].Path < want[j].Path })
			got, err := ix.FileStateList(ctx, scope, prefix)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s, prefix %q (-FileStates +FileStateList):\n%s", step, prefix, diff)
			}
		}
	}
	check("empty index")
	for _, f := range []indexdriver.IndexedFile{file("/b", 1, 2), file("/a/b/c", 1, 1), file("/a", 1, 3), file("/a/b", 1, 1), file("/c", 1, 1), file("/a/bb", 1, 1)} {
		if err := ix.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}
	check("after inserts")
	before, _ := ix.FileStateList(ctx, scope, "")
	kept := append([]indexdriver.PathFileState(nil), before...)
	if err := ix.ReplaceFile(ctx, scope, file("/a/b", 2, 4)); err != nil {
		t.Fatal(err)
	}
	check("after a replace")
	if err := ix.DeleteFile(ctx, scope, "/a", time.Unix(5, 0)); err != nil {
		t.Fatal(err)
	}
	if err := ix.ReplaceFile(ctx, scope, file("/0", 1, 1)); err != nil {
		t.Fatal(err)
	}
	check("after a delete and an insert")
	if diff := cmp.Diff(kept, before); diff != "" {
		t.Errorf("a returned list changed after later writes (-then +now):\n%s", diff)
	}
}
