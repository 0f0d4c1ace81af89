package pgindex

import (
	"context"
	"slices"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// sqlScoreVectors reads the vectors of the named chunks made by the query's model, of its size,
// with the size of their file's vector row: a substring of the column, which is stored
// uncompressed out of line, reads only the chunk's slice.
const sqlScoreVectors = `SELECT r.path, r.idx, substring(v.vectors FROM r.idx * $5 * 4 + 1 FOR $5 * 4), octet_length(v.vectors)
FROM mcp_search_projects pr
CROSS JOIN unnest($3::text[], $6::int[]) AS r(path, idx)
JOIN mcp_search_vectors v ON v.project_id = pr.id AND v.file_path = r.path
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND v.model = $4 AND v.dims = $5`

// sqlScoreTSV reads ts_rank_cd of the named chunks (LexicalTSVector mode).
const sqlScoreTSV = `SELECT c.file_path, c.chunk_index, coalesce(ts_rank_cd(c.tsv, $5::tsquery)::float8, 0)
FROM mcp_search_projects pr
CROSS JOIN unnest($3::text[], $4::int[]) AS r(path, idx)
JOIN mcp_search_chunk_tsv c ON c.project_id = pr.id AND c.file_path = r.path AND c.chunk_index = r.idx
WHERE pr.apikey_hash = $1 AND pr.project = $2`

// ScoreChunks implements indexdriver.Index in one snapshot, read in one round trip when the project's
// view is cached: the postings blocks of the query terms (as Lexical reads them), the vectors of
// the named files, and in tsvector mode the chunks' ts_rank_cd. BM25 is computed in Go with the
// caller's statistics, summed over the terms in query order as Lexical sums them, so the floats
// are memindex's; vectors are scored with indexdriver.Dot. In LexicalTSVector mode the lexical score
// is the chunk's ts_rank_cd, Lexical's scale there.
func (ix *Index) ScoreChunks(ctx context.Context, scope driver.Scope, q indexdriver.ScoreQuery) ([]indexdriver.ChunkScore, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]indexdriver.ChunkScore, len(q.Chunks))
	if len(q.Chunks) == 0 {
		return out, nil
	}
	idx := make([]int32, len(q.Chunks))
	all := make([]string, len(q.Chunks))
	for i, r := range q.Chunks {
		all[i], idx[i] = r.Path, int32(r.ChunkIndex)
	}
	tsvector := ix.lexical == LexicalTSVector && len(q.Terms) > 0
	vectors := make(map[chunkAddr][]byte)
	vectorRows := make(map[string]int) // a file's vector row size
	ranks := make(map[indexdriver.ChunkRef]float64)
	extra := func(b *pgx.Batch) {
		b.Queue(sqlScoreVectors, scope.Tenant, scope.Project, all, q.Model, int32(len(q.Vector)), idx)
		if tsvector {
			b.Queue(sqlScoreTSV, scope.Tenant, scope.Project, all, idx, tsQuery(q.Terms))
		}
	}
	read := func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		var path string
		var chunk, size int32
		var raw []byte
		if _, err := pgx.ForEachRow(rows, []any{&path, &chunk, &raw, &size}, func() error {
			vectors[chunkAddr{path, int(chunk)}] = raw
			vectorRows[path] = int(size)
			raw = nil
			return nil
		}); err != nil {
			return err
		}
		if !tsvector {
			return nil
		}
		if rows, err = br.Query(); err != nil {
			return err
		}
		var index int32
		var rank float64
		_, err = pgx.ForEachRow(rows, []any{&path, &index, &rank}, func() error {
			ranks[indexdriver.ChunkRef{Path: path, ChunkIndex: int(index)}] = rank
			return nil
		})
		return err
	}
	// Only the segments and pending files that hold a named chunk matter: the others' blocks
	// are not fetched or decoded (the document frequencies are the caller's).
	need := func(v *view) []bool {
		out := make([]bool, len(v.segs)+len(v.pending))
		for _, r := range q.Chunks {
			if fi, ok := v.fileIndex(r.Path); ok && r.ChunkIndex >= 0 && r.ChunkIndex < v.states[fi].Chunks {
				out[int(v.key(fi, r.ChunkIndex)>>32)] = true
			}
		}
		return out
	}
	s, err := ix.readSnapshot(ctx, scope, q.Terms, need, extra, read)
	if err != nil {
		return nil, backendError(ctx, "scoring chunks", err)
	}
	if s.view == nil {
		return out, nil
	}
	lists, _, err := s.postingLists(q.Terms, nil)
	if err != nil {
		return nil, backendError(ctx, "decoding postings", err)
	}
	scorers := q.TermScorers()
	row := make([]float32, len(q.Vector))
	for i, r := range q.Chunks {
		fi, ok := s.view.fileIndex(r.Path)
		if !ok {
			continue
		}
		st := s.view.states[fi]
		if !st.FileUpdatedAt.Equal(r.FileUpdatedAt) || r.ChunkIndex < 0 || r.ChunkIndex >= st.Chunks {
			continue
		}
		cs := &out[i]
		cs.Found = true
		key := s.view.key(fi, r.ChunkIndex)
		d, ord := s.view.chunk(fi, r.ChunkIndex)
		for ti := range q.Terms {
			cs.Lexical += scorers[ti].Score(lists[ti].tf(key), int(d.terms[ord]))
		}
		if tsvector {
			cs.Lexical = ranks[indexdriver.ChunkRef{Path: r.Path, ChunkIndex: r.ChunkIndex}]
		}
		if raw := vectors[chunkAddr{r.Path, r.ChunkIndex}]; len(q.Vector) > 0 && len(raw) == 4*len(row) && vectorRows[r.Path] == 4*len(row)*st.Chunks {
			decodeVectorInto(row, raw)
			cs.Semantic, cs.HasSemantic = float64(indexdriver.Dot(row, q.Vector)), true
		}
	}
	return out, nil
}

// key is the chunk key (see chunkKey) of file fi's chunk i.
func (v *view) key(fi, i int) int64 {
	f := v.files[fi]
	if f.pending != nil {
		pi, _ := slices.BinarySearch(v.pending, int32(fi))
		return chunkKey(len(v.segs)+pi, i)
	}
	return chunkKey(int(f.seg), int(f.first)+i)
}

// tf returns the term frequency at chunk key k (0 when the chunk lacks the term).
func (l termPostings) tf(k int64) int {
	i, ok := slices.BinarySearch(l.ids, k)
	if !ok {
		return 0
	}
	return int(l.packed[i] >> 32)
}
