package pgindex_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/google/go-cmp/cmp"
)

// chunkRefs names every chunk of the first n files of the corpus of loadBoth, as stored in idx.
func chunkRefs(t *testing.T, idx indexdriver.Index, n int) []indexdriver.ChunkRef {
	t.Helper()
	var refs []indexdriver.ChunkRef
	for i := range n {
		chunks, err := idx.Chunks(context.Background(), testScope, fmt.Sprintf("/d%d/f_%03d.md", i%5, i))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			refs = append(refs, indexdriver.ChunkRef{Path: c.Path, FileUpdatedAt: c.FileUpdatedAt, ChunkIndex: c.Index})
		}
	}
	return refs
}

// TestScoreChunksMatchesMemindex: ScoreChunks answers exactly as memindex's for the same
// chunks, whatever the query (terms the chunks lack, unknown terms, no terms, another model).
func TestScoreChunksMatchesMemindex(t *testing.T) {
	ctx, emb := context.Background(), search.NewHashingEmbedder(32)
	pg, _ := newIndex(t, pgindex.Options{})
	mem := loadBoth(t, pg, 30, 150, emb)
	refs := chunkRefs(t, mem, 12)
	if len(refs) < 20 {
		t.Fatalf("only %d chunks", len(refs))
	}
	for _, q := range []string{"alpha", "retry backoff", "zulu yankee xray", "café 検索", "the", "nonexistentword"} {
		terms := indexdriver.QueryTerms(q)
		lex, err := mem.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), TopK: 1})
		if err != nil {
			t.Fatal(err)
		}
		qv, _ := emb.Embed(ctx, []string{q})
		for _, sq := range []indexdriver.ScoreQuery{
			{Chunks: refs, Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: indexdriver.DefaultBM25(), Vector: qv[0], Model: emb.Model()},
			{Chunks: refs, Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: indexdriver.BM25{K1: 1.5, B: 0.6}},
			{Chunks: refs, Vector: qv[0], Model: "other-model"},
		} {
			want, err := mem.ScoreChunks(ctx, testScope, sq)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pg.ScoreChunks(ctx, testScope, sq)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q (-memindex +pgindex):\n%s", q, diff)
			}
		}
	}
}

// TestScoreChunksTSVector: in tsvector mode the lexical score of ScoreChunks is Lexical's
// ts_rank_cd, so candidates of both legs are on one scale.
func TestScoreChunksTSVector(t *testing.T) {
	pg, _ := newIndex(t, pgindex.Options{Lexical: pgindex.LexicalTSVector})
	loadBoth(t, pg, 20, 120, nil)
	ctx := context.Background()
	terms := indexdriver.QueryTerms("retry backoff")
	lex, err := pg.Lexical(ctx, testScope, indexdriver.LexicalQuery{Terms: terms, BM25: indexdriver.DefaultBM25(), TopK: 10})
	if err != nil || len(lex.Candidates) == 0 {
		t.Fatalf("lexical: %v, %d candidates", err, len(lex.Candidates))
	}
	var refs []indexdriver.ChunkRef
	for _, c := range lex.Candidates {
		refs = append(refs, indexdriver.ChunkRef{Path: c.Path, FileUpdatedAt: c.FileUpdatedAt, ChunkIndex: c.Chunk.Index})
	}
	got, err := pg.ScoreChunks(ctx, testScope, indexdriver.ScoreQuery{Chunks: refs, Terms: terms, DocFreq: lex.DocFreq, Stats: lex.Stats, BM25: indexdriver.DefaultBM25()})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range lex.Candidates {
		if !got[i].Found || got[i].Lexical != c.Score || got[i].HasSemantic {
			t.Errorf("%s#%d: ScoreChunks %+v, Lexical's ts_rank_cd %v", c.Path, c.Chunk.Index, got[i], c.Score)
		}
	}
}
