package pgindex_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// storageCounters reads the project's storage: segments, files pointing into segments, pending
// files, and the merge counters against what the rows say.
type storageCounters struct {
	Segments, MergedFiles, PendingFiles int64
	Pending, Dead                       int64
	PendingRows, DeadRows               int64
	// LiveOff sums, over the segments, how far live_chunks is from the chunks of the files rows
	// pointing into the segment.
	LiveOff int64
}

func readStorage(t *testing.T, ix *pgindex.Index) storageCounters {
	t.Helper()
	var c storageCounters
	err := ix.Pool().QueryRow(context.Background(), `SELECT
  (SELECT count(*) FROM mcp_search_segments s WHERE s.project_id = pr.id),
  (SELECT count(*) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NOT NULL),
  (SELECT count(*) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NULL AND f.chunk_count > 0),
  pr.pending_chunks, pr.dead_chunks,
  (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NULL),
  (SELECT coalesce(sum(s.chunk_count), 0) FROM mcp_search_segments s WHERE s.project_id = pr.id)
    - (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.project_id = pr.id AND f.segment_id IS NOT NULL),
  (SELECT coalesce(sum(abs(s.live_chunks - (SELECT coalesce(sum(f.chunk_count), 0) FROM mcp_search_files f WHERE f.segment_id = s.id))), 0)
   FROM mcp_search_segments s WHERE s.project_id = pr.id)
FROM mcp_search_projects pr WHERE pr.apikey_hash = $1 AND pr.project = $2`, testScope.Tenant, testScope.Project).
		Scan(&c.Segments, &c.MergedFiles, &c.PendingFiles, &c.Pending, &c.Dead, &c.PendingRows, &c.DeadRows, &c.LiveOff)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compareAll checks that pg answers every kind of query exactly as mem: lexical (scores, df,
// statistics, ties, filters), semantic, ScoreChunks over every chunk of the first files, file
// states and stored chunks.
func compareAll(t *testing.T, mem *memindex.Index, pg *pgindex.Index, emb *search.HashingEmbedder, stage string) {
	t.Helper()
	ctx := context.Background()
	filters := []struct {
		prefix  string
		exclude map[string]bool
	}{{"", nil}, {"/d1/", nil}, {"/d", map[string]bool{"/d2/f_002.md": true, "/d3/f_008.md": true}}}
	refs := chunkRefs(t, mem, 10)
	for _, q := range []string{"alpha", "retry backoff", "zulu yankee xray", "café 検索", "the nonexistentword"} {
		terms := indexdriver.QueryTerms(q)
		for _, fl := range filters {
			for _, k := range []int{1, 7, 1000} {
				lq := indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), PathPrefix: fl.prefix, ExcludePaths: fl.exclude, TopK: k}
				sameLexical(t, mem, pg, lq, fmt.Sprintf("%s: lexical %q %+v k=%d", stage, q, fl, k))
			}
		}
		qv, _ := emb.Embed(ctx, []string{q})
		sq := indexdriver.SemanticQuery{Vector: qv[0], Model: emb.Model(), TopK: 20}
		want, _ := mem.Semantic(ctx, testScope, sq)
		got, err := pg.Semantic(ctx, testScope, sq)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: semantic %q (-memindex +pgindex):\n%s", stage, q, diff)
		}
		lex, _ := mem.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), TopK: 1})
		scq := indexdriver.ScoreQuery{Chunks: refs, Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: indexdriver.DefaultBM25(), Vector: qv[0], Model: emb.Model()}
		wantScores, _ := mem.ScoreChunks(ctx, testScope, scq)
		gotScores, err := pg.ScoreChunks(ctx, testScope, scq)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantScores, gotScores); diff != "" {
			t.Errorf("%s: ScoreChunks %q (-memindex +pgindex):\n%s", stage, q, diff)
		}
	}
	wantStates, _ := mem.FileStateList(ctx, testScope, "")
	gotStates, err := pg.FileStateList(ctx, testScope, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantStates, gotStates, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: file states (-memindex +pgindex):\n%s", stage, diff)
	}
	for _, s := range wantStates[:min(len(wantStates), 6)] {
		want, _ := mem.Chunks(ctx, testScope, s.Path)
		got, err := pg.Chunks(ctx, testScope, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: chunks of %s (-memindex +pgindex):\n%s", stage, s.Path, diff)
		}
	}
}

