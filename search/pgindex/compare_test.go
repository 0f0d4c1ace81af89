package pgindex_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var testScope = driver.Scope{Tenant: strings.Repeat("ab", 32), Project: "compare"}

// sameLexical runs lq on mem and pg, fails t (naming the case what) unless they answer alike,
// and returns both answers.
func sameLexical(t *testing.T, mem, pg indexdriver.Index, lq indexdriver.LexicalQuery, what string) (want, got indexdriver.LexicalResult) {
	t.Helper()
	want, err := mem.Lexical(context.Background(), testScope, lq)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = pg.Lexical(context.Background(), testScope, lq); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s (-memindex +pgindex):\n%s", what, diff)
	}
	return want, got
}

// indexedFile cuts content the way the Indexer does; emb nil means lexical-only.
func indexedFile(path string, version time.Time, content string, chunker search.Chunker, emb *search.HashingEmbedder) indexdriver.IndexedFile {
	chunks := chunker.Split(content)
	f := indexdriver.IndexedFile{Path: path, FileUpdatedAt: version, Tokenizer: indexdriver.TokenizerName, Chunks: make([]indexdriver.IndexedChunk, len(chunks))}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		terms, n := indexdriver.TermCounts(c.Text)
		f.Chunks[i] = indexdriver.IndexedChunk{Chunk: c, Terms: terms, ChunkTerms: n}
		texts[i] = c.Text
	}
	if emb != nil && len(chunks) > 0 {
		vecs, _ := emb.Embed(context.Background(), texts)
		for i := range f.Chunks {
			f.Chunks[i].Vector = vecs[i]
		}
		f.EmbeddingModel = emb.Model()
	}
	return f
}

