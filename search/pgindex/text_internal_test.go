package pgindex

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/google/go-cmp/cmp"
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

// TestChunkTextMigrations: chunks stored before migration 0004 (text in chunk_content, escaped
// by 0003) stay searchable once migrated: offsets, hash, postings and statistics are kept, the
// text is gone from the index, and a database that was used in tsvector mode gets each chunk's
// tsvector from its text before the text is dropped.
func TestChunkTextMigrations(t *testing.T) {
	ctx := context.Background()
	pool := legacySchema(t, "0001_index.sql", "0002_embedder.sql", "0003_text_escape.sql")
	// The full-text index of releases before 0004, as New created it in tsvector mode.
	if _, err := pool.Exec(ctx, `CREATE INDEX idx_mcp_file_chunks_tsv ON mcp_file_chunks USING gin (to_tsvector('english', chunk_content))`); err != nil {
		t.Fatal(err)
	}
	scope := driver.Scope{Tenant: strings.Repeat("ab", 32), Project: "legacy"}
	texts := []string{"plain legacy nebula text", "legacy \x01 control characters about quasars"}
	for i, text := range texts {
		legacyFile(t, pool, scope, fmt.Sprintf("/f%d.md", i), text, "", nil)
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var columns []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(column_name::text ORDER BY column_name) FROM information_schema.columns
WHERE table_name = 'mcp_file_chunks' AND column_name IN ('chunk_content', 'apikey_hash', 'project', 'chunk_tsv')`).Scan(&columns); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"chunk_tsv"}, columns); diff != "" {
		t.Errorf("columns after migrating (-want +got):\n%s", diff)
	}
	for _, mode := range []LexicalMode{LexicalBM25, LexicalTSVector} {
		ix, err := New(ctx, pool, Options{Lexical: mode})
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			chunks, err := ix.Chunks(ctx, scope, fmt.Sprintf("/f%d.md", i))
			if err != nil || len(chunks) != 1 || chunks[0].Text != "" || chunks[0].EndByte != int64(len(text)) || len(chunks[0].Terms) == 0 {
				t.Errorf("%s: chunk %d after migrating: %+v, %v; want its offsets and terms, no text", mode, i, chunks, err)
			}
		}
		for q, want := range map[string]string{"nebula": "/f0.md", "quasar": "/f1.md"} {
			res, err := ix.Lexical(ctx, scope, indexdriver.LexicalQuery{Terms: indexdriver.QueryTerms(q), BM25: indexdriver.DefaultBM25(), TopK: 5})
			if err != nil || len(res.Candidates) != 1 || res.Candidates[0].Path != want || res.Candidates[0].Chunk.Text != "" {
				t.Errorf("%s: %q after migrating: %+v, %v; want %s", mode, q, res.Candidates, err, want)
			}
		}
		ix.Close()
	}
}
