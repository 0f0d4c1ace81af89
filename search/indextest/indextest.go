package indextest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/provider"
	"github.com/google/go-cmp/cmp"
)

// Exercise runs the acceptance suite that every indexdriver.Index must pass. newIndex returns a
// fresh, empty index for each subtest. The suite drives the index the way production does:
// through fileio.Service over memstore, the Indexer consuming the outbox, and the Searcher.
//
// The contract includes that an index keeps no copy of the text (see indexdriver.Index): the chunks
// it returns have an empty Text, and their offsets and content hash name the file's bytes, from
// which the Searcher fills every hit's Content.
func Exercise(t *testing.T, newIndex func(t *testing.T) indexdriver.Index) {
	tests := []struct {
		name string
		fn   func(t *testing.T, idx indexdriver.Index)
	}{
		{"OffsetsRoundTrip", testOffsetsRoundTrip},
		{"DeletedNeverReturned", testDeletedNeverReturned},
		{"FoundBeforeIndexing", testFoundBeforeIndexing},
		{"StaleVersionNotServed", testStaleVersionNotServed},
		{"TenantIsolation", testTenantIsolation},
		{"PathPrefix", testPathPrefix},
		{"LimitClamping", testLimitClamping},
		{"LastServedAtOnlyReturned", testLastServedAt},
		{"RerankAndFallback", testRerankAndFallback},
		{"EmbedderFailureKeepsLexical", testEmbedderFailure},
		{"CallerCredential", testCallerCredential},
		{"MissingCredentialRetriesThenDegrades", testMissingCredential},
		{"BM25MatchesReference", testBM25Reference},
		{"Idempotent", testIdempotent},
		{"InvalidQuery", testInvalidQuery},
		{"Concurrent", testConcurrent},
		{"ExactUnionScores", testExactUnionScores},
		{"WeightedLexical", testWeightedLexical},
		{"SameRankingAsMemindex", testSameRankingAsMemindex},
		{"MinSemanticScore", testMinSemanticScore},
		{"SyncReanalyses", testSyncReanalyses},
		{"NULContent", testNULContent},
		{"FileStatesPrefix", testFileStatesPrefix},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newIndex(t)) })
	}
}

const keyA, keyB = "sk-tenant-a-0000000000000000", "sk-tenant-b-1111111111111111"

// corpus is a small project with multi-chunk and multi-byte files.
var corpus = map[string]string{
	"/docs/retry.md":      "# Retries\n\nThe client retries failed requests with exponential backoff.\nEach attempt doubles the delay, capped at thirty seconds.\n\nJitter spreads retries so that clients do not stampede.",
	"/docs/auth.md":       "# Authentication\n\nEvery request carries a bearer token. Tokens are hashed with SHA-256 before storage.\nRotating a token revokes the old one.",
	"/doc.md":             "Top-level document about backoff strategies and circuit breakers.",
	"/notes/japanese.txt": "検索エンジンは文書を索引します。 The search engine indexes documents — naïve café résumé backoff.",
	"/src/scheduler.go":   strings.Repeat("// The scheduler assigns jobs to workers and retries them with backoff.\nfunc schedule() {}\n\n", 40),
}

func writeCorpus(t *testing.T, e *Env, ctx context.Context, project string) {
	for p, c := range corpus {
		e.Write(ctx, project, p, c)
	}
}

func smallChunker() search.Chunker {
	return search.NewChunker(search.ChunkerOptions{TargetBytes: 160, OverlapBytes: 30})
}

func checkRoundTrip(t *testing.T, e *Env, ctx context.Context, project string, hits []search.Hit) {
	t.Helper()
	for _, h := range hits {
		r, err := e.Service.Read(ctx, fileio.ReadRequest{Project: project, Path: h.Path, OffsetBytes: h.StartByte, LengthBytes: new(int64(h.EndByte - h.StartByte))})
		if err != nil {
			t.Fatalf("read %s [%d,%d): %v", h.Path, h.StartByte, h.EndByte, err)
		}
		if r.Content != h.Content {
			t.Errorf("%s [%d,%d): file_read gives %q, hit has %q", h.Path, h.StartByte, h.EndByte, r.Content, h.Content)
		}
	}
}

func paths(hits []search.Hit) map[string]bool {
	m := make(map[string]bool)
	for _, h := range hits {
		m[h.Path] = true
	}
	return m
}

