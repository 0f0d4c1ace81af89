package pgstore

import (
	"bytes"
	"context"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// readTx implements driver.ReadTx over a session.
type readTx struct{ x *session }

// writeTx implements driver.WriteTx over a session that holds the project lock.
type writeTx struct{ readTx }

const sqlGet = `SELECT content, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE`

func (tx *readTx) Get(ctx context.Context, path string) (driver.File, error) {
	return tx.x.getFile(ctx, sqlGet, []any{tx.x.scope.Tenant, tx.x.scope.Project, path}, path, "no file at this path")
}

// getFile runs a statement that selects the content, size, created_at and updated_at of path
// (one row at most) and returns that file with UTC times and non-nil content, or NOT_FOUND
// with the message notFound when there is no row.
func (x *session) getFile(ctx context.Context, sql string, args []any, path, notFound string) (driver.File, error) {
	f := driver.File{FileInfo: driver.FileInfo{Path: path}}
	found := false
	err := x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		found = true
		return r.Scan(&f.Content, &f.SizeBytes, &f.CreatedAt, &f.UpdatedAt)
	})
	if err != nil {
		return driver.File{}, err
	}
	if !found {
		return driver.File{}, agentfiles.NewError(agentfiles.CodeNotFound, notFound, path)
	}
	f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
	if f.Content == nil {
		f.Content = []byte{}
	}
	return f, nil
}

const sqlStat = `SELECT size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE`

func (tx *readTx) Stat(ctx context.Context, path string) (driver.FileInfo, bool, error) {
	var fi driver.FileInfo
	found := false
	err := tx.x.query(ctx, opRead, sqlStat, []any{tx.x.scope.Tenant, tx.x.scope.Project, path}, func(r pgx.Rows) error {
		found = true
		return r.Scan(&fi.SizeBytes, &fi.CreatedAt, &fi.UpdatedAt)
	})
	if err != nil || !found {
		return driver.FileInfo{}, false, err
	}
	fi.Path = path
	fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
	return fi, true, nil
}

