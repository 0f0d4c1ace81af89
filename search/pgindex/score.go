package pgindex

import (
	"context"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
)

// sqlScoreChunks reads, for each named chunk (path, chunk index, version) that is indexed at
// that version, its position in the request, its length in terms, the frequencies of the query
// terms in it (two parallel arrays, NULL when none occurs), its vector of the query's model and
// size (NULL when it has none), and in tsvector mode ($11) its ts_rank_cd for the query ($10).
// Each chunk is one lookup of the (project, path, chunk index) key, its postings one range of
// the postings key per term.
const sqlScoreChunks = `SELECT r.ord, c.chunk_terms, t.terms, t.tfs, e.embedding,
       CASE WHEN $11 THEN coalesce(ts_rank_cd(c.chunk_tsv, $10::tsquery)::float8, 0) END
FROM mcp_search_projects pr
CROSS JOIN unnest($3::text[], $4::int[], $5::timestamptz[], $6::int[]) WITH ORDINALITY AS r(path, idx, at, ns, ord)
JOIN mcp_file_chunks c ON c.project_id = pr.id AND c.file_path = r.path AND c.chunk_index = r.idx
     AND c.file_updated_at = r.at AND c.file_updated_ns = r.ns
LEFT JOIN mcp_file_chunk_embeddings e ON e.chunk_id = c.id AND e.model = $8 AND e.dims = $9
LEFT JOIN LATERAL (
    SELECT array_agg(po.term) AS terms, array_agg(po.tf) AS tfs FROM mcp_file_chunk_postings po
    WHERE po.project_id = pr.id AND po.term = ANY($7::text[]) AND po.chunk_id = c.id) t ON true
WHERE pr.apikey_hash = $1 AND pr.project = $2`

// ScoreChunks implements search.Index in one statement. BM25 is computed in Go from the
// fetched term frequencies with the caller's statistics, summed over the terms in query order
// as Lexical sums them, so the floats are memindex's; vectors are scored with search.Dot. In
// LexicalTSVector mode the lexical score is the chunk's ts_rank_cd, Lexical's scale there.
func (ix *Index) ScoreChunks(ctx context.Context, scope fileio.Scope, q search.ScoreQuery) ([]search.ChunkScore, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]search.ChunkScore, len(q.Chunks))
	if len(q.Chunks) == 0 {
		return out, nil
	}
	n := len(q.Chunks)
	paths, idx, nss := make([]string, n), make([]int32, n), make([]int32, n)
	vers := make([]time.Time, n)
	for i, r := range q.Chunks {
		paths[i], idx[i] = r.Path, int32(r.ChunkIndex)
		vers[i], nss[i] = splitVersion(r.FileUpdatedAt)
	}
	terms := q.Terms
	if terms == nil {
		terms = []string{}
	}
	tsvector := ix.lexical == LexicalTSVector && len(q.Terms) > 0
	rows, err := ix.pool.Query(ctx, sqlScoreChunks, scope.Tenant, scope.Project, paths, idx, vers, nss,
		terms, q.Model, int32(len(q.Vector)), tsQuery(q.Terms), tsvector)
	if err != nil {
		return nil, backendError(ctx, "scoring chunks", err)
	}
	scorers := q.TermScorers()
	var (
		ord        int64
		chunkTerms int32
		found      []string
		tfs        []int32
		vec        []byte
		rank       *float64
	)
	row := make([]float32, len(q.Vector))
	_, err = pgx.ForEachRow(rows, []any{&ord, &chunkTerms, &found, &tfs, &vec, &rank}, func() error {
		cs := &out[ord-1]
		cs.Found = true
		for ti, term := range q.Terms {
			tf := 0
			for j, t := range found {
				if t == term {
					tf = int(tfs[j])
				}
			}
			cs.Lexical += scorers[ti].Score(tf, int(chunkTerms))
		}
		if rank != nil {
			cs.Lexical = *rank
		}
		if len(q.Vector) > 0 && len(vec) == 4*len(row) {
			decodeVectorInto(row, vec)
			cs.Semantic, cs.HasSemantic = float64(search.Dot(row, q.Vector)), true
		}
		found, tfs, vec, rank = nil, nil, nil, nil // the next row must not decode into these
		return nil
	})
	if err != nil {
		return nil, backendError(ctx, "scoring chunks", err)
	}
	return out, nil
}