func testOffsetsRoundTrip(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	for _, q := range []string{"backoff", "token storage", "検索", "café résumé", "scheduler workers"} {
		res := e.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20})
		if len(res.Hits) == 0 {
			t.Errorf("query %q: no hits", q)
		}
		for _, h := range res.Hits {
			if h.Source != search.SourceIndex {
				t.Errorf("query %q: hit from %s after draining", q, h.Source)
			}
		}
		checkRoundTrip(t, e, ctx, "p", res.Hits)
	}
	// Every stored chunk round-trips, and the scheduler file has many chunks.
	for p := range corpus {
		chunks, err := idx.Chunks(context.Background(), Scope(keyA, "p"), p)
		if err != nil || len(chunks) == 0 {
			t.Fatalf("chunks of %s: %v (%d)", p, err, len(chunks))
		}
		hits := make([]search.Hit, len(chunks))
		for i, c := range chunks {
			if c.Index != i || c.Tokenizer != indexdriver.TokenizerName {
				t.Errorf("%s chunk %d: index %d tokenizer %q", p, i, c.Index, c.Tokenizer)
			}
			hits[i] = storedHit(t, p, corpus[p], c)
		}
		checkRoundTrip(t, e, ctx, "p", hits)
	}
}

// storedHit checks that c, a chunk read back with Index.Chunks, holds offsets into content and
// the hash of those bytes but no copy of them, and returns it as the hit a search would make of
// it.
func storedHit(t *testing.T, path, content string, c indexdriver.StoredChunk) search.Hit {
	t.Helper()
	if c.Text != "" {
		t.Errorf("%s chunk %d: the index returned its text; indexes keep offsets only", path, c.Index)
	}
	if c.StartByte < 0 || c.StartByte > c.EndByte || c.EndByte > int64(len(content)) {
		t.Fatalf("%s chunk %d: offsets [%d,%d) outside the %d-byte file", path, c.Index, c.StartByte, c.EndByte, len(content))
	}
	text := content[c.StartByte:c.EndByte]
	if want := fmt.Sprintf("%x", sha256.Sum256([]byte(text))); c.ContentHash != want {
		t.Errorf("%s chunk %d: content hash %s, want the hash of bytes [%d,%d)", path, c.Index, c.ContentHash, c.StartByte, c.EndByte)
	}
	return search.Hit{Path: path, StartByte: c.StartByte, EndByte: c.EndByte, Content: text}
}

func testDeletedNeverReturned(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	if !paths(e.Search(ctx, search.Query{Project: "p", Query: "bearer token", Limit: 20}).Hits)["/docs/auth.md"] {
		t.Fatal("auth.md not found before deletion")
	}
	// Deleted, indexer not run yet: the chunks are still in the index but must not be served.
	e.Delete(ctx, "p", "/docs/auth.md")
	for _, q := range []string{"bearer token", "SHA-256 hashed tokens", "authentication"} {
		if h := paths(e.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20}).Hits); h["/docs/auth.md"] {
			t.Errorf("query %q returned a deleted file before the indexer ran", q)
		}
	}
	if st, _ := idx.FileStates(context.Background(), Scope(keyA, "p"), "/docs/auth.md"); len(st) == 0 {
		t.Fatal("precondition: the index should still hold the deleted file until the indexer runs")
	}
	e.Drain()
	if st, _ := idx.FileStates(context.Background(), Scope(keyA, "p"), "/docs/auth.md"); len(st) != 0 {
		t.Errorf("index still holds the deleted file after draining: %v", st)
	}
	// Written and deleted before any indexing.
	e.Write(ctx, "p", "/tmp/flash.txt", "ephemeral zeppelin content")
	e.Delete(ctx, "p", "/tmp/flash.txt")
	if paths(e.Search(ctx, search.Query{Project: "p", Query: "zeppelin", Limit: 20}).Hits)["/tmp/flash.txt"] {
		t.Error("deleted never-indexed file returned")
	}
	e.Drain()
	if paths(e.Search(ctx, search.Query{Project: "p", Query: "zeppelin", Limit: 20}).Hits)["/tmp/flash.txt"] {
		t.Error("deleted file returned after draining")
	}
}