// TestMergeKeepsAnswers: pgindex answers exactly as memindex with every file pending, after a
// merge into one segment, with replaced and deleted files leaving dead chunks in the segment
// beside new pending ones, and after merging those; the merge counters always equal what the
// rows say, and a merge leaves nothing pending and nothing dead.
func TestMergeKeepsAnswers(t *testing.T) {
	ctx, emb := context.Background(), search.NewHashingEmbedder(32)
	pg, _ := newIndex(t, pgindex.Options{MergePendingChunks: 1 << 30}) // merges only when asked
	mem := loadBoth(t, pg, 40, 150, emb)
	compareAll(t, mem, pg, emb, "all pending")
	if got := readStorage(t, pg); got.Segments != 0 || got.PendingFiles != 40 || got.Pending != got.PendingRows {
		t.Errorf("before merging: %+v", got)
	}
	if err := pg.Merge(ctx, testScope); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(storageCounters{Segments: 1, MergedFiles: 40}, readStorage(t, pg)); diff != "" {
		t.Errorf("after merging (-want +got):\n%s", diff)
	}
	compareAll(t, mem, pg, emb, "merged")

	r := rand.New(rand.NewPCG(3, 4))
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 300, OverlapBytes: 40})
	later := time.Date(2026, 6, 1, 0, 0, 0, 987, time.UTC)
	for i := 0; i < 40; i += 3 {
		f := indexedFile(fmt.Sprintf("/d%d/f_%03d.md", i%5, i), later.Add(time.Duration(i)), corpusFile(r, 90), chunker, emb)
		for _, ix := range []indexdriver.Index{mem, pg} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 1; i < 40; i += 7 {
		for _, ix := range []indexdriver.Index{mem, pg} {
			if err := ix.DeleteFile(ctx, testScope, fmt.Sprintf("/d%d/f_%03d.md", i%5, i), later.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := readStorage(t, pg)
	if got.Dead == 0 || got.Dead != got.DeadRows || got.Pending != got.PendingRows || got.PendingFiles == 0 || got.LiveOff != 0 {
		t.Errorf("after replacing and deleting: %+v, want dead chunks and pending files, counters equal to the rows", got)
	}
	compareAll(t, mem, pg, emb, "segment with dead chunks and pending files")
	if err := pg.Merge(ctx, testScope); err != nil {
		t.Fatal(err)
	}
	got = readStorage(t, pg)
	if got.Segments != 1 || got.PendingFiles != 0 || got.Dead != 0 || got.DeadRows != 0 || got.Pending != 0 {
		t.Errorf("after merging again: %+v, want one segment, nothing pending or dead", got)
	}
	compareAll(t, mem, pg, emb, "merged again")
}

// TestMergeUnderConcurrentWriters: two instances sharing a database, both merging after every
// write (and one of them asked to merge in a loop), while four goroutines replace and delete
// files through them; afterwards the index answers exactly as a memindex given the final
// version of every file, and the counters (the project's, the segments' live chunks) equal what
// the rows say.
func TestMergeUnderConcurrentWriters(t *testing.T) {
	ctx, emb := context.Background(), search.NewHashingEmbedder(32)
	a, url := newIndex(t, pgindex.Options{MergePendingChunks: 1})
	b, err := pgindex.Open(ctx, url, pgindex.Options{MergePendingChunks: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 300, OverlapBytes: 40})
	base := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	const files, writers, rounds = 24, 4, 12
	final := make([]*indexdriver.IndexedFile, files) // nil: deleted last
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := a.Merge(ctx, testScope); err != nil {
				t.Errorf("%v (cause: %v)", err, errors.Unwrap(err))
				return
			}
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			ix := []*pgindex.Index{a, b}[w%2]
			for round := range rounds {
				// Each writer owns the files i ≡ w (mod writers), so versions per file are ordered.
				for i := w; i < files; i += writers {
					version := base.Add(time.Duration(round*files+i) * time.Microsecond)
					if r.IntN(5) == 0 {
						if err := ix.DeleteFile(ctx, testScope, fmt.Sprintf("/d%d/f_%03d.md", i%5, i), version); err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						final[i] = nil
						mu.Unlock()
						continue
					}
					f := indexedFile(fmt.Sprintf("/d%d/f_%03d.md", i%5, i), version, corpusFile(r, 60+r.IntN(120)), chunker, emb)
					if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					final[i] = &f
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	// Merges add their deltas to the counters as writers do; any committed state has counters
	// equal to the rows, before the final merge as after it.
	if got := readStorage(t, a); got.Pending != got.PendingRows || got.Dead != got.DeadRows || got.LiveOff != 0 {
		t.Errorf("before the final merge, counters differ from the rows: %+v", got)
	}
	mem := memindex.New()
	for _, f := range final {
		if f != nil {
			if err := mem.ReplaceFile(ctx, testScope, *f); err != nil {
				t.Fatal(err)
			}
		}
	}
	compareAll(t, mem, a, emb, "after concurrent writes and merges")
	if err := b.Merge(ctx, testScope); err != nil {
		t.Fatal(err)
	}
	compareAll(t, mem, b, emb, "after a final merge")
	if got := readStorage(t, a); got.Pending != got.PendingRows || got.Dead != got.DeadRows || got.LiveOff != 0 {
		t.Errorf("counters differ from the rows: %+v", got)
	}
}
