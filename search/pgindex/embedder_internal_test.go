package pgindex

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgmigrate"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// legacyDatabase returns a pool on a database at schema version 1 (before embedder identities
// were recorded) holding one file per embedder of embs, as an older release indexed it, and then
// migrated to the newest schema.
func legacyDatabase(t *testing.T, embs ...search.Embedder) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool := legacySchema(t, "0001_index.sql")
	scope := driver.Scope{Tenant: strings.Repeat("cd", 32), Project: "legacy"}
	for _, emb := range embs {
		text := "legacy text embedded by " + emb.Model()
		vecs, _ := emb.Embed(ctx, []string{text})
		legacyFile(t, pool, scope, "/"+emb.Model()+".md", text, emb.Model(), vecs[0])
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// legacySchema returns a pool on a new database migrated with the named migrations only.
func legacySchema(t *testing.T, names ...string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	set := pgmigrate.Set{FS: fstest.MapFS{}, Dir: "migrations", Table: schema.Table, LockKey: schema.LockKey}
	for _, name := range names {
		data, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		set.FS.(fstest.MapFS)["migrations/"+name] = &fstest.MapFile{Data: data}
	}
	if err := set.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
}

// legacyFile stores a one-chunk file as releases before migration 0004 did: the chunk's text in
// chunk_content (as it is), its tenant and project on the chunk row, one postings row per term,
// and its vector when model is set.
func legacyFile(t *testing.T, pool *pgxpool.Pool, scope driver.Scope, path, text, model string, vec []float32) {
	t.Helper()
	terms, n := indexdriver.TermCounts(text)
	var termList []string
	var tfs []int32
	for term, tf := range terms {
		termList, tfs = append(termList, term), append(tfs, int32(tf))
	}
	hash := fmt.Sprintf("%x", sha256.Sum256([]byte(text)))
	_, err := pool.Exec(context.Background(), `WITH pr AS (
    INSERT INTO mcp_search_projects (apikey_hash, project, chunk_count, total_terms) VALUES ($1, $2, 1, $5)
    ON CONFLICT (apikey_hash, project) DO UPDATE SET chunk_count = mcp_search_projects.chunk_count + 1,
        total_terms = mcp_search_projects.total_terms + $5 RETURNING id
), f AS (
    INSERT INTO mcp_search_files (project_id, file_path, file_updated_at, embedding_model, tokenizer, chunk_count, total_terms)
    SELECT id, $3, now(), $9, $10, 1, $5 FROM pr
), c AS (
    INSERT INTO mcp_file_chunks (project_id, apikey_hash, project, file_path, file_updated_at, chunk_index, start_byte, end_byte,
        chunk_content, content_hash, chunk_terms)
    SELECT id, $1, $2, $3, now(), 0, 0, octet_length($4), $4, $6, $5 FROM pr RETURNING id, project_id
), p AS (
    INSERT INTO mcp_file_chunk_postings (project_id, term, chunk_id, tf, chunk_terms, file_path)
    SELECT c.project_id, u.term, c.id, u.tf, $5, $3 FROM c, unnest($7::text[], $8::int[]) AS u(term, tf)
)
INSERT INTO mcp_file_chunk_embeddings (chunk_id, project_id, file_path, chunk_index, model, dims, embedding)
SELECT c.id, c.project_id, $3, 0, $9, $11, $12 FROM c WHERE $9 <> ''`,
		scope.Tenant, scope.Project, path, text, n, hash, termList, tfs, model, indexdriver.TokenizerName, int32(len(vec)), appendVector(nil, vec))
	if err != nil {
		t.Fatal(err)
	}
}

// TestLegacyDatabaseIdentity: migrating a database indexed before identities were recorded
// records its embedder when all its vectors agree; when they disagree nothing is recorded, New
// refuses every embedder (naming one found), and Reembed settles the database on one.
func TestLegacyDatabaseIdentity(t *testing.T) {
	ctx := context.Background()
	x, y := search.NewHashingEmbedder(8), search.NewHashingEmbedder(12)

	agree := legacyDatabase(t, x)
	ix, err := New(ctx, agree, Options{Embedder: IdentityOf(x)})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.RecordedEmbedder(ctx); got != IdentityOf(x) {
		t.Errorf("recorded %v for a database of %v vectors", got, IdentityOf(x))
	}

	mixed := legacyDatabase(t, x, y)
	ix, err = New(ctx, mixed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := ix.RecordedEmbedder(ctx); !got.IsZero() {
		t.Errorf("recorded %v for a database of mixed vectors", got)
	}
	for _, emb := range []search.Embedder{x, y} {
		_, err := New(ctx, mixed, Options{Embedder: IdentityOf(emb)})
		var e *agentfiles.Error
		if !errors.As(err, &e) || e.Code != agentfiles.CodeInvalidConfig || !strings.Contains(e.Message, "before pgindex recorded embedders") {
			t.Errorf("New with %v on mixed vectors: %v, want INVALID_CONFIG", IdentityOf(emb), err)
		}
	}
	st, err := ix.Reembed(ctx, x, ReembedOptions{Content: legacyContent})
	if err != nil || st.DroppedVectors != 1 || st.Files != 1 || !st.Switched {
		t.Fatalf("Reembed = %+v, %v; want y's vector dropped and its file embedded with x", st, err)
	}
	if _, err := New(ctx, mixed, Options{Embedder: IdentityOf(x)}); err != nil {
		t.Errorf("New with %v after Reembed: %v", IdentityOf(x), err)
	}
}

// legacyContent is the content of legacyDatabase's files, as a file store would hold it: each
// file is its one chunk's text.
func legacyContent(_ context.Context, _ driver.Scope, path string, _ time.Time) ([]byte, bool, error) {
	model := strings.TrimSuffix(strings.TrimPrefix(path, "/"), ".md")
	return []byte("legacy text embedded by " + model), true, nil
}