func testFoundBeforeIndexing(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	e.Write(ctx, "p", "/new/fresh.md", "A brand new note about quasar telemetry pipelines.\n\nNothing else.")
	res := e.Search(ctx, search.Query{Project: "p", Query: "quasar telemetry"})
	var fresh []search.Hit
	for _, h := range res.Hits {
		if h.Path == "/new/fresh.md" {
			fresh = append(fresh, h)
		}
	}
	if len(fresh) == 0 || fresh[0].Source != search.SourceScan || !fresh[0].HasLexical {
		t.Fatalf("unindexed file not found by scan: %+v", res)
	}
	if res.PendingFiles != 1 || res.PendingScanned != 1 {
		t.Errorf("pending %d scanned %d, want 1 and 1", res.PendingFiles, res.PendingScanned)
	}
	checkRoundTrip(t, e, ctx, "p", res.Hits)
	e.Drain()
	res = e.Search(ctx, search.Query{Project: "p", Query: "quasar telemetry"})
	if len(res.Hits) == 0 || res.Hits[0].Path != "/new/fresh.md" || res.Hits[0].Source != search.SourceIndex || res.PendingFiles != 0 {
		t.Fatalf("after indexing: %+v", res)
	}
}

func testStaleVersionNotServed(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	e.Write(ctx, "p", "/a.md", "alpha bravo charlie\n\nzulu words at the end of version one")
	e.Drain()
	// New version shifts every offset; the indexer has not seen it yet.
	e.Write(ctx, "p", "/a.md", "prefix text that moves all offsets forward by a lot\n\nalpha bravo charlie\n\nzulu words again")
	res := e.Search(ctx, search.Query{Project: "p", Query: "zulu words", Limit: 20})
	if len(res.Hits) == 0 {
		t.Fatal("updated file not found")
	}
	for _, h := range res.Hits {
		if h.Source != search.SourceScan {
			t.Errorf("hit from the stale indexed version: %+v", h)
		}
	}
	checkRoundTrip(t, e, ctx, "p", res.Hits)
}

func testTenantIsolation(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	a, b := Ctx(keyA), Ctx(keyB)
	writeCorpus(t, e, a, "shared")
	e.Write(b, "shared", "/b-only.md", "tenant b writes about backoff too")
	for _, drained := range []bool{false, true} {
		if drained {
			e.Drain()
		}
		for _, h := range e.Search(b, search.Query{Project: "shared", Query: "backoff", Limit: 20}).Hits {
			if h.Path != "/b-only.md" {
				t.Errorf("drained=%v: tenant B sees tenant A's %s", drained, h.Path)
			}
		}
		for _, h := range e.Search(a, search.Query{Project: "shared", Query: "tenant writes", Limit: 20}).Hits {
			if h.Path == "/b-only.md" {
				t.Errorf("drained=%v: tenant A sees tenant B's file", drained)
			}
		}
	}
	lex, err := idx.Lexical(context.Background(), Scope(keyB, "shared"), indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms("bearer token"), BM25: indexdriver.DefaultBM25(), TopK: 10})
	if err != nil || len(lex.Candidates) != 0 {
		t.Errorf("index returned tenant A's chunks for tenant B: %v %+v", err, lex.Candidates)
	}
	if _, err := e.Searcher.Search(context.Background(), search.Query{Project: "shared", Query: "x"}); !errors.Is(err, agentfiles.ErrPermissionDenied) {
		t.Errorf("search without AuthContext: %v, want PERMISSION_DENIED", err)
	}
}

func testPathPrefix(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	tests := []struct {
		prefix string
		want   map[string]bool
	}{
		{"/doc", map[string]bool{"/docs/retry.md": true, "/doc.md": true}}, // string prefix, not directory
		{"/docs/", map[string]bool{"/docs/retry.md": true}},
		{"/src", map[string]bool{"/src/scheduler.go": true}},
		{"/nothing", map[string]bool{}},
	}
	for _, tc := range tests {
		got := paths(e.Search(ctx, search.Query{Project: "p", Query: "backoff", PathPrefix: tc.prefix, Limit: 20}).Hits)
		for p := range got {
			if !strings.HasPrefix(p, tc.prefix) {
				t.Errorf("prefix %q returned %s", tc.prefix, p)
			}
		}
		for p := range tc.want {
			if !got[p] {
				t.Errorf("prefix %q: missing %s (got %v)", tc.prefix, p, got)
			}
		}
	}
}

