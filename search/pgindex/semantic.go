package pgindex

import (
	"context"
	"strings"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5/pgtype"
)

// sqlSemanticScan streams the vectors of the project that were made by the query's model and
// have its dimension, path filters applied in SQL. Scores are computed in Go with search.Dot.
const sqlSemanticScan = `SELECT e.chunk_id, e.file_path, e.chunk_index, e.embedding
FROM mcp_search_projects pr JOIN mcp_file_chunk_embeddings e ON e.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND e.model = $3 AND e.dims = $4
  AND ($5::text = '' OR e.file_path LIKE $6::text) AND e.file_path <> ALL($7::text[])`

// sqlSemanticPGVector lets pgvector pick the nearest rows by inner product (<#> is the negated
// inner product); Semantic then rescores them with search.Dot.
const sqlSemanticPGVector = sqlSemanticScan + `
ORDER BY e.embedding_vec <#> $8::vector LIMIT $9`

// Semantic implements search.Index. Without pgvector it is an exact flat scan: the project's
// vectors stream from PostgreSQL and are scored in Go; with pgvector the database ranks them by
// inner product and returns a margin of extra rows, which are rescored in Go. Either way the
// scores are search.Dot's, as in search/memindex.
func (ix *Index) Semantic(ctx context.Context, scope fileio.Scope, q search.SemanticQuery) ([]search.Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(q.Vector) == 0 || q.TopK <= 0 {
		return nil, nil
	}
	if ix.vectors != nil {
		return ix.semanticCached(ctx, scope, q)
	}
	args := []any{scope.Tenant, scope.Project, q.Model, int32(len(q.Vector)), q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths)}
	query := sqlSemanticScan
	if ix.pgvector {
		query = sqlSemanticPGVector
		args = append(args, vectorLiteral(q.Vector), 2*q.TopK+16)
	}
	rows, err := ix.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, backendError(ctx, "running a semantic query", err)
	}
	h := search.NewTopK[int64](q.TopK)
	vec := make([]float32, len(q.Vector))
	var id int64
	var path pgtype.DriverBytes
	var index int32
	var raw pgtype.DriverBytes
	for rows.Next() {
		if err := rows.Scan(&id, &path, &index, &raw); err != nil {
			rows.Close()
			return nil, backendError(ctx, "reading vectors", err)
		}
		if len(raw) != 4*len(vec) {
			continue
		}
		decodeVectorInto(vec, raw)
		score := float64(search.Dot(vec, q.Vector))
		if h.Wants(score) {
			h.Offer(search.Ranked[int64]{Score: score, Path: string(path), Index: int(index), Value: id})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, backendError(ctx, "reading vectors", err)
	}
	return ix.candidates(ctx, h.Sorted())
}

// semanticCached scans the in-process snapshot of the project's vectors.
func (ix *Index) semanticCached(ctx context.Context, scope fileio.Scope, q search.SemanticQuery) ([]search.Candidate, error) {
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return nil, backendError(ctx, "finding the project", err)
	}
	snap, err := ix.vectors.snapshot(ctx, ix, cacheKey{project: pid, model: q.Model, dims: len(q.Vector)})
	if err != nil {
		return nil, backendError(ctx, "loading vectors", err)
	}
	dims := len(q.Vector)
	// A query vector with few non-zero dimensions (the hashing embedder's, for a few words) is
	// scored with search.SparseDot over those dimensions only: bit for bit search.Dot for finite
	// vectors, at a fraction of the reads.
	var nz []int
	for j, x := range q.Vector {
		if x != 0 {
			nz = append(nz, j)
		}
	}
	sparse := len(nz) <= dims/2
	h := search.NewTopK[int64](q.TopK)
	for path, f := range snap.files {
		if (q.PathPrefix != "" && !strings.HasPrefix(path, q.PathPrefix)) || q.ExcludePaths[path] {
			continue
		}
		for i, id := range f.ids {
			var dot float32
			if sparse && !f.nonFinite {
				dot = search.SparseDot(f.vecs, i*dims, 1, q.Vector, nz)
			} else {
				dot = search.Dot(f.vecs[i*dims:(i+1)*dims], q.Vector)
			}
			score := float64(dot)
			if h.Wants(score) {
				h.Offer(search.Ranked[int64]{Score: score, Path: path, Index: int(f.index[i]), Value: id})
			}
		}
	}
	return ix.candidates(ctx, h.Sorted())
}

// candidates reads the chunks of the selected ids, in order, with their scores.
func (ix *Index) candidates(ctx context.Context, best []search.Ranked[int64]) ([]search.Candidate, error) {
	if len(best) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(best))
	for i, b := range best {
		ids[i] = b.Value
	}
	chunks, err := fetchChunks(ctx, ix.pool, ids)
	if err != nil {
		return nil, backendError(ctx, "reading chunks", err)
	}
	out := make([]search.Candidate, 0, len(best))
	for _, b := range best {
		if c, ok := chunks[b.Value]; ok { // gone: replaced since the scan
			c.Score = b.Score
			out = append(out, c)
		}
	}
	return out, nil
}