var words = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
	mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu
	retry retries retried backoff jitter scheduler schedule scheduling worker workers token tokens
	café résumé naïve 検索 索引 文書 the of and`)

// corpusFile is a deterministic pseudo-random document of n words in paragraphs.
func corpusFile(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i > 0 && i%40 == 0:
			b.WriteString("\n\n")
		case i > 0:
			b.WriteByte(' ')
		}
		// Zipf-like: low indexes are far more frequent.
		w := words[int(math.Pow(r.Float64(), 2.5)*float64(len(words)))]
		b.WriteString(w)
	}
	return b.String()
}

// loadBoth indexes the same files into a memindex and the given pgindex.
func loadBoth(t testing.TB, pg *pgindex.Index, files, wordsPerFile int, emb *search.HashingEmbedder) *memindex.Index {
	t.Helper()
	mem := memindex.New()
	r := rand.New(rand.NewPCG(7, 11))
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 300, OverlapBytes: 40})
	base := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC) // sub-microsecond part on purpose
	ctx := context.Background()
	for i := range files {
		f := indexedFile(fmt.Sprintf("/d%d/f_%03d.md", i%5, i), base.Add(time.Duration(i)*time.Nanosecond), corpusFile(r, wordsPerFile), chunker, emb)
		if err := mem.ReplaceFile(ctx, testScope, f); err != nil {
			t.Fatal(err)
		}
		if err := pg.ReplaceFile(ctx, testScope, f); err != nil {
			t.Fatal(err)
		}
	}
	return mem
}

// TestScoresMatchMemindex indexes one corpus into memindex and pgindex and compares every
// lexical candidate (bit-identical score, same order, same df and statistics) and every
// semantic candidate, with and without path filters.
func TestScoresMatchMemindex(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	emb := search.NewHashingEmbedder(32)
	mem := loadBoth(t, pg, 60, 150, emb)
	ctx := context.Background()
	queries := []string{"alpha", "retry backoff", "zulu yankee xray", "scheduling workers tokens", "café 検索", "bravo charlie delta echo", "the", "nonexistentword"}
	filters := []struct {
		prefix  string
		exclude map[string]bool
	}{
		{"", nil},
		{"/d1/", nil},
		{"/d", map[string]bool{"/d2/f_002.md": true, "/d3/f_008.md": true}},
		{"/nothing", nil},
	}
	for _, bm := range []indexdriver.BM25{indexdriver.DefaultBM25(), {K1: 1.5, B: 0.6}} {
		for _, q := range queries {
			for _, fl := range filters {
				for _, k := range []int{0, 1, 5, 30, 10000} {
					lq := indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(q), BM25: bm, PathPrefix: fl.prefix, ExcludePaths: fl.exclude, TopK: k}
					want, got := sameLexical(t, mem, pg, lq, fmt.Sprintf("lexical %q %+v k=%d", q, fl, k))
					for i := range min(len(want.Candidates), len(got.Candidates)) {
						w, g := want.Candidates[i].Score, got.Candidates[i].Score
						if math.Abs(w-g) > 1e-9*math.Abs(w) {
							t.Errorf("lexical %q: candidate %d score %v, memindex %v (relative difference above 1e-9)", q, i, g, w)
						}
					}
				}
			}
			qv, _ := emb.Embed(ctx, []string{q})
			for _, fl := range filters {
				sq := indexdriver.SemanticQuery{Vector: qv[0], Model: emb.Model(), PathPrefix: fl.prefix, ExcludePaths: fl.exclude, TopK: 30}
				want, _ := mem.Semantic(ctx, testScope, sq)
				got, err := pg.Semantic(ctx, testScope, sq)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("semantic %q %+v (-memindex +pgindex):\n%s", q, fl, diff)
				}
			}
		}
	}
	// Another model, or another dimension, finds nothing.
	for _, sq := range []indexdriver.SemanticQuery{
		{Vector: make([]float32, 32), Model: "other-model", TopK: 5},
		{Vector: make([]float32, 16), Model: emb.Model(), TopK: 5},
	} {
		if got, err := pg.Semantic(ctx, testScope, sq); err != nil || len(got) != 0 {
			t.Errorf("semantic %s/%d: %v %+v, want none", sq.Model, len(sq.Vector), err, got)
		}
	}
}

// TestLexicalTiesMatchMemindex: many chunks with exactly the same score (identical texts)
// must be cut at K by path, then chunk index, as memindex does, also when the ties far
// outnumber K and when path filters remove some of them.
func TestLexicalTiesMatchMemindex(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	mem := memindex.New()
	ctx := context.Background()
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 24, OverlapBytes: -1})
	version := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	// Written in an order unrelated to path order, so chunk ids do not follow paths.
	for i := range 120 {
		n := (i * 37) % 120
		content := "alpha bravo charlie.\n\nalpha bravo charlie.\n\ndelta echo"
		if n%7 == 0 {
			content = "alpha alpha bravo.\n\n" + content
		}
		f := indexedFile(fmt.Sprintf("/t%d/f%03d.md", n%3, n), version, content, chunker, nil)
		for _, ix := range []indexdriver.Index{mem, pg} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{"alpha", "bravo charlie", "echo alpha"} {
		for _, prefix := range []string{"", "/t1/"} {
			for _, k := range []int{1, 5, 30, 200} {
				lq := indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(q), BM25: indexdriver.DefaultBM25(), PathPrefix: prefix,
					ExcludePaths: map[string]bool{"/t0/f000.md": true, "/t1/f001.md": true}, TopK: k}
				sameLexical(t, mem, pg, lq, fmt.Sprintf("%q prefix %q k=%d", q, prefix, k))
			}
		}
	}
}

// TestPathPrefixEscaping: LIKE metacharacters in a prefix match only themselves.
func TestPathPrefixEscaping(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	paths := []string{"/a_b/x.md", "/aXb/x.md", "/100%/x.md", "/1000/x.md", `/back\slash/x.md`, "/backXslash/x.md"}
	version := time.Now()
	for _, p := range paths {
		f := indexedFile(p, version, "shared words in every file", search.Chunker{}, nil)
		if err := pg.ReplaceFile(ctx, testScope, f); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"/a_b", []string{"/a_b/x.md"}},
		{"/100%", []string{"/100%/x.md"}},
		{`/back\`, []string{`/back\slash/x.md`}},
		{"/", paths},
	}
	for _, tc := range tests {
		states, err := pg.FileStates(ctx, testScope, tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		lex, err := pg.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms("shared words"), BM25: indexdriver.DefaultBM25(), PathPrefix: tc.prefix, TopK: 100})
		if err != nil {
			t.Fatal(err)
		}
		gotStates, gotLex := map[string]bool{}, map[string]bool{}
		for p := range states {
			gotStates[p] = true
		}
		for _, c := range lex.Candidates {
			gotLex[c.Path] = true
		}
		want := map[string]bool{}
		for _, p := range tc.want {
			want[p] = true
		}
		if diff := cmp.Diff(want, gotStates); diff != "" {
			t.Errorf("FileStates(%q) (-want +got):\n%s", tc.prefix, diff)
		}
		if diff := cmp.Diff(want, gotLex); diff != "" {
			t.Errorf("Lexical prefix %q (-want +got):\n%s", tc.prefix, diff)
		}
	}
}

// TestVersionsOnlyMoveForward: an older version never replaces a newer one, DeleteFile spares a
// newer version, and versions keep their nanoseconds.
func TestVersionsOnlyMoveForward(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	v1 := time.Date(2026, 5, 6, 7, 8, 9, 100000001, time.UTC)
	v2 := v1.Add(time.Nanosecond) // same microsecond
	if err := pg.ReplaceFile(ctx, testScope, indexedFile("/f.md", v2, "second version", search.Chunker{}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := pg.ReplaceFile(ctx, testScope, indexedFile("/f.md", v1, "first version", search.Chunker{}, nil)); err != nil {
		t.Fatal(err)
	}
	chunks, _ := pg.Chunks(ctx, testScope, "/f.md")
	if len(chunks) != 1 || chunks[0].EndByte != int64(len("second version")) || !chunks[0].FileUpdatedAt.Equal(v2) {
		t.Fatalf("after replacing with an older version: %+v", chunks)
	}
	if err := pg.DeleteFile(ctx, testScope, "/f.md", v1); err != nil {
		t.Fatal(err)
	}
	if st, _ := pg.FileStates(ctx, testScope, ""); !st["/f.md"].FileUpdatedAt.Equal(v2) {
		t.Fatalf("DeleteFile up to an older version removed the newer one: %+v", st)
	}
	if err := pg.DeleteFile(ctx, testScope, "/f.md", v2); err != nil {
		t.Fatal(err)
	}
	if st, _ := pg.FileStates(ctx, testScope, ""); len(st) != 0 {
		t.Fatalf("DeleteFile up to the indexed version left %+v", st)
	}
	lex, _ := pg.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: []string{"version"}, BM25: indexdriver.DefaultBM25(), TopK: 5})
	if lex.Stats != (indexdriver.CorpusStats{}) || lex.DocFreq[0] != 0 {
		t.Errorf("statistics after deleting everything: %+v df %v", lex.Stats, lex.DocFreq)
	}
}

// TestInvalidVectors: mixed vector sizes, or vectors on a lexical-only file, are rejected and
// nothing is written.
func TestInvalidVectors(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	f := indexedFile("/v.md", time.Now(), "one\n\ntwo", search.NewChunker(search.ChunkerOptions{TargetBytes: 16}), search.NewHashingEmbedder(8))
	f.Chunks = append(f.Chunks, indexdriver.IndexedChunk{Chunk: indexdriver.Chunk{Text: "x"}, Vector: make([]float32, 4)})
	g := indexedFile("/w.md", time.Now(), "lexical only", search.Chunker{}, nil)
	g.Chunks[0].Vector = []float32{1}
	for _, bad := range []indexdriver.IndexedFile{f, g} {
		if err := pg.ReplaceFile(ctx, testScope, bad); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", bad.Path, err)
		}
	}
	if st, _ := pg.FileStates(ctx, testScope, ""); len(st) != 0 {
		t.Errorf("rejected files were written: %+v", st)
	}
}

// TestVectorCacheAcrossInstances: instance A answers semantic queries from its in-process
// cache; instance B (no cache) and a memindex receive the same changes; A sees every change made
// through B at its next query, and all three agree. A cache smaller than the project streams.
func TestVectorCacheAcrossInstances(t *testing.T) {
	a, url := newIndex(t, pgindex.Options{})
	emb := search.NewHashingEmbedder(16)
	mem := loadBoth(t, a, 20, 80, emb)
	ctx := context.Background()
	b := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: -1})
	tiny := pgtest.Open(t, url, pgindex.Open, pgindex.Options{VectorCacheBytes: 1024})
	check := func(stage string) {
		t.Helper()
		for _, q := range []string{"alpha bravo", "retry backoff jitter", "café"} {
			for _, prefix := range []string{"", "/d1/"} {
				qv, _ := emb.Embed(ctx, []string{q})
				sq := indexdriver.SemanticQuery{Vector: qv[0], Model: emb.Model(), PathPrefix: prefix, ExcludePaths: map[string]bool{"/d2/f_007.md": true}, TopK: 10}
				want, _ := mem.Semantic(ctx, testScope, sq)
				for name, ix := range map[string]*pgindex.Index{"cached": a, "uncached": b, "tiny-cache": tiny} {
					got, err := ix.Semantic(ctx, testScope, sq)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("%s, %s, %q prefix %q (-memindex +pgindex):\n%s", stage, name, q, prefix, diff)
					}
				}
			}
		}
	}
	check("initial")
	check("warm")
	r := rand.New(rand.NewPCG(99, 1))
	later := time.Now()
	chunker := search.NewChunker(search.ChunkerOptions{TargetBytes: 300, OverlapBytes: 40})
	for i, p := range []string{"/d0/f_000.md", "/d1/f_001.md", "/d1/f_011.md", "/d4/new.md"} {
		f := indexedFile(p, later.Add(time.Duration(i)), corpusFile(r, 120), chunker, emb)
		for _, ix := range []indexdriver.Index{b, mem} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after replacements through another instance")
	for _, ix := range []indexdriver.Index{b, mem} {
		if err := ix.DeleteFile(ctx, testScope, "/d1/f_006.md", later.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	check("after a deletion through another instance")
}

// TestFileStateListAcrossInstances: instance A answers FileStateList from its in-process cache
// while instance B (no cache) and a memindex receive every change; A sees each change made
// through B at its next call, and A, B, a tiny-cache instance and memindex agree for prefixes
// that need bytewise order and LIKE escaping. A list already returned never changes.
func TestFileStateListAcrossInstances(t *testing.T) {
	a, url := newIndex(t, pgindex.Options{})
	ctx := context.Background()
	b := pgtest.Open(t, url, pgindex.Open, pgindex.Options{ProjectCacheBytes: -1})
	tiny := pgtest.Open(t, url, pgindex.Open, pgindex.Options{ProjectCacheBytes: 100})
	mem := memindex.New()
	base := time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC)
	put := func(path string, v int, content string) {
		t.Helper()
		f := indexedFile(path, base.Add(time.Duration(v)), content, search.Chunker{}, nil)
		for _, ix := range []indexdriver.Index{b, mem} {
			if err := ix.ReplaceFile(ctx, testScope, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	del := func(path string) {
		t.Helper()
		for _, ix := range []indexdriver.Index{b, mem} {
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
	kept := append([]indexdriver.PathFileState(nil), before...)
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