func testLimitClamping(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	for i := range 30 {
		e.Write(ctx, "p", fmt.Sprintf("/f%02d.txt", i), fmt.Sprintf("widget number %d is a widget", i))
	}
	e.Drain()
	tests := []struct {
		limit, want int
		clamped     bool
	}{{0, 5, false}, {3, 3, false}, {20, 20, false}, {100, 20, true}, {-4, 5, false}}
	for _, tc := range tests {
		res := e.Search(ctx, search.Query{Project: "p", Query: "widget", Limit: tc.limit})
		if len(res.Hits) != tc.want || res.Limit != tc.want || res.LimitClamped != tc.clamped || !res.Truncated {
			t.Errorf("limit %d: %d hits, Limit %d, clamped %v, truncated %v; want %d, clamped %v, truncated",
				tc.limit, len(res.Hits), res.Limit, res.LimitClamped, res.Truncated, tc.want, tc.clamped)
		}
		for i := 1; i < len(res.Hits); i++ {
			if res.Hits[i].Score > res.Hits[i-1].Score {
				t.Errorf("limit %d: hits not ordered by score", tc.limit)
			}
		}
	}
}

func testLastServedAt(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	before := time.Now()
	res := e.Search(ctx, search.Query{Project: "p", Query: "backoff retries", Limit: 2})
	if len(res.Hits) != 2 || res.Candidates <= 2 {
		t.Fatalf("want 2 hits out of more candidates, got %d of %d", len(res.Hits), res.Candidates)
	}
	returned := make(map[string]bool)
	for _, h := range res.Hits {
		returned[fmt.Sprintf("%s@%d", h.Path, h.StartByte)] = true
	}
	served := 0
	for p := range corpus {
		chunks, _ := idx.Chunks(context.Background(), Scope(keyA, "p"), p)
		for _, c := range chunks {
			key := fmt.Sprintf("%s@%d", p, c.StartByte)
			switch {
			case returned[key] && c.LastServedAt.Before(before):
				t.Errorf("returned chunk %s has last_served_at %v", key, c.LastServedAt)
			case !returned[key] && !c.LastServedAt.IsZero():
				t.Errorf("chunk %s was not returned but has last_served_at %v", key, c.LastServedAt)
			case returned[key]:
				served++
			}
		}
	}
	if served != 2 {
		t.Errorf("%d chunks marked served, want 2", served)
	}
}

