package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/jackc/pgx/v5"
)

// The optional fileio interfaces that let Service.Write check and write in two statements.
var (
	_ fileio.WriteChecker = (*writeTx)(nil)
	_ fileio.Appender     = (*writeTx)(nil)
)

// sqlCheckWrite answers fileio.WriteChecker in one statement, each part an index lookup on the
// active-path index:
//
//	a: the shortest ancestor directory ($4) that is an active file;
//	d: the first active path >= path + "/" ($5). Paths that start with a prefix form one
//	   contiguous range beginning at the prefix in bytewise order, so a descendant exists
//	   exactly when that first path starts with $5 — no upper bound needed;
//	e: the file at path, with its content only when $6;
//
// and the project's byte count. The outer LEFT JOIN returns one row whether or not e has one.
const sqlCheckWrite = `WITH a AS (
    SELECT path FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($4::text[])
    ORDER BY length(path) LIMIT 1
), d AS (
    SELECT path FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path >= $5
    ORDER BY path LIMIT 1
), e AS (
    SELECT size, created_at, updated_at, CASE WHEN $6::boolean THEN content END AS content
    FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
)
SELECT (SELECT path FROM a),
       COALESCE((SELECT starts_with(path, $5) FROM d), FALSE),
       e.size, e.created_at, e.updated_at, e.content,
       COALESCE((SELECT size_bytes FROM mcp_file_project_usage WHERE apikey_hash = $1 AND project = $2), 0)
FROM (VALUES (1)) AS one LEFT JOIN e ON TRUE`

// CheckWrite implements fileio.WriteChecker in one statement (see sqlCheckWrite).
func (tx *writeTx) CheckWrite(ctx context.Context, path string, wantContent bool) (fileio.WriteCheck, error) {
	sc := tx.x.scope
	var (
		check      fileio.WriteCheck
		ancestor   *string
		size       *int64
		created    *time.Time
		updated    *time.Time
		content    []byte
		rowScanned bool
	)
	args := []any{sc.Tenant, sc.Project, path, ancestorDirs(path), path + "/", wantContent}
	err := tx.x.query(ctx, opRead, sqlCheckWrite, args, func(r pgx.Rows) error {
		rowScanned = true
		return r.Scan(&ancestor, &check.HasDescendant, &size, &created, &updated, &content, &check.ProjectBytes)
	})
	if err != nil {
		return fileio.WriteCheck{}, err
	}
	if !rowScanned { // cannot happen: the statement always returns one row
		return fileio.WriteCheck{}, tx.x.s.storeError(ctx, opRead, sc, errNoRow)
	}
	if ancestor != nil {
		check.AncestorFile = *ancestor
	}
	if size != nil {
		f := &fileio.File{FileInfo: fileio.FileInfo{Path: path, SizeBytes: *size, CreatedAt: utc(created), UpdatedAt: utc(updated)}}
		if wantContent {
			f.Content = content
			if f.Content == nil {
				f.Content = []byte{}
			}
		}
		check.Existing = f
	}
	return check, nil
}

// errNoRow reports a statement that returned no row although its SQL always returns one.
var errNoRow = errors.New("pgstore: the write check returned no row")

// ancestorDirs returns the ancestor directories of path, shallowest first: "/a", "/a/b" for
// "/a/b/c" (every prefix that ends just before a "/" other than the leading one).
func ancestorDirs(path string) []string {
	dirs := []string{}
	for i := 1; i < len(path); i++ {
		if path[i] == '/' {
			dirs = append(dirs, path[:i])
		}
	}
	return dirs
}

// sqlAppend is sqlPut with content = content || $4: the existing content never leaves the
// server. The byte count grows by $5 = len($4) whether the file is new or not.
const sqlAppend = `WITH old AS (
    SELECT 1 FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
), f AS (
    INSERT INTO mcp_files AS f (apikey_hash, project, path, content, size, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, statement_timestamp(), statement_timestamp())
    ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
    SET content = f.content || EXCLUDED.content, size = f.size + EXCLUDED.size,
        updated_at = GREATEST(EXCLUDED.updated_at, f.updated_at + interval '1 microsecond')
    RETURNING f.size, f.created_at, f.updated_at
), u AS (
    INSERT INTO mcp_file_project_usage AS u (apikey_hash, project, size_bytes, file_count)
    VALUES ($1, $2, $5, CASE WHEN EXISTS (SELECT 1 FROM old) THEN 0 ELSE 1 END)
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET size_bytes = u.size_bytes + EXCLUDED.size_bytes, file_count = u.file_count + EXCLUDED.file_count
), ` + sqlUpsertJobCTE + `
SELECT size, created_at, updated_at FROM f`

// Append implements fileio.Appender in one statement (see sqlAppend).
func (tx *writeTx) Append(ctx context.Context, path string, data []byte, opts fileio.PutOptions) (fileio.FileInfo, error) {
	sc := tx.x.scope
	if data == nil {
		data = []byte{} // NOT NULL column; content || NULL would be NULL
	}
	fi := fileio.FileInfo{Path: path}
	err := tx.x.query(ctx, opWrite, sqlAppend, []any{sc.Tenant, sc.Project, path, data, int64(len(data)), opts.CredentialRef}, func(r pgx.Rows) error {
		return r.Scan(&fi.SizeBytes, &fi.CreatedAt, &fi.UpdatedAt)
	})
	if err != nil {
		return fileio.FileInfo{}, err
	}
	tx.x.enqueued = true
	fi.CreatedAt, fi.UpdatedAt = fi.CreatedAt.UTC(), fi.UpdatedAt.UTC()
	return fi, nil
}