// The List statements scan the active-path index from the prefix to its upper bound (see
// prefixEnd) in path order; starts_with keeps the result exact when no bound exists. LIMIT NULL
// means no limit.
const (
	sqlListAll = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE
ORDER BY path LIMIT $3`
	sqlListFrom = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path >= $3 AND starts_with(path, $3)
ORDER BY path LIMIT $4`
	sqlListRange = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path >= $3 AND path < $4 AND starts_with(path, $3)
ORDER BY path LIMIT $5`
)

func (tx *readTx) List(ctx context.Context, prefix string, limit int) ([]driver.FileInfo, error) {
	var lim any // nil: LIMIT NULL, no limit
	if limit > 0 {
		lim = int64(limit)
	}
	sc := tx.x.scope
	var sql string
	var args []any
	switch end, bounded := prefixEnd(prefix); {
	case prefix == "":
		sql, args = sqlListAll, []any{sc.Tenant, sc.Project, lim}
	case bounded:
		sql, args = sqlListRange, []any{sc.Tenant, sc.Project, prefix, end, lim}
	default:
		sql, args = sqlListFrom, []any{sc.Tenant, sc.Project, prefix, lim}
	}
	var out []driver.FileInfo
	err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		out = append(out, fi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// prefixEnd returns the smallest valid UTF-8 string greater than every string that starts with
// prefix (bytewise order), and false when there is none. It replaces the last rune r by r+1:
// UTF-8 preserves code-point order bytewise and no encoding is a prefix of another, so
// prefix+anything < end, and any string >= prefix without that prefix is >= end. Runes that
// cannot be incremented (U+10FFFF) are dropped first; invalid UTF-8 has no bound.
func prefixEnd(prefix string) (string, bool) {
	if !utf8.ValidString(prefix) {
		return "", false
	}
	for p := prefix; p != ""; {
		r, n := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-n]
		switch {
		case r == utf8.MaxRune:
			continue
		case r == 0xD7FF: // skip the surrogate range, which UTF-8 cannot encode
			return p + string(rune(0xE000)), true
		default:
			return p + string(r+1), true
		}
	}
	return "", false
}

const sqlProjectBytes = `SELECT ` + sqlProjectBytesExpr

func (tx *readTx) ProjectBytes(ctx context.Context) (int64, error) {
	var n int64
	err := tx.x.query(ctx, opRead, sqlProjectBytes, []any{tx.x.scope.Tenant, tx.x.scope.Project}, func(r pgx.Rows) error {
		return r.Scan(&n)
	})
	return n, err
}

// sqlPut writes the file, the project's byte count and the outbox row in one statement; the
// row is left out of the trigram index (grep_indexed, migration 0008) until the indexer adds it. All
// parts see the same snapshot (old is the row before the write). statement_timestamp() is one
// value per statement, so a new file has CreatedAt == UpdatedAt; GREATEST keeps UpdatedAt
// strictly increasing per path even if the server clock steps back.
const sqlPut = `WITH old AS (
    SELECT size FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
), f AS (
    INSERT INTO mcp_files AS f (apikey_hash, project, path, content, size, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, statement_timestamp(), statement_timestamp())
    ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
    SET content = EXCLUDED.content, size = EXCLUDED.size, grep_indexed = FALSE,
        updated_at = GREATEST(EXCLUDED.updated_at, f.updated_at + interval '1 microsecond')
    RETURNING f.created_at, f.updated_at
), u AS (
    INSERT INTO mcp_file_project_usage AS u (apikey_hash, project, size_bytes, file_count)
    VALUES ($1, $2, $5 - COALESCE((SELECT size FROM old), 0),
            CASE WHEN EXISTS (SELECT 1 FROM old) THEN 0 ELSE 1 END)
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET size_bytes = u.size_bytes + EXCLUDED.size_bytes, file_count = u.file_count + EXCLUDED.file_count
), ` + sqlUpsertJobCTE + `
SELECT created_at, updated_at FROM f`

// Every statement that queues index jobs inserts them with sqlJobInsert, a SELECT of those
// columns, and sqlJobReplace: a new job replaces the pending job of its path (operation, file
// version, credential reference), is available at once with its retries, lease and last error
// reset, and increments the row's version.
const (
	sqlJobInsert = `INSERT INTO mcp_file_index_jobs AS j
        (apikey_hash, project, file_path, operation, file_updated_at, enqueued_at, available_at, credential_ref)`
	sqlJobReplace = `ON CONFLICT (apikey_hash, project, file_path) DO UPDATE
    SET operation = EXCLUDED.operation, file_updated_at = EXCLUDED.file_updated_at,
        enqueued_at = EXCLUDED.enqueued_at, available_at = EXCLUDED.available_at,
        credential_ref = EXCLUDED.credential_ref, retry_count = 0, claimed_until = NULL,
        last_error = '', version = j.version + 1, updated_at = EXCLUDED.enqueued_at`
)

// sqlUpsertJobCTE queues the UPSERT job of the row written by the CTE f (an INSERT … RETURNING
// updated_at) for path $3 with credential reference $6, replacing a pending job of the path.
const sqlUpsertJobCTE = `j AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, $3, 'UPSERT', f.updated_at, statement_timestamp(), statement_timestamp(), $6 FROM f
    ` + sqlJobReplace + `
)`

func (tx *writeTx) Put(ctx context.Context, path string, content []byte, opts driver.PutOptions) (driver.FileInfo, error) {
	sc := tx.x.scope
	if content == nil {
		content = []byte{} // NOT NULL column: an empty file has empty content
	}
	fi := driver.FileInfo{Path: path, SizeBytes: int64(len(content))}
	err := tx.x.query(ctx, opWrite, sqlPut, []any{sc.Tenant, sc.Project, path, content, fi.SizeBytes, opts.CredentialRef}, func(r pgx.Rows) error {
		return r.Scan(&fi.CreatedAt, &fi.UpdatedAt)
	})
	if err != nil {
		return driver.FileInfo{}, err
	}
	tx.x.enqueued, tx.x.wrote = true, true
	fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
	tx.x.cacheWritten(path, fi.UpdatedAt, bytes.Clone(content))
	return fi, nil
}

// sqlActiveRowIDs is the ids of the active files among $3: one probe of the active-path index
// per path, as a LATERAL subquery that OFFSET 0 keeps from being flattened. A statement that
// updates rows by path finds them with id = ANY(ARRAY(…this…)) and no other condition, which
// leaves the planner the primary key's index (a write transaction disables sequential scans,
// see Update; a condition on deleted would offer it the partial indexes on active rows, to
// read whole). The generic plan of path = ANY($3) — write transactions run generic plans, made
// once per connection, possibly while the table is empty — tested it as a filter over every
// row of the project instead: a Delete of a few files walked the whole project. An id, unlike
// a row address, is kept by an UPDATE: a row the grep indexer updates meanwhile (the only
// update a project's writer does not exclude) is waited for and rechecked in its new version,
// as with any condition.
const sqlActiveRowIDs = `SELECT l.id FROM unnest($3::text[]) AS p(path), LATERAL (
            SELECT f.id FROM mcp_files f
            WHERE f.apikey_hash = $1 AND f.project = $2 AND f.path = p.path AND f.deleted = FALSE
            OFFSET 0) l`

// sqlDelete soft-deletes the active files among $3, to be purged $4 microseconds later,
// subtracts them from the project's byte count and queues a DELETE job for each, in one
// statement. The rows are found by sqlActiveRowIDs.
const sqlDelete = `WITH d AS (
    UPDATE mcp_files SET deleted = TRUE, deleted_at = statement_timestamp(),
        purge_after = statement_timestamp() + $4 * interval '1 microsecond'
    WHERE id = ANY(ARRAY(` + sqlActiveRowIDs + `))
    RETURNING path, size
), u AS (
    UPDATE mcp_file_project_usage
    SET size_bytes = size_bytes - (SELECT COALESCE(sum(size), 0) FROM d),
        file_count = file_count - (SELECT count(*) FROM d)
    WHERE apikey_hash = $1 AND project = $2 AND EXISTS (SELECT 1 FROM d)
), j AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, d.path, 'DELETE', NULL, statement_timestamp(), statement_timestamp(), '' FROM d
    ` + sqlJobReplace + `
)
SELECT count(*) FROM d`

func (tx *writeTx) Delete(ctx context.Context, paths ...string) error {
	if len(paths) == 0 {
		return ctx.Err()
	}
	sc := tx.x.scope
	var n int64
	retention := max(tx.x.opts.DeleteRetention, 0).Microseconds()
	err := tx.x.query(ctx, opWrite, sqlDelete, []any{sc.Tenant, sc.Project, paths, retention}, func(r pgx.Rows) error {
		return r.Scan(&n)
	})
	if err != nil {
		return err
	}
	if n > 0 {
		tx.x.enqueued = true
	}
	return nil
}

// scanFileInfo scans a row of path, size, created_at and updated_at (the columns List,
// StatMany and Move select) into a FileInfo with UTC times.
func scanFileInfo(r pgx.Rows) (driver.FileInfo, error) {
	var fi driver.FileInfo
	if err := r.Scan(&fi.Path, &fi.SizeBytes, &fi.CreatedAt, &fi.UpdatedAt); err != nil {
		return driver.FileInfo{}, err
	}
	fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
	return fi, nil
}

// fileInfosByPath runs a statement whose rows scanFileInfo reads and returns them by path; n is
// the number of rows expected.
func (x *session) fileInfosByPath(ctx context.Context, op, sql string, args []any, n int) (map[string]driver.FileInfo, error) {
	out := make(map[string]driver.FileInfo, n)
	err := x.query(ctx, op, sql, args, func(r pgx.Rows) error {
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		out[fi.Path] = fi
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// utc converts a nullable timestamp to UTC, keeping the zero time for NULL.
func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

var _ driver.MultiStater = (*readTx)(nil)

// sqlStatMany looks each path up in a LATERAL subquery, one probe of the active-path index per
// path (see sqlActiveRowIDs for why not path = ANY($3)).
const sqlStatMany = `SELECT f.path, f.size, f.created_at, f.updated_at FROM unnest($3::text[]) AS p(path), LATERAL (
    SELECT path, size, created_at, updated_at FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = p.path AND deleted = FALSE
    OFFSET 0) f`

// StatMany implements driver.MultiStater with one statement (an index probe per path).
func (tx *readTx) StatMany(ctx context.Context, paths []string) (map[string]driver.FileInfo, error) {
	if len(paths) == 0 {
		return map[string]driver.FileInfo{}, ctx.Err()
	}
	return tx.x.fileInfosByPath(ctx, opRead, sqlStatMany, []any{tx.x.scope.Tenant, tx.x.scope.Project, paths}, len(paths))
}
