package pgindex_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/jackc/pgx/v5"
)

// TestStatementTimeout: a search statement that would run past Options.StatementTimeout is
// cancelled by PostgreSQL and fails with TIMEOUT (retryable), the code pgstore gives it too, releasing its connection;
// once the obstacle is gone the same call succeeds. The obstacle is another session holding
// ACCESS EXCLUSIVE locks on the index's tables (statement_timeout counts lock waits).
func TestStatementTimeout(t *testing.T) {
	const timeout = 150 * time.Millisecond
	ix, url := newIndex(t, pgindex.Options{StatementTimeout: timeout})
	ctx := context.Background()
	scope := driver.Scope{Tenant: "tenant", Project: "p"}
	doc := indexedFile("/a.md", time.Now().UTC().Truncate(time.Microsecond), "retry with exponential backoff", search.NewChunker(search.ChunkerOptions{}), nil)
	if err := ix.ReplaceFile(ctx, scope, doc); err != nil {
		t.Fatal(err)
	}
	lq := indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms("backoff"), BM25: indexdriver.DefaultBM25(), TopK: 10}
	if res, err := ix.Lexical(ctx, scope, lq); err != nil || len(res.Candidates) != 1 {
		t.Fatalf("before: %+v, %v", res, err)
	}

	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `SELECT quote_ident(tablename) FROM pg_tables
WHERE schemaname = current_schema() AND (tablename LIKE 'mcp\_search%' OR tablename LIKE 'mcp\_file\_chunk%')`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("the index's tables: %v, %v", tables, err)
	}
	for _, tb := range tables {
		if _, err := tx.Exec(ctx, "LOCK TABLE "+tb+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	_, err = ix.Lexical(ctx, scope, lq)
	took := time.Since(start)
	var e *agentfiles.Error
	if !errors.Is(err, agentfiles.ErrTimeout) || !errors.As(err, &e) || !e.Code.Retryable() {
		t.Errorf("blocked query: %v, want a retryable TIMEOUT", err)
	}
	if took > 10*timeout+2*time.Second {
		t.Errorf("blocked query returned after %v, timeout %v", took, timeout)
	}
	if err := ix.MarkServed(ctx, scope, []indexdriver.ChunkRef{{Path: "/a.md", FileUpdatedAt: doc.FileUpdatedAt}}, time.Now()); !errors.Is(err, agentfiles.ErrTimeout) {
		t.Errorf("blocked MarkServed: %v, want TIMEOUT", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := ix.Lexical(ctx, scope, lq); err != nil || len(res.Candidates) != 1 {
		t.Errorf("after the locks went: %+v, %v", res, err)
	}
}
