package pgindex_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
)

// codesCorpus writes files of 1,536-dimension vectors to mem and ix: dense ones (1 to 4
// chunks), exact ties, files of exact codes and, with odd, files at the end of the path order
// whose vectors give the codes no bound (components of 1e37) or are not finite (one +Inf), and
// returns the queries to compare.
func codesCorpus(t *testing.T, mem, ix indexdriver.Index, model string, files int, odd bool) map[string][]float32 {
	t.Helper()
	const dims = 1536
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	base := time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC)
	put := func(f indexdriver.IndexedFile) {
		t.Helper()
		for _, x := range []indexdriver.Index{mem, ix} {
			if err := x.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	var stored [][]float32
	for i := range files {
		vecs := make([][]float32, 1+i%4)
		for j := range vecs {
			vecs[j] = denseVector(r, dims)
		}
		if i%10 == 3 {
			vecs[0] = stored[r.IntN(len(stored))]
		}
		if i%15 == 7 {
			for j := range vecs {
				v := make([]float32, dims)
				for k := range v {
					v[k] = float32(r.IntN(9)-4) / 64
				}
				vecs[j] = v
			}
		}
		stored = append(stored, vecs...)
		put(vectorFile(fmt.Sprintf("/d%d/f%03d.md", i%3, i), base.Add(time.Duration(i)), model, vecs...))
	}
	queries := map[string][]float32{"dense": denseVector(r, dims), "stored": stored[17], "tied": stored[3], "exact": stored[7]}
	if odd {
		// Components of about 1e37 give a norm past what the bound allows (and codes that are not
		// exact); their sign makes the chunk the dense query's best, with a finite score.
		var sum float64
		for _, x := range queries["dense"] {
			sum += float64(x)
		}
		huge := make([]float32, dims)
		for k := range huge {
			huge[k] = float32(math.Copysign(1e37*(0.9+0.2*r.Float64()), sum))
		}
		inf := denseVector(r, dims)
		inf[5] = float32(math.Inf(1))
		put(vectorFile("/z/huge.md", base, model, denseVector(r, dims), huge))
		put(vectorFile("/z/inf.md", base, model, inf, denseVector(r, dims)))
	}
	return queries
}

// semanticQueries are the queries compared for each query vector: excluded files (first, so
// that an Index's first query, which collects its cache, excludes some), TopK 10, 1 and past
// the number of chunks, and a path filter with an excluded file.
func semanticQueries(model string, qv []float32, exclude map[string]bool) []indexdriver.SemanticQuery {
	return []indexdriver.SemanticQuery{
		{Vector: qv, Model: model, TopK: 10, ExcludePaths: exclude},
		{Vector: qv, Model: model, TopK: 10},
		{Vector: qv, Model: model, TopK: 1},
		{Vector: qv, Model: model, TopK: 1000},
		{Vector: qv, Model: model, TopK: 5, PathPrefix: "/d1/", ExcludePaths: map[string]bool{"/d1/f001.md": true}},
	}
}

// compareSemantic fails t unless every index in got answers every query as want does.
func compareSemantic(t *testing.T, stage string, want indexdriver.Index, got map[string]indexdriver.Index, model string, queries map[string][]float32) {
	t.Helper()
	ctx := context.Background()
	names := slices.Sorted(maps.Keys(queries))
	for _, name := range names {
		qv := queries[name]
		// The first query excludes the files of the third to fifth best chunks (not those of
		// the two best, which the odd vectors' files may hold).
		top, err := want.Semantic(ctx, testScope, indexdriver.SemanticQuery{Vector: qv, Model: model, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		exclude := map[string]bool{}
		for _, c := range top[2:] {
			if c.Path != top[0].Path && c.Path != top[1].Path {
				exclude[c.Path] = true
			}
		}
		for _, q := range semanticQueries(model, qv, exclude) {
			w, err := want.Semantic(ctx, testScope, q)
			if err != nil {
				t.Fatal(err)
			}
			for ixName, ix := range got {
				g, err := ix.Semantic(ctx, testScope, q)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(w, g, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s, query %s, TopK %d, prefix %q, %s (-want +got):\n%s", stage, name, q.TopK, q.PathPrefix, ixName, diff)
				}
			}
		}
	}
}

// TestSemanticPastCache: a project larger than its share of the vector cache streams the int8
// codes of the files that did not fit (in one stream, or split in several read at once), and an
// Index without a cache streams them all; both answer exactly as an Index whose cache holds
// the whole project, and as memindex: the same chunks, order and float64 scores, for dense
// vectors, exact ties, exact codes and, streamed, vectors whose codes give no bound or that are
// not finite.
func TestSemanticPastCache(t *testing.T) {
	for _, tc := range []struct {
		name    string
		streams int
		odd     bool
	}{{"one stream", 1, false}, {"three streams", 3, false}, {"three streams, odd vectors", 3, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(pgindex.SplitStreamsFrom(1, tc.streams))
			const model = "dense-test"
			ctx := context.Background()
			unlimited, url := newIndex(t, pgindex.Options{VectorCacheBytes: 1 << 40})
			mem := memindex.New()
			queries := codesCorpus(t, mem, unlimited, model, 150, tc.odd)
			got := map[string]indexdriver.Index{"unlimited cache": unlimited}
			// 300 KiB: a project share of 150 KiB, about a third of the project's codes.
			for name, bytes := range map[string]int64{"a third cached": 300 << 10, "no cache": -1} {
				ix, err := pgindex.Open(ctx, url, pgindex.Options{VectorCacheBytes: bytes})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(ix.Close)
				got[name] = ix
			}
			// memindex first: it is the reference of each Index's first query, which collects
			// the Index's cache as it streams.
			compareSemantic(t, "memindex vs pgindex", mem, got, model, queries)
			compareSemantic(t, "unlimited cache vs the others", unlimited, got, model, queries)
		})
	}
}

// TestCodesMigration: vector rows written before schema version 7 have no codes. Migration 7
// leaves those of 512 dimensions or more NULL (and gives the 64-dimension ones empty codes);
// queries read their floats and answer as before; BackfillCodes, which New runs in the
// background, then stores exactly the codes that ReplaceFile writes, after which queries stream
// and cache the codes with the same answers.
func TestCodesMigration(t *testing.T) {
	const model = "dense-test"
	ctx := context.Background()
	url := pgtest.New(t)
	writer := pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	mem := memindex.New()
	queries := codesCorpus(t, mem, writer, model, 60, false)
	written := storedCodes(t, writer)
	downgradeCodes(t, writer)

	restore := pgindex.SkipCodeBackfill()
	migrated := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: -1})
	partly := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: 40 << 10})
	restore()
	want := map[string]string{}
	for path := range written {
		want[path] = "NULL"
	}
	if diff := cmp.Diff(want, storedCodes(t, migrated)); diff != "" {
		t.Errorf("codes after migration 7 (-want +got):\n%s", diff)
	}
	got := map[string]indexdriver.Index{"no cache": migrated, "partly cached": partly}
	compareSemantic(t, "before the backfill", mem, got, model, queries)

	backfilling := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: 40 << 10})
	backfilling.WaitBackfill()
	if diff := cmp.Diff(written, storedCodes(t, backfilling)); diff != "" {
		t.Errorf("codes after the backfill differ from the codes ReplaceFile writes (-written +backfilled):\n%s", diff)
	}
	if n, err := backfilling.BackfillCodes(ctx); n != 0 || err != nil {
		t.Errorf("BackfillCodes after the backfill = %d, %v; want 0, nil", n, err)
	}
	for _, ix := range []*pgindex.Index{migrated, partly} {
		if _, err := ix.Pool().Exec(ctx, "UPDATE mcp_search_projects SET generation = generation + 1"); err != nil {
			t.Fatal(err) // the cached snapshots reload, now from the codes
		}
	}
	got["backfilling"] = backfilling
	compareSemantic(t, "after the backfill", mem, got, model, queries)
}

