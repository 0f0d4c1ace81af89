package pgindex

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// pathLockClass is the first key of the two-int4 pg_advisory_xact_lock that serialises index
// writes of one file. The two-key form lives in a different key space from the single bigint
// keys of fileio/pgstore, so the two packages never wait for each other.
const pathLockClass int32 = 0x5e4c_a7d1

// pathLockKey is the second key: 32 bits of SHA-256(tenant NUL project NUL path). A collision
// only makes two files' index writes wait for each other.
func pathLockKey(scope driver.Scope, path string) int32 {
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

// sqlLockVectors takes the lock every write of vectors takes anyway, first, so that every
// transaction that writes vectors and files rows locks the vector table before any file row,
// as Reembed's switch does (EXCLUSIVE on the table, then file rows): no cycle can form.
const sqlLockVectors = "LOCK TABLE mcp_search_vectors IN ROW EXCLUSIVE MODE"

// sqlCurrentFile reads the indexed state of a file: version, chunks, terms, and where its
// chunks are (pending, in a segment).
const sqlCurrentFile = `SELECT file_updated_at, file_updated_ns, chunk_count, total_terms,
       segment_id IS NULL AND chunk_count > 0 AND NOT legacy, segment_id, write_id
FROM mcp_search_files WHERE project_id = $1 AND file_path = $2 FOR UPDATE`

// sqlWriteFile stores the file's chunks and postings in pending form (see codec.go) under a new
// write id and upserts the file's row to name it: its old chunks, pending or in a segment, are
// no longer pointed at.
const sqlWriteFile = `WITH w AS (SELECT nextval('mcp_search_write_seq') AS id), p AS (
    INSERT INTO mcp_search_pending (write_id, project_id, data) SELECT w.id, $1, $9 FROM w WHERE $9::bytea IS NOT NULL
)
INSERT INTO mcp_search_files (project_id, file_path, file_updated_at, file_updated_ns,
    embedding_model, tokenizer, chunk_count, total_terms, indexed_at, segment_id, first_chunk, write_id, legacy)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, statement_timestamp(), NULL, NULL, w.id, false FROM w
ON CONFLICT (project_id, file_path) DO UPDATE SET
    file_updated_at = EXCLUDED.file_updated_at, file_updated_ns = EXCLUDED.file_updated_ns,
    embedding_model = EXCLUDED.embedding_model, tokenizer = EXCLUDED.tokenizer,
    chunk_count = EXCLUDED.chunk_count, total_terms = EXCLUDED.total_terms, indexed_at = EXCLUDED.indexed_at,
    segment_id = NULL, first_chunk = NULL, write_id = EXCLUDED.write_id, legacy = false,
    write_xact = pg_current_xact_id()`

const sqlDeletePending = "DELETE FROM mcp_search_pending WHERE write_id = $1"

// sqlLeaveSegment subtracts a file's chunks from the live chunks of the segment it leaves. It
// runs after the file's row is locked and before the project row, the order a merge takes them
// in (files rows, segments rows, project row).
const sqlLeaveSegment = "UPDATE mcp_search_segments SET live_chunks = live_chunks - $2 WHERE id = $1"

// sqlLockFile locks a file's row, so that what the next statements read of it (in their own,
// later snapshots: a segment a merge committed while this one waited is visible to them) stays
// true until the transaction ends.
const sqlLockFile = "SELECT 1 FROM mcp_search_files WHERE project_id = $1 AND file_path = $2 FOR UPDATE"

// sqlDeleteFileLeaveSegment subtracts the chunks of a file DeleteFile is about to delete from
// its segment's live chunks (see sqlLeaveSegment), after sqlLockFile.
const sqlDeleteFileLeaveSegment = `UPDATE mcp_search_segments g SET live_chunks = g.live_chunks - f.chunk_count
FROM mcp_search_files f WHERE f.project_id = $1 AND f.file_path = $2
    AND (f.file_updated_at, f.file_updated_ns) <= ($3::timestamptz, $4::int) AND g.id = f.segment_id`

// sqlAddStats moves the project's statistics and merge counters and bumps its generation. It
// runs after the file's row is written, so every writer locks a file row before the project row
// (as a merge does), and no two writers wait for each other in a cycle.
const sqlAddStats = `UPDATE mcp_search_projects
SET chunk_count = chunk_count + $2, total_terms = total_terms + $3, pending_chunks = pending_chunks + $4,
    dead_chunks = dead_chunks + $5, generation = generation + 1
WHERE id = $1 RETURNING pending_chunks, dead_chunks, chunk_count`

const (
	sqlDeleteVectors = "DELETE FROM mcp_search_vectors WHERE project_id = $1 AND file_path = $2"
	sqlInsertVectors = "INSERT INTO mcp_search_vectors (project_id, file_path, model, dims, vectors, codes) VALUES ($1, $2, $3, $4, $5, $6)"
	sqlDeleteServed  = "DELETE FROM mcp_search_served WHERE project_id = $1 AND file_path = $2"
	sqlDeleteTSV     = "DELETE FROM mcp_search_chunk_tsv WHERE project_id = $1 AND file_path = $2"
	sqlInsertTSV     = `INSERT INTO mcp_search_chunk_tsv (project_id, file_path, chunk_index, tsv)
SELECT $1, $2, t.idx - 1, to_tsvector('english', t.text) FROM unnest($3::text[]) WITH ORDINALITY AS t(text, idx)`
)

// sqlDeleteFile removes the file when its indexed version is not after ($3, $4), with its
// vectors, served marks and tsvectors, and moves the project's statistics and merge counters.
const sqlDeleteFile = `WITH f AS (
    DELETE FROM mcp_search_files WHERE project_id = $1 AND file_path = $2
        AND (file_updated_at, file_updated_ns) <= ($3::timestamptz, $4::int)
    RETURNING chunk_count, total_terms, segment_id IS NULL AND chunk_count > 0 AND NOT legacy AS pending,
              segment_id IS NOT NULL AS merged, write_id
), pd AS (
    DELETE FROM mcp_search_pending WHERE write_id IN (SELECT write_id FROM f)
), v AS (
    DELETE FROM mcp_search_vectors WHERE project_id = $1 AND file_path = $2 AND EXISTS (SELECT 1 FROM f)
), s AS (
    DELETE FROM mcp_search_served WHERE project_id = $1 AND file_path = $2 AND EXISTS (SELECT 1 FROM f)
), t AS (
    DELETE FROM mcp_search_chunk_tsv WHERE project_id = $1 AND file_path = $2 AND EXISTS (SELECT 1 FROM f)
)
UPDATE mcp_search_projects s SET chunk_count = s.chunk_count - f.chunk_count, total_terms = s.total_terms - f.total_terms,
    pending_chunks = s.pending_chunks - CASE WHEN f.pending THEN f.chunk_count ELSE 0 END,
    dead_chunks = s.dead_chunks + CASE WHEN f.merged THEN f.chunk_count ELSE 0 END,
    generation = s.generation + 1
FROM f WHERE s.id = $1 RETURNING s.pending_chunks, s.dead_chunks, s.chunk_count`

// ReplaceFile implements indexdriver.Index in one transaction: under a per-file advisory lock it
// writes the file's row with its chunks and postings in pending form, replaces its vectors, and
// adjusts the project's statistics, so a concurrent query sees all old chunks or all new ones.
// The old chunks stay where they were, dead, until a merge (see the package doc, "Storage");
// when the project's pending chunks reach Options.MergePendingChunks, the Index's merger is woken.
//
// Versions only move forward: when the index already holds a newer version of the file
// (another worker indexed a later write first), ReplaceFile leaves it and returns nil, so a
// slow worker cannot roll the index back. Replacing with the same version re-indexes.
func (ix *Index) ReplaceFile(ctx context.Context, scope driver.Scope, f indexdriver.IndexedFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dims, err := f.VectorDims()
	if err != nil {
		return err
	}
	return ix.replaceFile(ctx, scope, f, dims, false)
}

// replaceFile is ReplaceFile after the checks. keepVectors leaves the file's vector and tsvector
// rows as they are (the conversion of legacy files, whose vectors and tsvectors migration 0005
// moved already).
func (ix *Index) replaceFile(ctx context.Context, scope driver.Scope, f indexdriver.IndexedFile, dims int, keepVectors bool) error {
	pid, err := ix.projectID(ctx, scope, true)
	if err != nil {
		return backendError(ctx, "creating the project", err)
	}
	var pending []byte
	var newTerms int64
	for _, c := range f.Chunks {
		newTerms += int64(c.ChunkTerms)
	}
	if len(f.Chunks) > 0 {
		pending = encodePending(f.Chunks)
	}
	var vectors, codes []byte
	if dims > 0 && !keepVectors {
		vectors = make([]byte, 0, 4*dims*len(f.Chunks))
		for _, c := range f.Chunks {
			vectors = appendVector(vectors, c.Vector)
		}
		codes = encodeCodes(vectors, dims)
	}
	var texts []string
	if ix.lexical == LexicalTSVector {
		for _, c := range f.Chunks {
			texts = append(texts, encodeText(c.Text))
		}
	}
	version, versionNS := splitVersion(f.FileUpdatedAt)
	var counters mergeCounters
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlLockVectors)
		b.Queue(sqlLockPath, pathLockClass, pathLockKey(scope, f.Path))
		b.Queue(sqlCurrentFile, pid, f.Path)
		br := tx.SendBatch(ctx, b)
		for range 2 {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return err
			}
		}
		var oldAt time.Time
		var oldNS, oldChunks int32
		var oldTerms int64
		var oldPending bool
		var oldSegment *int64
		var oldWrite int64
		err := br.QueryRow().Scan(&oldAt, &oldNS, &oldChunks, &oldTerms, &oldPending, &oldSegment, &oldWrite)
		oldMerged := oldSegment != nil
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
		var pendingDelta, deadDelta int64 = int64(len(f.Chunks)), 0
		if oldPending {
			pendingDelta -= int64(oldChunks)
		}
		if oldMerged {
			deadDelta = int64(oldChunks)
		}
		b = &pgx.Batch{}
		b.Queue(sqlWriteFile, pid, f.Path, version, versionNS, f.EmbeddingModel, f.Tokenizer, len(f.Chunks), newTerms, pending)
		if oldPending {
			b.Queue(sqlDeletePending, oldWrite)
		}
		if oldMerged {
			b.Queue(sqlLeaveSegment, *oldSegment, int64(oldChunks))
		}
		if had && !keepVectors {
			b.Queue(sqlDeleteVectors, pid, f.Path)
		}
		if had {
			b.Queue(sqlDeleteServed, pid, f.Path)
		}
		if dims > 0 && !keepVectors {
			b.Queue(sqlInsertVectors, pid, f.Path, f.EmbeddingModel, int32(dims), vectors, codes)
		}
		if (ix.lexical == LexicalTSVector || had) && !keepVectors {
			b.Queue(sqlDeleteTSV, pid, f.Path)
		}
		if len(texts) > 0 {
			b.Queue(sqlInsertTSV, pid, f.Path, texts)
		}
		b.Queue(sqlAddStats, pid, int64(len(f.Chunks))-int64(oldChunks), newTerms-oldTerms, pendingDelta, deadDelta)
		br = tx.SendBatch(ctx, b)
		for range b.Len() - 1 {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return err
			}
		}
		if err := br.QueryRow().Scan(&counters.pending, &counters.dead, &counters.chunks); err != nil {
			br.Close()
			return err
		}
		return br.Close()
	})
	if errors.Is(err, errNewerIndexed) {
		ix.log.Debug("kept a newer indexed version", "path", f.Path)
		return nil
	}
	if err != nil {
		return backendError(ctx, "replacing a file's chunks", err)
	}
	ix.merger.wakeFor(pid, counters)
	return nil
}

