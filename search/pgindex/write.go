package pgindex

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
)

// pathLockClass is the first key of the two-int4 pg_advisory_xact_lock that serialises index
// writes of one file. The two-key form lives in a different key space from the single bigint
// keys of fileio/pgstore, so the two packages never wait for each other.
const pathLockClass int32 = 0x5e4c_a7d1

// pathLockKey is the second key: 32 bits of SHA-256(tenant NUL project NUL path). A collision
// only makes two files' index writes wait for each other.
func pathLockKey(scope fileio.Scope, path string) int32 {
	h := sha256.New()
	h.Write([]byte(scope.Tenant))
	h.Write([]byte{0})
	h.Write([]byte(scope.Project))
	h.Write([]byte{0})
	h.Write([]byte(path))
	return int32(binary.BigEndian.Uint32(h.Sum(nil)[:4]))
}

// splitVersion stores a file version as TIMESTAMPTZ (microseconds) plus the nanoseconds below.
func splitVersion(t time.Time) (time.Time, int32) {
	us := t.Truncate(time.Microsecond)
	return us, int32(t.Sub(us))
}

// joinVersion is the inverse of splitVersion, in UTC.
func joinVersion(us time.Time, ns int32) time.Time {
	return us.Add(time.Duration(ns)).UTC()
}

const sqlLockPath = "SELECT pg_advisory_xact_lock($1::int4, $2::int4)"

const sqlCurrentFile = `SELECT file_updated_at, file_updated_ns, chunk_count, total_terms
FROM mcp_search_files WHERE project_id = $1 AND file_path = $2`

const sqlDeleteChunks = `WITH old AS (
    DELETE FROM mcp_file_chunks WHERE project_id = $1 AND file_path = $2 RETURNING id
)
DELETE FROM mcp_file_chunk_postings WHERE chunk_id IN (SELECT id FROM old)`

// sqlInsertChunks inserts the chunks (ids in chunk order), their postings and their vectors in
// one statement. The embeddings CTE differs with pgvector (see sqlInsertChunksVector).
//
// The chunk's text is not stored (see migration 0004): $8 is NULL, or in LexicalTSVector mode
// the chunks' texts (escaped, see text.go), of which only the tsvector is kept.
const sqlInsertChunksHead = `WITH c AS (
    INSERT INTO mcp_file_chunks (project_id, file_path, file_updated_at, file_updated_ns,
                                 chunk_index, start_byte, end_byte, content_hash, chunk_terms, chunk_tsv)
    SELECT $1, $2, $3, $4, t.idx, t.sb, t.eb, t.h, t.n,
           CASE WHEN $8::text[] IS NOT NULL THEN to_tsvector('english', ($8::text[])[t.idx + 1]) END
    FROM unnest($5::int[], $6::bigint[], $7::bigint[], $9::text[], $10::int[]) AS t(idx, sb, eb, h, n)
    ORDER BY t.idx
    RETURNING id, chunk_index, chunk_terms
), p AS (
    INSERT INTO mcp_file_chunk_postings (project_id, term, chunk_id, tf, chunk_terms, file_path)
    SELECT $1, u.term, c.id, u.tf, c.chunk_terms, $2
    FROM unnest($11::int[], $12::text[], $13::int[]) AS u(idx, term, tf) JOIN c ON c.chunk_index = u.idx
)
`

const sqlInsertEmbeddings = `INSERT INTO mcp_file_chunk_embeddings (chunk_id, project_id, file_path, chunk_index, model, dims, embedding)
SELECT c.id, $1, $2, c.chunk_index, $14, $15, v.vec
FROM unnest($16::int[], $17::bytea[]) AS v(idx, vec) JOIN c ON c.chunk_index = v.idx`

const sqlInsertEmbeddingsVector = `INSERT INTO mcp_file_chunk_embeddings (chunk_id, project_id, file_path, chunk_index, model, dims, embedding, embedding_vec)
SELECT c.id, $1, $2, c.chunk_index, $14, $15, v.vec, v.lit::vector
FROM unnest($16::int[], $17::bytea[], $18::text[]) AS v(idx, vec, lit) JOIN c ON c.chunk_index = v.idx`

const sqlUpsertFile = `INSERT INTO mcp_search_files (project_id, file_path, file_updated_at, file_updated_ns,
    embedding_model, tokenizer, chunk_count, total_terms, indexed_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, statement_timestamp())
ON CONFLICT (project_id, file_path) DO UPDATE SET
    file_updated_at = EXCLUDED.file_updated_at, file_updated_ns = EXCLUDED.file_updated_ns,
    embedding_model = EXCLUDED.embedding_model, tokenizer = EXCLUDED.tokenizer,
    chunk_count = EXCLUDED.chunk_count, total_terms = EXCLUDED.total_terms, indexed_at = EXCLUDED.indexed_at`

const sqlAddStats = `UPDATE mcp_search_projects
SET chunk_count = chunk_count + $2, total_terms = total_terms + $3, generation = generation + 1 WHERE id = $1`

// sqlDeleteFile removes the file when its indexed version is not after ($3, $4).
const sqlDeleteFile = `WITH f AS (
    DELETE FROM mcp_search_files WHERE project_id = $1 AND file_path = $2
        AND (file_updated_at, file_updated_ns) <= ($3::timestamptz, $4::int)
    RETURNING chunk_count, total_terms
), c AS (
    DELETE FROM mcp_file_chunks WHERE project_id = $1 AND file_path = $2 AND EXISTS (SELECT 1 FROM f) RETURNING id
), p AS (
    DELETE FROM mcp_file_chunk_postings WHERE chunk_id IN (SELECT id FROM c)
)
UPDATE mcp_search_projects s SET chunk_count = s.chunk_count - f.chunk_count, total_terms = s.total_terms - f.total_terms,
    generation = s.generation + 1
FROM f WHERE s.id = $1`

