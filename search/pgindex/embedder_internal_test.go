package pgindex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/pgmigrate"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5/pgxpool"
)

// legacyDatabase returns a pool on a database at schema version 1 (before embedder identities
// were recorded) holding one file per embedder of embs, as an older release indexed it, and then
// migrated to the newest schema.
func legacyDatabase(t *testing.T, embs ...search.Embedder) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	first, err := migrationFS.ReadFile("migrations/0001_index.sql")
	if err != nil {
		t.Fatal(err)
	}
	v1 := pgmigrate.Set{FS: fstest.MapFS{"migrations/0001_index.sql": {Data: first}}, Dir: "migrations", Table: schema.Table, LockKey: schema.LockKey}
	if err := v1.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	old, err := New(ctx, pool, Options{SkipMigrations: true})
	if err != nil {
		t.Fatal(err)
	}
	scope := fileio.Scope{Tenant: strings.Repeat("cd", 32), Project: "legacy"}
	for _, emb := range embs {
		text := "legacy text embedded by " + emb.Model()
		vecs, _ := emb.Embed(ctx, []string{text})
		terms, n := search.TermCounts(text)
		f := search.IndexedFile{Path: "/" + emb.Model() + ".md", FileUpdatedAt: time.Now(), Tokenizer: search.TokenizerName, EmbeddingModel: emb.Model(),
			Chunks: []search.IndexedChunk{{Chunk: search.Chunk{Text: text, EndByte: int64(len(text))}, Terms: terms, ChunkTerms: n, Vector: vecs[0]}}}
		if err := old.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pool
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
	st, err := ix.Reembed(ctx, x, ReembedOptions{})
	if err != nil || st.DroppedVectors != 1 || st.Files != 1 || !st.Switched {
		t.Fatalf("Reembed = %+v, %v; want y's vector dropped and its file embedded with x", st, err)
	}
	if _, err := New(ctx, mixed, Options{Embedder: IdentityOf(x)}); err != nil {
		t.Errorf("New with %v after Reembed: %v", IdentityOf(x), err)
	}
}