// TestCodesMigrationSmallVectors: migration 7 gives vectors of fewer than 512 dimensions,
// which are never quantised, empty codes, as ReplaceFile does, so the backfill has nothing to do.
func TestCodesMigrationSmallVectors(t *testing.T) {
	ctx := context.Background()
	url := pgtest.New(t)
	writer := pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	v := make([]float32, 64)
	v[3] = 1
	if err := writer.ReplaceFile(ctx, testScope, vectorFile("/h.md", time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), "hash-64", v)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/h.md": ""}
	if diff := cmp.Diff(want, storedCodes(t, writer)); diff != "" {
		t.Errorf("codes ReplaceFile wrote (-want +got):\n%s", diff)
	}
	downgradeCodes(t, writer)
	defer pgindex.SkipCodeBackfill()()
	migrated := pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	if diff := cmp.Diff(want, storedCodes(t, migrated)); diff != "" {
		t.Errorf("codes after migration 7 (-want +got):\n%s", diff)
	}
}

// downgradeCodes puts ix's database back where schema version 6 left it: no codes column,
// migration 7 not applied.
func downgradeCodes(t *testing.T, ix *pgindex.Index) {
	t.Helper()
	if _, err := ix.Pool().Exec(context.Background(), `ALTER TABLE mcp_search_vectors DROP COLUMN codes;
DELETE FROM mcp_search_schema_migrations WHERE version = 7`); err != nil {
		t.Fatal(err)
	}
}

// storedCodes returns every vector row's codes by path, hex-encoded, "NULL" for none.
func storedCodes(t *testing.T, ix *pgindex.Index) map[string]string {
	t.Helper()
	rows, err := ix.Pool().Query(context.Background(), "SELECT file_path, coalesce(encode(codes, 'hex'), 'NULL') FROM mcp_search_vectors")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var path, codes string
	if _, err := pgx.ForEachRow(rows, []any{&path, &codes}, func() error { out[path] = codes; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSemanticFirstQueriesConcurrent: queries that reach a new Index at once (after a start)
// all answer as memindex does, whether they collect the cache or wait for the one that does.
func TestSemanticFirstQueriesConcurrent(t *testing.T) {
	const model = "dense-test"
	ctx := context.Background()
	writer, url := newIndex(t, pgindex.Options{})
	mem := memindex.New()
	queries := codesCorpus(t, mem, writer, model, 80, false)
	for name, cache := range map[string]int64{"whole project cached": 0, "a third cached": 200 << 10} {
		t.Run(name, func(t *testing.T) {
			ix := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: cache})
			var qs []indexdriver.SemanticQuery
			for _, name := range slices.Sorted(maps.Keys(queries)) {
				qs = append(qs, indexdriver.SemanticQuery{Vector: queries[name], Model: model, TopK: 10})
			}
			got := make([][]indexdriver.Candidate, len(qs))
			errs := make([]error, len(qs))
			var wg sync.WaitGroup
			for i, q := range qs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i], errs[i] = ix.Semantic(ctx, testScope, q)
				}()
			}
			wg.Wait()
			for i, q := range qs {
				want, err := mem.Semantic(ctx, testScope, q)
				if err != nil || errs[i] != nil {
					t.Fatal(err, errs[i])
				}
				if diff := cmp.Diff(want, got[i], cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("query %d (-memindex +pgindex):\n%s", i, diff)
				}
			}
		})
	}
}