// ReplaceFile implements search.Index in one transaction: under a per-file advisory lock it
// removes the file's chunks, postings and vectors, inserts the new ones, and adjusts the
// project's statistics, so a concurrent query sees all old chunks or all new ones.
//
// Versions only move forward: when the index already holds a newer version of the file
// (another worker indexed a later write first), ReplaceFile leaves it and returns nil, so a
// slow worker cannot roll the index back. Replacing with the same version re-indexes.
func (ix *Index) ReplaceFile(ctx context.Context, scope fileio.Scope, f search.IndexedFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dims, err := f.VectorDims()
	if err != nil {
		return err
	}
	pid, err := ix.projectID(ctx, scope, true)
	if err != nil {
		return backendError(ctx, "creating the project", err)
	}
	args := ix.insertArgs(pid, f, dims)
	var newTerms int64
	for _, c := range f.Chunks {
		newTerms += int64(c.ChunkTerms)
	}
	version, versionNS := splitVersion(f.FileUpdatedAt)
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlLockPath, pathLockClass, pathLockKey(scope, f.Path))
		b.Queue(sqlCurrentFile, pid, f.Path)
		br := tx.SendBatch(ctx, b)
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
		var oldAt time.Time
		var oldNS, oldChunks int32
		var oldTerms int64
		err := br.QueryRow().Scan(&oldAt, &oldNS, &oldChunks, &oldTerms)
		had := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			br.Close()
			return err
		}
		if err := br.Close(); err != nil {
			return err
		}
		if had && joinVersion(oldAt, oldNS).After(f.FileUpdatedAt) {
			return errNewerIndexed
		}
		b = &pgx.Batch{}
		if had {
			b.Queue(sqlDeleteChunks, pid, f.Path)
		}
		if len(f.Chunks) > 0 {
			b.Queue(ix.insertSQL(dims), args...)
		}
		b.Queue(sqlUpsertFile, pid, f.Path, version, versionNS, f.EmbeddingModel, f.Tokenizer, len(f.Chunks), newTerms)
		b.Queue(sqlAddStats, pid, int64(len(f.Chunks))-int64(oldChunks), newTerms-oldTerms)
		return tx.SendBatch(ctx, b).Close()
	})
	if errors.Is(err, errNewerIndexed) {
		ix.log.Debug("kept a newer indexed version", "path", f.Path)
		return nil
	}
	return backendError(ctx, "replacing a file's chunks", err)
}

// errNewerIndexed rolls back a ReplaceFile that would replace a newer version.
var errNewerIndexed = errors.New("a newer version is indexed")

func (ix *Index) insertSQL(dims int) string {
	if dims > 0 && ix.pgvector {
		return sqlInsertChunksHead + sqlInsertEmbeddingsVector
	}
	if dims > 0 {
		return sqlInsertChunksHead + sqlInsertEmbeddings
	}
	return sqlInsertChunksHead + "SELECT count(*) FROM c"
}

// insertArgs builds the array parameters of the insert statement.
func (ix *Index) insertArgs(pid int64, f search.IndexedFile, dims int) []any {
	n := len(f.Chunks)
	idx, terms := make([]int32, n), make([]int32, n)
	starts, ends := make([]int64, n), make([]int64, n)
	hashes := make([]string, n)
	var texts []string // NULL: no tsvector
	if ix.lexical == LexicalTSVector {
		texts = make([]string, n)
	}
	var pIdx, pTF []int32
	var pTerm []string
	for i, c := range f.Chunks {
		idx[i], starts[i], ends[i], hashes[i], terms[i] = int32(i), c.StartByte, c.EndByte, c.ContentHash, int32(c.ChunkTerms)
		if texts != nil {
			texts[i] = encodeText(c.Text)
		}
		for t, tf := range c.Terms {
			pIdx, pTerm, pTF = append(pIdx, int32(i)), append(pTerm, t), append(pTF, int32(tf))
		}
	}
	version, versionNS := splitVersion(f.FileUpdatedAt)
	args := []any{pid, f.Path, version, versionNS,
		idx, starts, ends, texts, hashes, terms, pIdx, pTerm, pTF}
	if dims > 0 {
		vecs := make([][]byte, n)
		for i, c := range f.Chunks {
			vecs[i] = encodeVector(c.Vector)
		}
		args = append(args, f.EmbeddingModel, int32(dims), idx, vecs)
		if ix.pgvector {
			lits := make([]string, n)
			for i, c := range f.Chunks {
				lits[i] = vectorLiteral(c.Vector)
			}
			args = append(args, lits)
		}
	}
	return args
}

// DeleteFile implements search.Index: when the indexed version is not after upTo, the file's
// chunks, postings, vectors and state go in one transaction under the file's advisory lock.
func (ix *Index) DeleteFile(ctx context.Context, scope fileio.Scope, path string, upTo time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return backendError(ctx, "finding the project", err)
	}
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlLockPath, pathLockClass, pathLockKey(scope, path))
		at, ns := splitVersion(upTo)
		b.Queue(sqlDeleteFile, pid, path, at, ns)
		return tx.SendBatch(ctx, b).Close()
	})
	return backendError(ctx, "deleting a file's chunks", err)
}
