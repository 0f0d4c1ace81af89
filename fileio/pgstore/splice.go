package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

var _ driver.Splicer = (*writeTx)(nil)

// sqlLocate answers driver.Splicer.Locate inside the database: f detoasts the content once
// (the concatenation makes a plain value that the materialized CTE keeps), position() finds
// the needle $4 (twice at most), substring() cuts the window of $5 bytes either side, and the
// newlines before the window are counted on its escape encoding, which keeps newline bytes as
// they are. Only the window leaves the database, and only for a unique match (the Service
// needs the whole file to name the lines of several). position() on bytea compares the needle
// at every offset, so it costs up to size × length($4): above $7 it is not run, p1 is -1,
// and the content is not even read.
const sqlLocate = `WITH f AS MATERIALIZED (
    SELECT size, created_at, updated_at,
           CASE WHEN size::bigint * length($4::bytea) <= $7::bigint THEN content || ''::bytea END AS c
    FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
), g AS (
    SELECT size, created_at, updated_at, c, COALESCE(position($4::bytea IN c), -1) AS p1 FROM f
), h AS (
    SELECT *, CASE WHEN p1 > 0 THEN position($4::bytea IN substring(c FROM p1 + length($4::bytea))) ELSE 0 END AS p2,
           GREATEST(p1 - $5::bigint, 1) AS ws
    FROM g
)
SELECT size, created_at, updated_at,
       CASE WHEN $6::boolean THEN COALESCE(encode(sha256(c), 'hex'), '') ELSE '' END,
       p1, p2,
       CASE WHEN p1 > 0 AND p2 = 0 THEN substring(c FROM ws::int FOR (p1 - ws + length($4::bytea) + $5::bigint)::int) END,
       ws,
       CASE WHEN p1 > 0 AND p2 = 0 THEN (SELECT length(e) - length(replace(e, E'\n', ''))
                              FROM (SELECT encode(substring(c FOR (ws - 1)::int), 'escape') AS e) AS x) ELSE 0 END
FROM h`

// Locate implements driver.Splicer in one statement (see sqlLocate).
func (tx *writeTx) Locate(ctx context.Context, path string, needle []byte, radius, maxScan int64, wantSHA256 bool) (driver.Located, error) {
	sc := tx.x.scope
	loc := driver.Located{Info: driver.FileInfo{Path: path}}
	args := []any{sc.Tenant, sc.Project, path, needle, radius, wantSHA256, maxScan}
	err := tx.x.query(ctx, opWrite, sqlLocate, args, func(r pgx.Rows) error {
		var p1, p2, ws, newlines int64
		var window []byte
		if err := r.Scan(&loc.Info.SizeBytes, &loc.Info.CreatedAt, &loc.Info.UpdatedAt, &loc.SHA256, &p1, &p2, &window, &ws, &newlines); err != nil {
			return err
		}
		loc.Exists, loc.Searched = true, p1 >= 0
		loc.Info.CreatedAt, loc.Info.UpdatedAt = loc.Info.CreatedAt.UTC(), loc.Info.UpdatedAt.UTC()
		if p1 > 0 {
			first := p1 - 1
			loc.Matches = []int64{first}
			if p2 > 0 {
				loc.Matches = append(loc.Matches, first+int64(len(needle))+p2-1)
			}
			loc.Window, loc.WindowStart, loc.WindowLine = window, ws-1, int(newlines)+1
		}
		return nil
	})
	return loc, err
}

// sqlSplice replaces $7 bytes at offset $5 (0-based) of the file by $4 with overlay(), and
// keeps the byte count and the outbox as sqlPut does, leaving the row out of the trigram index
// as sqlPut does; the history trigger keeps the old content. Only the replacement travels.
const sqlSplice = `WITH old AS (
    SELECT size FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
), f AS (
    UPDATE mcp_files AS f
    SET content = overlay(content PLACING $4::bytea FROM ($5::bigint + 1)::int FOR $7::int),
        size = size - $7::bigint + length($4::bytea),
        grep_indexed = FALSE,
        updated_at = GREATEST(statement_timestamp(), f.updated_at + interval '1 microsecond')
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
    RETURNING f.size, f.created_at, f.updated_at, encode(sha256(f.content), 'hex') AS sum
), u AS (
    UPDATE mcp_file_project_usage
    SET size_bytes = size_bytes + (SELECT size FROM f) - (SELECT size FROM old)
    WHERE apikey_hash = $1 AND project = $2 AND EXISTS (SELECT 1 FROM f)
), ` + sqlUpsertJobCTE + `
SELECT size, created_at, updated_at, sum FROM f`

// sqlSpliceDry is sqlSplice's size and SHA-256 without the write.
const sqlSpliceDry = `SELECT size - $7::bigint + length($4::bytea), created_at,
       encode(sha256(overlay(content PLACING $4::bytea FROM ($5::bigint + 1)::int FOR $7::int)), 'hex')
FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE AND $6::text IS NOT NULL`

// Splice implements driver.Splicer in one statement (see sqlSplice).
func (tx *writeTx) Splice(ctx context.Context, path string, offset, length int64, data []byte, dryRun bool, opts driver.PutOptions) (driver.FileInfo, string, error) {
	sc := tx.x.scope
	if data == nil {
		data = []byte{}
	}
	fi := driver.FileInfo{Path: path}
	var sum string
	found := false
	args := []any{sc.Tenant, sc.Project, path, data, offset, opts.CredentialRef, length}
	var err error
	if dryRun {
		err = tx.x.query(ctx, opRead, sqlSpliceDry, args, func(r pgx.Rows) error {
			found = true
			return r.Scan(&fi.SizeBytes, &fi.CreatedAt, &sum)
		})
	} else {
		err = tx.x.query(ctx, opWrite, sqlSplice, args, func(r pgx.Rows) error {
			found = true
			return r.Scan(&fi.SizeBytes, &fi.CreatedAt, &fi.UpdatedAt, &sum)
		})
	}
	if err != nil {
		return driver.FileInfo{}, "", err
	}
	if !found {
		return driver.FileInfo{}, "", agentfiles.NewError(agentfiles.CodeNotFound, "no file at this path", path)
	}
	if !dryRun {
		tx.x.enqueued, tx.x.wrote = true, true
	}
	fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
	return fi, sum, nil
}
