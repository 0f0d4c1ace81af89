package pgindex_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestConcurrentMigrations: eight instances open one empty database at once; every migration
// is applied exactly once, and migrating an up-to-date schema is a no-op.
func TestConcurrentMigrations(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := pgindex.Open(ctx, url, pgindex.Options{})
			if err == nil {
				ix.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Open: %v", err)
		}
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pgindex.Migrate(ctx, pool); err != nil {
		t.Fatalf("Migrate on an up-to-date schema: %v", err)
	}
	var rows, newest int
	if err := pool.QueryRow(ctx, "SELECT count(*), max(version) FROM mcp_search_schema_migrations").Scan(&rows, &newest); err != nil {
		t.Fatal(err)
	}
	if rows != pgindex.SchemaVersion() || newest != pgindex.SchemaVersion() {
		t.Errorf("mcp_search_schema_migrations has %d rows up to %d, want %d", rows, newest, pgindex.SchemaVersion())
	}
}

// TestOptions: unknown modes are INVALID_CONFIG; pgvector detection reports what it found.
func TestOptions(t *testing.T) {
	url := pgtest.New(t)
	ctx := context.Background()
	for _, opts := range []pgindex.Options{{Lexical: "fulltext"}, {PGVector: "always"}} {
		if _, err := pgindex.Open(ctx, url, opts); !errors.Is(err, search.ErrInvalidConfig) {
			t.Errorf("Open(%+v): %v, want INVALID_CONFIG", opts, err)
		}
	}
	ix, err := pgindex.Open(ctx, url, pgindex.Options{PGVector: pgindex.PGVectorOff})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.UsesPGVector() {
		t.Error("pgvector used although switched off")
	}
	var installed bool
	ix.Pool().QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')").Scan(&installed)
	auto, err := pgindex.Open(ctx, url, pgindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	if auto.UsesPGVector() != installed {
		t.Errorf("UsesPGVector = %v, extension installed = %v", auto.UsesPGVector(), installed)
	}
	t.Logf("pgvector installed in the test database: %v (Debian bookworm ships no postgresql-15-pgvector; the BYTEA scan is used)", installed)
}

// TestBackendErrorsHideInternals: with the pool closed every method fails with
// SEARCH_BACKEND_ERROR whose message names no SQL or connection detail.
func TestBackendErrorsHideInternals(t *testing.T) {
	ix, _ := newIndex(t, pgindex.Options{})
	ix.Pool().Close()
	ctx := context.Background()
	f := indexedFile("/x.md", time.Now(), "some text", search.Chunker{}, nil)
	calls := map[string]error{
		"ReplaceFile": ix.ReplaceFile(ctx, testScope, f),
	}
	_, calls["FileStates"] = ix.FileStates(ctx, testScope, "")
	_, calls["Lexical"] = ix.Lexical(ctx, testScope, search.LexicalQuery{Terms: []string{"text"}, BM25: search.DefaultBM25(), TopK: 5})
	_, calls["Semantic"] = ix.Semantic(ctx, testScope, search.SemanticQuery{Vector: []float32{1}, Model: "m", TopK: 5})
	_, calls["Chunks"] = ix.Chunks(ctx, testScope, "/x.md")
	calls["MarkServed"] = ix.MarkServed(ctx, testScope, []search.ChunkRef{{Path: "/x.md"}}, time.Now())
	for name, err := range calls {
		var se *search.Error
		if !errors.As(err, &se) || se.Code() != search.CodeSearchBackend {
			t.Errorf("%s: %v, want SEARCH_BACKEND_ERROR", name, err)
			continue
		}
		for _, leak := range []string{"SELECT", "INSERT", "UPDATE", "postgres://", "127.0.0.1", "closed pool"} {
			if strings.Contains(se.Message, leak) {
				t.Errorf("%s: message %q leaks %q", name, se.Message, leak)
			}
		}
	}
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.FileStates(cctx, testScope, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
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
		terms := search.QueryTerms(tc.query)
		res, err := pg.Lexical(ctx, testScope, search.LexicalQuery{Terms: terms, BM25: search.DefaultBM25(), PathPrefix: tc.prefix, ExcludePaths: tc.exclude, TopK: 10})
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
	if err := pg.Pool().QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_mcp_file_chunks_tsv'").Scan(&indexDef); err != nil || !strings.Contains(indexDef, "gin") {
		t.Errorf("GIN index: %q %v", indexDef, err)
	}
}
