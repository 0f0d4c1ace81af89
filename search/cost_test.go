package search_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// readCounts counts the store reads a query makes.
type readCounts struct{ views, lists, stats, statMany, readRanges, gets atomic.Int64 }

// countingStore wraps a store's read transactions to count their calls. With portable set it
// also hides the optional interfaces (driver.ScopeJobLister, driver.MultiStater,
// driver.RangeReader), so the Searcher takes its portable path.
type countingStore struct {
	driver.Store
	n        *readCounts
	portable bool
}

func (s countingStore) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	s.n.views.Add(1)
	return s.Store.View(ctx, scope, func(tx driver.ReadTx) error {
		c := &countingTx{ReadTx: tx, n: s.n}
		if s.portable {
			return fn(c)
		}
		return fn(multiTx{countingTx: c})
	})
}

// jobStore is countingStore with the wrapped store's ScopeJobLister.
type jobStore struct {
	countingStore
	driver.ScopeJobLister
}

type countingTx struct {
	driver.ReadTx
	n *readCounts
}

func (tx *countingTx) List(ctx context.Context, prefix string, limit int) ([]driver.FileInfo, error) {
	tx.n.lists.Add(1)
	return tx.ReadTx.List(ctx, prefix, limit)
}

func (tx *countingTx) Stat(ctx context.Context, path string) (driver.FileInfo, bool, error) {
	tx.n.stats.Add(1)
	return tx.ReadTx.Stat(ctx, path)
}

func (tx *countingTx) Get(ctx context.Context, path string) (driver.File, error) {
	tx.n.gets.Add(1)
	return tx.ReadTx.Get(ctx, path)
}

type multiTx struct{ *countingTx }

func (tx multiTx) StatMany(ctx context.Context, paths []string) (map[string]driver.FileInfo, error) {
	tx.n.statMany.Add(1)
	return tx.ReadTx.(driver.MultiStater).StatMany(ctx, paths)
}

func (tx multiTx) ReadRanges(ctx context.Context, ranges []driver.ByteRange) (map[string]driver.FileInfo, [][]byte, error) {
	tx.n.readRanges.Add(1)
	return tx.ReadTx.(driver.RangeReader).ReadRanges(ctx, ranges)
}

// TestQueryCostIndependentOfProject: with a store that lists its pending jobs and stats many
// files at once, a query never lists the project, reads the text of its feedback chunks in one
// read (query expansion), and checks its candidates and reads their text (the index keeps
// none) in one more, never reading an indexed file whole; a store
// without those interfaces gets the portable path, with the same results. Either way deleted
// files are never returned and files not indexed yet are found by the scan.
func TestQueryCostIndependentOfProject(t *testing.T) {
	for _, portable := range []bool{false, true} {
		t.Run(fmt.Sprintf("portable=%v", portable), func(t *testing.T) {
			e := indextest.NewEnv(t, memindex.New(), indextest.EnvOptions{})
			ctx := indextest.Ctx("key-a")
			for i := range 300 {
				e.Write(ctx, "p", fmt.Sprintf("/files/f%03d.md", i), fmt.Sprintf("file %d mentions backoff and retries, item%d", i, i))
			}
			e.Write(ctx, "p", "/gone.md", "backoff zeppelin")
			e.Drain()
			e.Delete(ctx, "p", "/gone.md")                                      // indexed, then deleted: not drained
			e.Write(ctx, "p", "/files/f007.md", "rewritten: zeppelin backoff")  // indexed at an older version
			e.Write(ctx, "p", "/new.md", "a fresh note about zeppelin backoff") // never indexed

			n := &readCounts{}
			var store driver.Store = countingStore{Store: e.Store, n: n, portable: portable}
			if !portable {
				store = jobStore{countingStore: store.(countingStore), ScopeJobLister: e.Store}
			}
			s, err := search.NewSearcher(store, e.Index, search.SearcherOptions{Embedder: search.NewHashingEmbedder(64)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Search(ctx, search.Query{Project: "p", Query: "zeppelin backoff", Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]search.HitSource{}
			for _, h := range res.Hits {
				found[h.Path] = h.Source
			}
			if _, ok := found["/gone.md"]; ok {
				t.Error("a deleted file was returned")
			}
			if found["/new.md"] != search.SourceScan || found["/files/f007.md"] != search.SourceScan {
				t.Errorf("pending files not found by the scan: %v", found)
			}
			if res.PendingFiles != 2 || res.PendingScanned != 2 {
				t.Errorf("pending %d, scanned %d; want 2 and 2", res.PendingFiles, res.PendingScanned)
			}
			t.Logf("views %d, lists %d, stats %d, statMany %d, readRanges %d, gets %d", n.views.Load(), n.lists.Load(), n.stats.Load(), n.statMany.Load(), n.readRanges.Load(), n.gets.Load())
			if portable {
				if n.lists.Load() != 1 {
					t.Errorf("portable path: %d lists, want 1", n.lists.Load())
				}
				return
			}
			if n.lists.Load() != 0 || n.stats.Load() != 0 || n.statMany.Load() != 0 || n.readRanges.Load() != 2 || n.gets.Load() != 2 {
				t.Errorf("reads: %d lists, %d stats, %d StatMany, %d ReadRanges, %d gets; want 0, 0, 0, 2 (feedback, candidates) and 2 (the pending files)",
					n.lists.Load(), n.stats.Load(), n.statMany.Load(), n.readRanges.Load(), n.gets.Load())
			}
		})
	}
}
