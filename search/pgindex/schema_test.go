package pgindex_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// TestConcurrentMigrations: eight instances migrate one empty database at once; every migration
// is applied exactly once, and migrating an up-to-date schema is a no-op.
func TestConcurrentMigrations(t *testing.T) {
	url := pgtest.New(t)
	pgtest.MigrateConcurrently(t, url, 8, pgindex.Migrate)
	pgtest.CheckMigrated(t, url, "mcp_search_schema_migrations", pgindex.SchemaVersion(), pgindex.Migrate)
}

// TestOptions: unknown modes and negative merge thresholds are INVALID_CONFIG.
func TestOptions(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	for _, opts := range []pgindex.Options{{Lexical: "fulltext"}, {MergePendingChunks: -1}} {
		if _, err := pgindex.Open(ctx, url, opts); !errors.Is(err, agentfiles.ErrInvalidConfig) {
			t.Errorf("Open(%+v): %v, want INVALID_CONFIG", opts, err)
		}
	}
}

// allMethods calls every method of ix once and returns their errors by method name.
func allMethods(ctx context.Context, ix *pgindex.Index) map[string]error {
	f := indexedFile("/x.md", time.Now(), "some text", search.Chunker{}, nil)
	calls := map[string]error{
		"ReplaceFile": ix.ReplaceFile(ctx, testScope, f),
		"DeleteFile":  ix.DeleteFile(ctx, testScope, "/x.md", time.Now()),
		"MarkServed":  ix.MarkServed(ctx, testScope, []indexdriver.ChunkRef{{Path: "/x.md"}}, time.Now()),
	}
	_, calls["FileStates"] = ix.FileStates(ctx, testScope, "")
	_, calls["Lexical"] = ix.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: []string{"text"}, BM25: indexdriver.DefaultBM25(), TopK: 5})
	_, calls["Semantic"] = ix.Semantic(ctx, testScope, indexdriver.SemanticQuery{Vector: []float32{1}, Model: "m", TopK: 5})
	_, calls["Chunks"] = ix.Chunks(ctx, testScope, "/x.md")
	return calls
}

// checkCoded fails t unless every error in calls has code want and a message without SQL or
// connection details.
func checkCoded(t *testing.T, calls map[string]error, want agentfiles.Code) {
	t.Helper()
	for name, err := range calls {
		var e *agentfiles.Error
		if !errors.As(err, &e) || e.Code != want {
			t.Errorf("%s: %v, want %s", name, err, want)
			continue
		}
		for _, leak := range []string{"SELECT", "INSERT", "UPDATE", "postgres://", "127.0.0.1", "closed pool", "dial"} {
			if strings.Contains(e.Message, leak) {
				t.Errorf("%s: message %q leaks %q", name, e.Message, leak)
			}
		}
	}
}

// TestBackendErrorsHideInternals: with the pool closed every method fails with
// SEARCH_BACKEND_ERROR whose message names no SQL or connection detail.
func TestBackendErrorsHideInternals(t *testing.T) {
	ix, _ := newIndex(t, pgindex.Options{})
	ix.Pool().Close()
	checkCoded(t, allMethods(context.Background(), ix), search.CodeSearchBackendError)
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.FileStates(cctx, testScope, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestDatabaseDownIsUnavailable: while PostgreSQL is down every method, and a Searcher over the
// index, fails with a retryable UNAVAILABLE that hides the connection details; once the server
// is back the same Index works again.
func TestDatabaseDownIsUnavailable(t *testing.T) {
	srv := pgtest.Dedicated(t)
	ctx := context.Background()
	url, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ix := pgtest.Open(t, url, pgindex.Open, pgindex.Options{})
	if err := ix.ReplaceFile(ctx, testScope, indexedFile("/x.md", time.Now(), "some text", search.Chunker{}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	// PostgreSQL backends run in process groups of their own, so one may outlive the killed
	// postmaster for a moment and still answer on its connection: drop the pool's connections.
	ix.Pool().Reset()
	calls := allMethods(ctx, ix)
	store := memstore.New(memstore.Options{})
	searcher, err := search.NewSearcher(store, ix, search.SearcherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	caller := agentfiles.WithAuth(ctx, agentfiles.AuthContext{APIKeyHash: testScope.Tenant})
	_, calls["Searcher.Search"] = searcher.Search(caller, search.Query{Project: testScope.Project, Query: "text"})
	checkCoded(t, calls, agentfiles.CodeUnavailable)
	if err := calls["Lexical"]; !errors.Is(err, agentfiles.ErrUnavailable) || !agentfiles.ErrorCode(err).Retryable() {
		t.Errorf("Lexical: %v, want a retryable UNAVAILABLE", err)
	}
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 30*time.Second, "the index answering again", func() bool {
		_, err := ix.FileStates(ctx, testScope, "")
		return err == nil
	})
}

// TestTSVectorMode: the transitional full-text mode finds chunks by any query term, honours
// tenant, prefix and exclusions, and still reports BM25 statistics and document frequencies.
func TestTSVectorMode(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{Lexical: pgindex.LexicalTSVector})
	ctx := context.Background()
	version := time.Now()
	docs := map[string]string{
		"/docs/retry.md":    "The client retries failed requests with exponential backoff.",
		"/docs/auth.md":     "Every request carries a bearer token.",
		"/src/scheduler.go": "The scheduler assigns jobs to workers and retries them.",
	}
	for p, c := range docs {
		if err := pg.ReplaceFile(ctx, testScope, indexedFile(p, version, c, search.Chunker{}, nil)); err != nil {
			t.Fatal(err)
		}
	}
	other := testScope
	other.Tenant = strings.Repeat("cd", 32)
	if err := pg.ReplaceFile(ctx, other, indexedFile("/docs/retry.md", version, "retries everywhere", search.Chunker{}, nil)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query, prefix string
		exclude       map[string]bool
		want          []string
	}{
		{"retries", "", nil, []string{"/docs/retry.md", "/src/scheduler.go"}},
		{"scheduler OR token", "", nil, []string{"/docs/auth.md", "/src/scheduler.go"}},
		{"retries", "/docs/", nil, []string{"/docs/retry.md"}},
		{"retries", "", map[string]bool{"/docs/retry.md": true}, []string{"/src/scheduler.go"}},
		{"zeppelin", "", nil, nil},
	}
	for _, tc := range tests {
		terms := indexdriver.QueryTerms(tc.query)
		res, err := pg.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), PathPrefix: tc.prefix, ExcludePaths: tc.exclude, TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range res.Candidates {
			got = append(got, c.Path)
			if c.Score <= 0 {
				t.Errorf("%q: non-positive ts_rank_cd score %v", tc.query, c.Score)
			}
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q prefix %q exclude %v: %v, want %v", tc.query, tc.prefix, tc.exclude, got, tc.want)
		}
		if res.Stats.Chunks != 3 || len(res.DocFreq) != len(terms) {
			t.Errorf("%q: stats %+v df %v", tc.query, res.Stats, res.DocFreq)
		}
	}
	var indexDef string
	if err := pg.Pool().QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_mcp_search_chunk_tsv'").Scan(&indexDef); err != nil || !strings.Contains(indexDef, "gin") {
		t.Errorf("GIN index: %q %v", indexDef, err)
	}
}
