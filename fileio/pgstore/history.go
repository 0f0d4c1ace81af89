package pgstore

import (
	"context"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// The history (migration 0005) and the one-statement rename.
var (
	_ driver.Historian = (*readTx)(nil)
	_ driver.Mover     = (*writeTx)(nil)
)

// sqlVersions lists the active version and the kept ones of $3, newest first.
const sqlVersions = `SELECT version, size, encode(sha256(content), 'hex'), updated_at, NULL::timestamptz, TRUE, FALSE
FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
UNION ALL
SELECT version, size, encode(sha256(content), 'hex'), written_at, replaced_at, FALSE, deleted
FROM mcp_file_versions
WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND purge_after > statement_timestamp()
ORDER BY 1 DESC, 6 DESC`

// Versions implements driver.Historian.
func (tx *readTx) Versions(ctx context.Context, path string) ([]driver.VersionInfo, error) {
	var out []driver.VersionInfo
	err := tx.x.query(ctx, opRead, sqlVersions, []any{tx.x.scope.Tenant, tx.x.scope.Project, path}, func(r pgx.Rows) error {
		var v driver.VersionInfo
		var replaced *time.Time
		if err := r.Scan(&v.Version, &v.SizeBytes, &v.SHA256, &v.WrittenAt, &replaced, &v.Current, &v.Deleted); err != nil {
			return err
		}
		v.WrittenAt, v.ReplacedAt = v.WrittenAt.UTC(), utc(replaced)
		out = append(out, v)
		return nil
	})
	return out, err
}

// sqlGetVersion returns version $4 of $3, active or kept.
const sqlGetVersion = `SELECT content, size, created_at, updated_at
FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE AND version = $4
UNION ALL
SELECT content, size, created_at, written_at FROM mcp_file_versions
WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND version = $4 AND purge_after > statement_timestamp()
LIMIT 1`

// GetVersion implements driver.Historian.
func (tx *readTx) GetVersion(ctx context.Context, path string, version int64) (driver.File, error) {
	return tx.x.getFile(ctx, sqlGetVersion, []any{tx.x.scope.Tenant, tx.x.scope.Project, path, version}, path, "no such version")
}

// sqlMove moves the active files $3[i] to $4[i] in one statement: it soft-deletes the old rows
// (found by sqlActiveRowIDs, one index probe each; a join with the unnested pairs would let
// it scan the project per pair)
// (purged $5 microseconds later; the history trigger keeps their content as a version),
// inserts their content at the new paths without it leaving the database, and queues a
// DELETE job per old path and an UPSERT job (credential reference $6[i]) per new one. The
// project's byte count does not change.
const sqlMove = `WITH m AS (
    SELECT * FROM unnest($3::text[], $4::text[], $6::text[]) AS m(from_path, to_path, credential_ref)
), d AS (
    UPDATE mcp_files AS f SET deleted = TRUE, deleted_at = statement_timestamp(),
        purge_after = statement_timestamp() + $5 * interval '1 microsecond'
    WHERE f.id = ANY(ARRAY(` + sqlActiveRowIDs + `))
    RETURNING f.path AS from_path, f.content, f.size
), i AS (
    INSERT INTO mcp_files (apikey_hash, project, path, content, size, created_at, updated_at)
    SELECT $1, $2, m.to_path, d.content, d.size, statement_timestamp(), statement_timestamp()
    FROM d JOIN m ON m.from_path = d.from_path
    RETURNING path, size, created_at, updated_at
), jd AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, d.from_path, 'DELETE', NULL, statement_timestamp(), statement_timestamp(), '' FROM d
    ` + sqlJobReplace + `
), ju AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, i.path, 'UPSERT', i.updated_at, statement_timestamp(), statement_timestamp(), m.credential_ref
    FROM i JOIN m ON m.to_path = i.path
    ` + sqlJobReplace + `
)
SELECT path, size, created_at, updated_at FROM i`

// Move implements driver.Mover in one statement (see sqlMove).
func (tx *writeTx) Move(ctx context.Context, moves []driver.Move) ([]driver.FileInfo, error) {
	if len(moves) == 0 {
		return nil, ctx.Err()
	}
	sc := tx.x.scope
	from, to, creds := make([]string, len(moves)), make([]string, len(moves)), make([]string, len(moves))
	for i, m := range moves {
		from[i], to[i], creds[i] = m.From, m.To, m.CredentialRef
	}
	retention := max(tx.x.opts.DeleteRetention, 0).Microseconds()
	byPath, err := tx.x.fileInfosByPath(ctx, opWrite, sqlMove, []any{sc.Tenant, sc.Project, from, to, retention, creds}, len(moves))
	if err != nil {
		return nil, err
	}
	tx.x.enqueued, tx.x.wrote = true, true
	out := make([]driver.FileInfo, len(moves))
	for i, m := range moves {
		out[i] = byPath[m.To]
	}
	return out, nil
}

// sqlPurgeVersions removes up to $1 kept versions whose retention has run out and that no
// checkpoint pins, and takes their bytes off their projects' history usage.
const sqlPurgeVersions = `WITH d AS (
    DELETE FROM mcp_file_versions WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM mcp_file_versions v WHERE purge_after <= statement_timestamp()
            AND NOT mcp_file_version_pinned(v.apikey_hash, v.project, v.path, v.version) LIMIT $1))
    RETURNING apikey_hash, project, size
), s AS (
    SELECT apikey_hash, project, sum(size) AS n FROM d GROUP BY apikey_hash, project
), u AS (
    UPDATE mcp_file_history_usage AS h SET size_bytes = h.size_bytes - s.n
    FROM s WHERE h.apikey_hash = s.apikey_hash AND h.project = s.project
)
SELECT count(*) FROM d`
