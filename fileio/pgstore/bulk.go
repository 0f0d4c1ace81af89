package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

var _ driver.BulkWriter = (*writeTx)(nil)

// sqlPutMany is sqlPut for a batch of files given as arrays ($3 paths, $4 contents, $5
// credential references): one statement writes them, the project's byte count and their index
// jobs. New rows are written with grep_indexed = $6: TRUE, unless the caller defers indexing,
// makes PostgreSQL add them to the trigram index in this statement (pg_trgm's trigram
// extraction is most of the statement's cost), so a grep right after the import reads the index
// instead of the files. A replaced row that was indexed is unindexed by migration 0008's trigger
// and reindexed by the background indexer, as after any write.
const sqlPutMany = `WITH s AS (
    SELECT * FROM unnest($3::text[], $4::bytea[], $5::text[]) AS s(path, content, ref)
), old AS (
    SELECT f.path, f.size FROM mcp_files f JOIN s ON f.path = s.path
    WHERE f.apikey_hash = $1 AND f.project = $2 AND f.deleted = FALSE
), f AS (
    INSERT INTO mcp_files AS f (apikey_hash, project, path, content, size, created_at, updated_at, grep_indexed)
    SELECT $1, $2, s.path, s.content, octet_length(s.content), statement_timestamp(), statement_timestamp(), $6 FROM s
    ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
    SET content = EXCLUDED.content, size = EXCLUDED.size, grep_indexed = $6,
        updated_at = GREATEST(EXCLUDED.updated_at, f.updated_at + interval '1 microsecond')
    RETURNING f.path, f.updated_at
), u AS (
    INSERT INTO mcp_file_project_usage AS u (apikey_hash, project, size_bytes, file_count)
    VALUES ($1, $2, (SELECT COALESCE(sum(octet_length(content)), 0) FROM s) - (SELECT COALESCE(sum(size), 0) FROM old),
            (SELECT count(*) FROM s) - (SELECT count(*) FROM old))
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET size_bytes = u.size_bytes + EXCLUDED.size_bytes, file_count = u.file_count + EXCLUDED.file_count
), j AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, f.path, 'UPSERT', f.updated_at, statement_timestamp(), statement_timestamp(), s.ref FROM f JOIN s ON s.path = f.path
    ` + sqlJobReplace + `
)
SELECT count(*) FROM f`

// PutMany implements driver.BulkWriter with one statement per call (sqlPutMany): the files
// travel as three array parameters in PostgreSQL's binary format.
func (tx *writeTx) PutMany(ctx context.Context, files []driver.File, opts driver.BulkOptions) error {
	if len(files) == 0 {
		return ctx.Err()
	}
	sc := tx.x.scope
	paths := make([]string, len(files))
	contents := make([][]byte, len(files))
	refs := opts.Refs
	if refs == nil {
		refs = make([]string, len(files))
	}
	for i, f := range files {
		paths[i], contents[i] = f.Path, f.Content
		if contents[i] == nil {
			contents[i] = []byte{} // NOT NULL column
		}
	}
	var n int64
	err := tx.x.query(ctx, opWrite, sqlPutMany, []any{sc.Tenant, sc.Project, paths, contents, refs, !opts.DeferIndex}, func(r pgx.Rows) error {
		return r.Scan(&n)
	})
	if err == nil {
		tx.x.enqueued = true
	}
	return err
}