// errNewerIndexed rolls back a ReplaceFile that would replace a newer version.
var errNewerIndexed = errors.New("a newer version is indexed")

// DeleteFile implements indexdriver.Index: when the indexed version is not after upTo, the file's
// row, vectors and served marks go in one transaction under the file's advisory lock (its chunks
// in a segment are dead from then on, and dropped by a later merge).
func (ix *Index) DeleteFile(ctx context.Context, scope driver.Scope, path string, upTo time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pid, err := ix.projectID(ctx, scope, false)
	if err != nil || pid == 0 {
		return backendError(ctx, "finding the project", err)
	}
	var counters mergeCounters
	deleted := false
	err = pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlLockVectors)
		b.Queue(sqlLockPath, pathLockClass, pathLockKey(scope, path))
		at, ns := splitVersion(upTo)
		b.Queue(sqlLockFile, pid, path)
		b.Queue(sqlDeleteFileLeaveSegment, pid, path, at, ns)
		b.Queue(sqlDeleteFile, pid, path, at, ns)
		br := tx.SendBatch(ctx, b)
		defer br.Close()
		for range 4 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		err := br.QueryRow().Scan(&counters.pending, &counters.dead, &counters.chunks)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // not indexed, or indexed at a newer version
		}
		deleted = err == nil
		return err
	})
	if err != nil {
		return backendError(ctx, "deleting a file's chunks", err)
	}
	if deleted {
		ix.merger.wakeFor(pid, counters)
	}
	return nil
}
