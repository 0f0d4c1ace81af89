package pgindex

import (
	"context"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
)

// likePrefix returns a LIKE pattern matching every string with the given prefix: the
// metacharacters \ % _ are escaped (backslash is LIKE's default escape), so "/a_b" matches
// "/a_b/x" but not "/aXb". A constant prefix pattern can use the text_pattern_ops indexes.
func likePrefix(prefix string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(prefix) + "%"
}

// excludeList turns ExcludePaths into a text[] parameter (never nil, so "<> ALL" is true for
// every path when nothing is excluded).
func excludeList(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for p, ex := range m {
		if ex {
			out = append(out, p)
		}
	}
	return out
}

// MarkServed implements search.Index with one UPDATE over the referenced chunks whose file is
// still indexed at the referenced version.
func (ix *Index) MarkServed(ctx context.Context, scope fileio.Scope, refs []search.ChunkRef, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(refs) == 0 {
		return nil
	}
	paths := make([]string, len(refs))
	idx, nss := make([]int32, len(refs)), make([]int32, len(refs))
	vers := make([]time.Time, len(refs))
	for i, r := range refs {
		paths[i], idx[i] = r.Path, int32(r.ChunkIndex)
		vers[i], nss[i] = splitVersion(r.FileUpdatedAt)
	}
	_, err := ix.pool.Exec(ctx, `UPDATE mcp_file_chunks c SET last_served_at = $3
FROM mcp_search_projects pr, unnest($4::text[], $5::int[], $6::timestamptz[], $7::int[]) AS r(path, idx, at, ns)
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND c.project_id = pr.id
  AND c.file_path = r.path AND c.chunk_index = r.idx AND c.file_updated_at = r.at AND c.file_updated_ns = r.ns`,
		scope.Tenant, scope.Project, at, paths, idx, vers, nss)
	return backendError(ctx, "recording last_served_at", err)
}

// Chunks implements search.Index: the chunks of path with their terms and vectors (no text),
// read in one repeatable-read snapshot.
func (ix *Index) Chunks(ctx context.Context, scope fileio.Scope, path string) ([]search.StoredChunk, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []search.StoredChunk
	err := pgx.BeginTxFunc(ctx, ix.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		out = nil
		var model, tokenizer string
		err := tx.QueryRow(ctx, `SELECT f.embedding_model, f.tokenizer FROM mcp_search_projects pr
JOIN mcp_search_files f ON f.project_id = pr.id WHERE pr.apikey_hash = $1 AND pr.project = $2 AND f.file_path = $3`,
			scope.Tenant, scope.Project, path).Scan(&model, &tokenizer)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT c.id, c.file_updated_at, c.file_updated_ns, c.chunk_index, c.start_byte, c.end_byte,
       c.content_hash, c.chunk_terms, c.last_served_at, e.embedding
FROM mcp_search_projects pr JOIN mcp_file_chunks c ON c.project_id = pr.id
LEFT JOIN mcp_file_chunk_embeddings e ON e.chunk_id = c.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND c.file_path = $3 ORDER BY c.chunk_index`, scope.Tenant, scope.Project, path)
		if err != nil {
			return err
		}
		byID := make(map[int64]int)
		var ids []int64
		for rows.Next() {
			var id int64
			var at time.Time
			var ns, index, terms int32
			var served *time.Time
			var vec []byte
			sc := search.StoredChunk{Path: path, EmbeddingModel: model, Tokenizer: tokenizer}
			if err := rows.Scan(&id, &at, &ns, &index, &sc.StartByte, &sc.EndByte, &sc.ContentHash, &terms, &served, &vec); err != nil {
				rows.Close()
				return err
			}
			sc.FileUpdatedAt, sc.Index, sc.ChunkTerms = joinVersion(at, ns), int(index), int(terms)
			if served != nil {
				sc.LastServedAt = served.UTC()
			}
			if len(vec) > 0 {
				sc.Vector = make([]float32, len(vec)/4)
				decodeVectorInto(sc.Vector, vec)
			}
			sc.Terms = make(map[string]int)
			byID[id] = len(out)
			ids = append(ids, id)
			out = append(out, sc)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, "SELECT chunk_id, term, tf FROM mcp_file_chunk_postings WHERE chunk_id = ANY($1)", ids)
		if err != nil {
			return err
		}
		var id int64
		var term string
		var tf int32
		_, err = pgx.ForEachRow(rows, []any{&id, &term, &tf}, func() error {
			out[byID[id]].Terms[term] = int(tf)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, backendError(ctx, "reading chunks", err)
	}
	return out, nil
}

// chunkColumns are the columns scanned by scanChunk, for a table aliased c.
const chunkColumns = "c.id, c.file_path, c.file_updated_at, c.file_updated_ns, c.chunk_index, c.start_byte, c.end_byte, c.content_hash"

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// sqlFetchChunks reads the chunks with the ids $1, without text (the index keeps none; see
// search.Index).
const sqlFetchChunks = "SELECT " + chunkColumns + " FROM mcp_file_chunks c WHERE c.id = ANY($1)"

// scanChunks reads sqlFetchChunks's rows (missing ids are skipped).
func scanChunks(rows pgx.Rows, n int) (map[int64]search.Candidate, error) {
	out := make(map[int64]search.Candidate, n)
	var id int64
	var c search.Candidate
	var at time.Time
	var ns, index int32
	_, err := pgx.ForEachRow(rows, []any{&id, &c.Path, &at, &ns, &index, &c.Chunk.StartByte, &c.Chunk.EndByte, &c.Chunk.ContentHash}, func() error {
		c.FileUpdatedAt, c.Chunk.Index = joinVersion(at, ns), int(index)
		out[id] = c
		return nil
	})
	return out, err
}

// fetchChunks reads the chunks with the given ids (missing ids are skipped).
func fetchChunks(ctx context.Context, db querier, ids []int64) (map[int64]search.Candidate, error) {
	rows, err := db.Query(ctx, sqlFetchChunks, ids)
	if err != nil {
		return nil, err
	}
	return scanChunks(rows, len(ids))
}
