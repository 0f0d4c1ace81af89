package pgindex

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/pgmigrate"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5/pgxpool"
)

// FuzzTextCodec: the stored form of any string holds no U+0000 and decodes to the string; text
// without U+0000 and U+0001 is stored as it is.
func FuzzTextCodec(f *testing.F) {
	for _, s := range []string{"", "plain", "\x00", "\x01", "\x01\x02", "\x01\x01", "a\x00b\x01c\x02", "\x00\x00\x01\x01\x02\x00", "検索\x00エンジン"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := encodeText(s)
		if strings.IndexByte(enc, 0) >= 0 {
			t.Fatalf("encodeText(%q) = %q holds U+0000", s, enc)
		}
		if utf8.ValidString(s) != utf8.ValidString(enc) {
			t.Fatalf("encodeText(%q) = %q changed UTF-8 validity", s, enc)
		}
		if got := decodeText(enc); got != s {
			t.Fatalf("decodeText(encodeText(%q)) = %q", s, got)
		}
		if !strings.ContainsAny(s, "\x00\x01") && enc != s {
			t.Fatalf("encodeText(%q) = %q, want it unchanged", s, enc)
		}
	})
}

// TestTextEscapeMigration: a database whose chunks were stored before migration 0003, when
// chunk text was stored as it is (so U+0001 unescaped), reads back every chunk's original text
// once migrated.
func TestTextEscapeMigration(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	v2 := pgmigrate.Set{FS: fstest.MapFS{}, Dir: "migrations", Table: schema.Table, LockKey: schema.LockKey}
	for _, name := range []string{"0001_index.sql", "0002_embedder.sql"} {
		data, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			t.Fatal(err)
		}
		v2.FS.(fstest.MapFS)["migrations/"+name] = &fstest.MapFile{Data: data}
	}
	if err := v2.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	old, err := New(ctx, pool, Options{SkipMigrations: true})
	if err != nil {
		t.Fatal(err)
	}
	scope := fileio.Scope{Tenant: strings.Repeat("ab", 32), Project: "legacy"}
	texts := []string{"plain legacy text", "legacy \x01 control \x01\x01 characters \x01\x02 kept"}
	for i, text := range texts {
		terms, n := search.TermCounts(text)
		f := search.IndexedFile{Path: fmt.Sprintf("/f%d.md", i), FileUpdatedAt: time.Now(), Tokenizer: search.TokenizerName,
			Chunks: []search.IndexedChunk{{Chunk: search.Chunk{Text: text, EndByte: int64(len(text))}, Terms: terms, ChunkTerms: n}}}
		if err := old.ReplaceFile(ctx, scope, f); err != nil {
			t.Fatal(err)
		}
	}
	// Store the text as releases before 0003 did: unescaped.
	if _, err := pool.Exec(ctx, `UPDATE mcp_file_chunks SET chunk_content = replace(chunk_content, E'\x01\x01', E'\x01')`); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		chunks, err := old.Chunks(ctx, scope, fmt.Sprintf("/f%d.md", i))
		if err != nil || len(chunks) != 1 || chunks[0].Text != text {
			t.Errorf("chunk %d after migrating: %+v, %v; want text %q", i, chunks, err, text)
		}
	}
}