func testRerankAndFallback(t *testing.T, idx indexdriver.Index) {
	srv := NewRerankServer(t)
	rr, err := provider.NewCohereReranker(srv.Endpoint(), provider.CohereRerankerOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEnv(t, idx, EnvOptions{Reranker: rr, RerankTimeout: 200 * time.Millisecond, Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	q := search.Query{Project: "p", Query: "exponential backoff jitter", Limit: 5}
	res := e.Search(ctx, q)
	if res.Ranking != search.RankingRerank || res.RerankError != "" || len(res.Hits) == 0 {
		t.Fatalf("rerank path: %+v", res)
	}
	if got := srv.Keys(); len(got) == 0 || got[len(got)-1] != keyA {
		t.Errorf("reranker did not get the caller's key")
	}
	// The reranker reads every candidate's text, which the Searcher read from the files (the
	// index keeps none): each returned hit's content is one of the documents, none is empty.
	docs := map[string]bool{}
	for _, d := range srv.LastDocuments() {
		if d == "" {
			t.Errorf("the reranker got an empty document: chunk text was not read from the file")
		}
		docs[d] = true
	}
	for _, h := range res.Hits {
		if !docs[h.Content] {
			t.Errorf("hit %s [%d,%d) was not among the reranked documents", h.Path, h.StartByte, h.EndByte)
		}
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("reranked hits out of order")
		}
	}
	// The fallback is exactly the fused ranking of a Searcher without a reranker.
	opts := e.Searcher.Options()
	opts.Reranker = nil
	fusedOnly, err := search.NewSearcher(e.Store, idx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{ModeError, ModeHang, ModeBadAuth} {
		srv.SetMode(mode)
		res := e.Search(ctx, q)
		fused, err := fusedOnly.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fused.Hits, res.Hits); diff != "" {
			t.Errorf("mode %d: fallback differs from the fused ranking (-fused +fallback):\n%s", mode, diff)
		}
		if res.Ranking != search.RankingFused || res.RerankError == "" || len(res.Hits) == 0 {
			t.Errorf("mode %d: want fused fallback with hits and a reason, got %+v", mode, res)
		}
		for _, h := range res.Hits {
			if h.Score != h.FusedScore || !(h.HasLexical || h.HasSemantic) {
				t.Errorf("mode %d: fallback hit without fused score components: %+v", mode, h)
			}
		}
		if mode == ModeError && !strings.Contains(res.RerankError, "model overloaded") {
			t.Errorf("rerank error does not carry the provider's message: %q", res.RerankError)
		}
		checkRoundTrip(t, e, ctx, "p", res.Hits)
	}
}

func testEmbedderFailure(t *testing.T, idx indexdriver.Index) {
	srv := NewEmbeddingServer(t, 32)
	emb, err := provider.NewOpenAIEmbedder(srv.Endpoint(), "test-embed", 32, provider.OpenAIEmbedderOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEnv(t, idx, EnvOptions{Embedder: emb})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	res := e.Search(ctx, search.Query{Project: "p", Query: "bearer token"})
	if res.SemanticError != "" || len(res.Hits) == 0 || !res.Hits[0].HasSemantic {
		t.Fatalf("healthy embedder: %+v", res)
	}
	srv.SetMode(ModeError)
	res = e.Search(ctx, search.Query{Project: "p", Query: "bearer token"})
	if res.SemanticError == "" || len(res.Hits) == 0 || res.Hits[0].Path != "/docs/auth.md" {
		t.Fatalf("failing embedder: want lexical hits and a semantic error, got %+v", res)
	}
	for _, h := range res.Hits {
		if h.HasSemantic {
			t.Errorf("semantic score present although the embedder failed: %+v", h)
		}
	}
}

func testCallerCredential(t *testing.T, idx indexdriver.Index) {
	srv := NewEmbeddingServer(t, 32)
	emb, _ := provider.NewOpenAIEmbedder(srv.Endpoint(), "test-embed", 32, provider.OpenAIEmbedderOptions{})
	e := NewEnv(t, idx, EnvOptions{Embedder: emb})
	ctx := Ctx(keyA)
	e.Write(ctx, "p", "/x.md", "credential handoff works end to end")
	e.Drain()
	st, _ := idx.FileStates(context.Background(), Scope(keyA, "p"), "/x.md")
	if st["/x.md"].EmbeddingModel != "test-embed" {
		t.Fatalf("file not embedded: %+v", st)
	}
	for _, k := range srv.Keys() {
		if k != keyA {
			t.Errorf("embedding call used key %q, want the caller's", k)
		}
	}
	if n := e.Indexer.Stats().Indexed; n != 1 {
		t.Errorf("indexed %d, want 1", n)
	}
	// The envelope was deleted after use.
	if _, err := e.Vault.Open(context.Background(), "00000000000000000000000000000000", Scope(keyA, "p"), "/x.md"); err == nil {
		t.Error("opening an unknown reference succeeded")
	}
}

func testMissingCredential(t *testing.T, idx indexdriver.Index) {
	srv := NewEmbeddingServer(t, 32)
	emb, _ := provider.NewOpenAIEmbedder(srv.Endpoint(), "test-embed", 32, provider.OpenAIEmbedderOptions{})
	e := NewEnv(t, idx, EnvOptions{Embedder: emb, RetryMax: 3})
	ctx := Ctx(keyA)
	e.Write(ctx, "p", "/late.md", "the envelope expired before the worker ran")
	e.Clock.Advance(2 * time.Minute) // past the vault TTL
	// The first attempt indexes lexical-only at once (searchable) and schedules a retry.
	if _, err := e.Indexer.ProcessBatch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Indexer.Stats(), 0; st.Retried != 1 {
		t.Errorf("after one attempt: retried %d, want 1", st.Retried)
	}
	if n, _ := srv.Requests(); n != 0 {
		t.Errorf("embedding provider called %d times by the indexer without a credential", n)
	}
	res := e.Search(ctx, search.Query{Project: "p", Query: "envelope expired"}) // one query embedding
	if len(res.Hits) == 0 || res.Hits[0].Source != search.SourceIndex || res.Hits[0].HasSemantic {
		t.Errorf("lexical-only version not served while retrying: %+v", res)
	}
	e.Drain()
	st := e.Indexer.Stats()
	if st.Retried != 3 || st.Degraded != 1 {
		t.Errorf("retried %d degraded %d, want 3 and 1", st.Retried, st.Degraded)
	}
	fs, _ := idx.FileStates(context.Background(), Scope(keyA, "p"), "/late.md")
	if fs["/late.md"].EmbeddingModel != "" || fs["/late.md"].Chunks == 0 {
		t.Errorf("want a lexical-only indexed file, got %+v", fs)
	}
	if n, _ := srv.Requests(); n != 1 {
		t.Errorf("embedding provider called %d times, want only the one query embedding", n)
	}
}

func testBM25Reference(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{NoEmbed: true, Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	scope := Scope(keyA, "p")
	var all []indexdriver.StoredChunk
	for p := range corpus {
		c, _ := idx.Chunks(context.Background(), scope, p)
		all = append(all, c...)
	}
	stats := indexdriver.CorpusStats{Chunks: int64(len(all))}
	df := make(map[string]int64)
	for _, c := range all {
		stats.TotalTerms += int64(c.ChunkTerms)
		for term := range c.Terms {
			df[term]++
		}
	}
	bm := indexdriver.BM25{K1: 1.5, B: 0.6}
	for _, q := range []string{"backoff", "retries backoff jitter", "token", "scheduler workers jobs", "検索"} {
		terms := indexdriver.QueryTerms(q)
		res, err := idx.Lexical(context.Background(), scope, indexdriver.LexicalQuery{Terms: terms, BM25: bm, TopK: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats != stats {
			t.Errorf("stats %+v, reference %+v", res.Stats, stats)
		}
		want := make(map[string]float64)
		for _, c := range all {
			s, hit := 0.0, false
			for _, term := range terms {
				if tf := c.Terms[term]; tf > 0 {
					s += bm.TermScore(tf, c.ChunkTerms, df[term], stats)
					hit = true
				}
			}
			if hit {
				want[fmt.Sprintf("%s#%d", c.Path, c.Index)] = s
			}
		}
		if len(res.Candidates) != len(want) {
			t.Errorf("query %q: %d candidates, reference %d", q, len(res.Candidates), len(want))
		}
		for i, c := range res.Candidates {
			key := fmt.Sprintf("%s#%d", c.Path, c.Chunk.Index)
			if w, ok := want[key]; !ok || c.Score != w {
				t.Errorf("query %q: %s score %v, reference %v (bit-identical required)", q, key, c.Score, w)
			}
			if i > 0 && c.Score > res.Candidates[i-1].Score {
				t.Errorf("query %q: candidates not ordered", q)
			}
		}
		for i, term := range terms {
			if res.DocFreq[i] != df[term] {
				t.Errorf("df(%s) = %d, reference %d", term, res.DocFreq[i], df[term])
			}
		}
	}
	// Semantic scores are exact dot products.
	e2 := NewEnv(t, idx, EnvOptions{})
	e2.Write(ctx, "q", "/v.md", "vectors are compared by dot product")
	e2.Drain()
	emb := search.NewHashingEmbedder(64)
	qv, _ := emb.Embed(context.Background(), []string{"dot product of vectors"})
	cands, err := idx.Semantic(context.Background(), Scope(keyA, "q"), indexdriver.SemanticQuery{Vector: qv[0], Model: emb.Model(), TopK: 5})
	if err != nil || len(cands) != 1 {
		t.Fatalf("semantic: %v %+v", err, cands)
	}
	chunks, _ := idx.Chunks(context.Background(), Scope(keyA, "q"), "/v.md")
	if want := float64(indexdriver.Dot(chunks[0].Vector, qv[0])); math.Abs(cands[0].Score-want) > 1e-6 {
		t.Errorf("semantic score %v, dot product %v", cands[0].Score, want)
	}
}

func testIdempotent(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	e.Drain()
	scope := Scope(keyA, "p")
	before, _ := idx.Chunks(context.Background(), scope, "/src/scheduler.go")
	// Re-applying the same version directly and through a re-queued job changes nothing.
	doc := indexdriver.IndexedFile{Path: "/src/scheduler.go", FileUpdatedAt: before[0].FileUpdatedAt, Tokenizer: indexdriver.TokenizerName, EmbeddingModel: before[0].EmbeddingModel}
	for _, c := range before {
		doc.Chunks = append(doc.Chunks, c.IndexedChunk)
	}
	for range 2 {
		if err := idx.ReplaceFile(context.Background(), scope, doc); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := idx.Chunks(context.Background(), scope, "/src/scheduler.go")
	if len(after) != len(before) {
		t.Fatalf("%d chunks after re-index, %d before", len(after), len(before))
	}
	for i := range after {
		if after[i].ContentHash != before[i].ContentHash || after[i].StartByte != before[i].StartByte {
			t.Errorf("chunk %d changed", i)
		}
	}
	lex, _ := idx.Lexical(context.Background(), scope, indexdriver.LexicalQuery{Terms: []string{"schedul"}, BM25: indexdriver.DefaultBM25(), TopK: 1000})
	if lex.DocFreq[0] != int64(len(before)) || lex.Stats.Chunks == 0 {
		t.Errorf("df %d after re-indexing, want %d (postings duplicated?)", lex.DocFreq[0], len(before))
	}
	if err := idx.DeleteFile(context.Background(), scope, "/missing", time.Now()); err != nil {
		t.Errorf("deleting a missing file: %v", err)
	}
	// Versions never go backwards, and a delete older than the indexed version is ignored.
	older := doc
	older.FileUpdatedAt = doc.FileUpdatedAt.Add(-time.Second)
	older.Chunks = doc.Chunks[:1]
	if err := idx.ReplaceFile(context.Background(), scope, older); err != nil {
		t.Fatal(err)
	}
	if err := idx.DeleteFile(context.Background(), scope, doc.Path, older.FileUpdatedAt); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Chunks(context.Background(), scope, doc.Path); len(got) != len(before) {
		t.Errorf("an older version or an older delete replaced the file: %d chunks, want %d", len(got), len(before))
	}
	if err := idx.DeleteFile(context.Background(), scope, doc.Path, doc.FileUpdatedAt); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Chunks(context.Background(), scope, doc.Path); len(got) != 0 {
		t.Errorf("delete up to the indexed version left %d chunks", len(got))
	}
}

func testInvalidQuery(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{})
	ctx := Ctx(keyA)
	for _, q := range []string{"", "   ", "\n\t"} {
		if _, err := e.Searcher.Search(ctx, search.Query{Project: "p", Query: q}); !errors.Is(err, search.ErrInvalidQuery) {
			t.Errorf("query %q: %v, want INVALID_QUERY", q, err)
		}
	}
	// Only stop words: valid, simply nothing to match lexically.
	if _, err := e.Searcher.Search(ctx, search.Query{Project: "p", Query: "the of and"}); err != nil {
		t.Errorf("stop-word query: %v", err)
	}
}

func testConcurrent(t *testing.T, idx indexdriver.Index) {
	e := NewEnv(t, idx, EnvOptions{Chunker: smallChunker()})
	ctx := Ctx(keyA)
	writeCorpus(t, e, ctx, "p")
	runCtx, cancel := context.WithCancel(context.Background())
	e.Indexer.Start(runCtx)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				p := fmt.Sprintf("/w%d/f%d.md", w, i%4)
				e.Write(ctx, "p", p, fmt.Sprintf("writer %d version %d mentions backoff and gadget%d", w, i, i))
				if i%5 == 4 {
					e.Delete(ctx, "p", p)
				}
				res, err := e.Searcher.Search(ctx, search.Query{Project: "p", Query: "backoff gadget", Limit: 20})
				if err != nil {
					t.Error(err)
					return
				}
				// Only this writer's files are stable between the search and the read: a hit on
				// another writer's file is right as of the query, but that file may change before
				// the offsets are read back.
				own := fmt.Sprintf("/w%d/", w)
				var mine []search.Hit
				for _, h := range res.Hits {
					if strings.HasPrefix(h.Path, own) {
						mine = append(mine, h)
					}
				}
				checkRoundTrip(t, e, ctx, "p", mine)
			}
		}()
	}
	wg.Wait()
	WaitIdle(t, e.Store, 20*time.Second)
	stopCtx, stopCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer stopCancel()
	if err := e.Indexer.Stop(stopCtx); err != nil {
		t.Errorf("stop: %v", err)
	}
	cancel()
	// Index and store agree: every active file is indexed at its version, nothing else is.
	var active []driver.FileInfo
	_ = e.Store.View(context.Background(), Scope(keyA, "p"), func(tx driver.ReadTx) error {
		var err error
		active, err = tx.List(context.Background(), "", 0)
		return err
	})
	states, _ := idx.FileStates(context.Background(), Scope(keyA, "p"), "")
	if len(states) != len(active) {
		t.Errorf("%d files indexed, %d active", len(states), len(active))
	}
	for _, f := range active {
		if st, ok := states[f.Path]; !ok || !st.FileUpdatedAt.Equal(f.UpdatedAt) {
			t.Errorf("%s: indexed %+v, active version %v", f.Path, st, f.UpdatedAt)
		}
	}
	if fr := e.Indexer.Stats().Freshness; fr.Samples == 0 || fr.P95 <= 0 {
		t.Errorf("no freshness recorded: %+v", fr)
	}
}

// nulCorpus is valid UTF-8 with U+0000 in every position a file can have it: first and last
// byte, inside and between words, runs of it, next to U+0001 (which an index may use to escape
// it), and a file that is nothing else.
var nulCorpus = map[string]string{
	"/nul/start.txt":  "\x00nebula cartography begins with a NUL byte",
	"/nul/middle.txt": "nebula\x00cartography\x00\x00\x00between words; \x01\x00\x01 escapes \\x00 \\\x00 and more nebula",
	"/nul/end.txt":    strings.Repeat("a long line about nebula cartography and quasar maps. ", 12) + "\x00",
	"/nul/only.bin":   "\x00\x00\x00",
	"/nul/mixed.md":   "検索\x00エンジン nebula café\x00résumé \x00\x01\x02 quasar",
}

// testNULContent: any valid UTF-8 is indexed as it is, U+0000 included: every file is indexed
// at its current version (not left to the query-time scan), hits round-trip through file_read
// byte for byte, stored chunks keep their offsets and hashes, and rankings and scores equal memindex's.
func testNULContent(t *testing.T, idx indexdriver.Index) {
	e, ref := withMemindexReference(t, idx, search.NewHashingEmbedder(64), func(env *Env, ctx context.Context) {
		for p, c := range nulCorpus {
			env.Write(ctx, "p", p, c)
		}
	})
	ctx := Ctx(keyA)
	scope := Scope(keyA, "p")
	states, err := idx.FileStates(context.Background(), scope, "/nul/")
	if err != nil {
		t.Fatal(err)
	}
	for p := range nulCorpus {
		info, ok, err := statFile(ctx, e, scope, p)
		if err != nil || !ok {
			t.Fatalf("stat %s: %v %v", p, ok, err)
		}
		if st, ok := states[p]; !ok || !st.Current(info.UpdatedAt) {
			t.Errorf("%s is not indexed at its version (state %+v, indexed %v): U+0000 must not stop indexing", p, st, ok)
		}
		chunks, err := idx.Chunks(context.Background(), scope, p)
		if err != nil || len(chunks) == 0 {
			t.Fatalf("chunks of %s: %v (%d)", p, err, len(chunks))
		}
		hits := make([]search.Hit, len(chunks))
		for i, c := range chunks {
			hits[i] = storedHit(t, p, nulCorpus[p], c)
		}
		checkRoundTrip(t, e, ctx, "p", hits)
	}
	for _, q := range []string{"nebula cartography", "quasar", "検索", "café résumé", "escapes"} {
		g := e.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20})
		w := ref.Search(ctx, search.Query{Project: "p", Query: q, Limit: 20})
		if len(g.Hits) == 0 {
			t.Errorf("%q: no hits", q)
		}
		for _, h := range g.Hits {
			if h.Source != search.SourceIndex {
				t.Errorf("%q: %s served by the %s, want the index", q, h.Path, h.Source)
			}
		}
		checkRoundTrip(t, e, ctx, "p", g.Hits)
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("%q (-memindex +index under test):\n%s", q, diff)
		}
	}
}

// statFile returns the stored info of path in scope.
func statFile(ctx context.Context, e *Env, scope driver.Scope, path string) (driver.FileInfo, bool, error) {
	var info driver.FileInfo
	var ok bool
	err := e.Store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		info, ok, err = tx.Stat(ctx, path)
		return err
	})
	return info, ok, err
}
