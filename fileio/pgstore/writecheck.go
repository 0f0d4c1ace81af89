package pgstore

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// The optional fileio interfaces that let Service.Write check and write in two statements.
var (
	_ driver.WriteChecker      = (*writeTx)(nil)
	_ driver.ConditionalWriter = (*writeTx)(nil)
)

// sqlConflictCTEs finds what makes a write to $3 a conflict, with index lookups only:
//
//	a: the shortest ancestor directory ($4) that is an active file; the ancestors are prefixes
//	   of one another, so the shortest is the bytewise smallest. Each is looked up in a LATERAL
//	   subquery that OFFSET 0 keeps from being flattened: writes run generic plans, and one made
//	   while the table was empty tested path = ANY($4) as a filter over every row of the project
//	   (an upload into a new project slowed down with every file it wrote: quadratic);
//	d: the first active path >= path + "/" ($5). Paths that start with a prefix form one
//	   contiguous range beginning at the prefix in bytewise order, so a file lies below path
//	   exactly when that first path starts with $5: no upper bound is needed.
const sqlConflictCTEs = `a AS (
    SELECT min(o.path) AS path FROM unnest($4::text[]) AS p(path), LATERAL (
        SELECT f.path FROM mcp_files f
        WHERE f.apikey_hash = $1 AND f.project = $2 AND f.deleted = FALSE AND f.path = p.path
        OFFSET 0) o
), d AS (
    SELECT path FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path >= $5
    ORDER BY path LIMIT 1
)`

// sqlProjectBytesExpr is the project's byte count: its active files and its kept versions.
const sqlProjectBytesExpr = `(COALESCE((SELECT size_bytes FROM mcp_file_project_usage WHERE apikey_hash = $1 AND project = $2), 0)
 + COALESCE((SELECT size_bytes FROM mcp_file_history_usage WHERE apikey_hash = $1 AND project = $2), 0))`

// sqlCheckWrite answers driver.WriteChecker in one statement: the conflicts, the file at $3
// (e, with its content only when $6) and the project's byte count. The LEFT JOIN returns one
// row whether or not e has one.
const sqlCheckWrite = `WITH ` + sqlConflictCTEs + `, e AS (
    SELECT size, created_at, updated_at, CASE WHEN $6::boolean THEN content END AS content
    FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
)
SELECT (SELECT path FROM a), COALESCE((SELECT starts_with(path, $5) FROM d), FALSE),
       e.size, e.created_at, e.updated_at, e.content, ` + sqlProjectBytesExpr + `
FROM (VALUES (1)) AS one LEFT JOIN e ON TRUE`

// CheckWrite implements driver.WriteChecker in one statement (see sqlCheckWrite).
func (tx *writeTx) CheckWrite(ctx context.Context, path string, wantContent bool) (driver.WriteCheck, error) {
	sc := tx.x.scope
	var (
		check      driver.WriteCheck
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
		return driver.WriteCheck{}, err
	}
	if !rowScanned { // cannot happen: the statement always returns one row
		return driver.WriteCheck{}, tx.x.s.storeError(ctx, opRead, sc, errNoRow)
	}
	if ancestor != nil {
		check.AncestorFile = *ancestor
	}
	if size != nil {
		f := &driver.File{FileInfo: driver.FileInfo{Path: path, SizeBytes: *size, CreatedAt: utc(created), UpdatedAt: utc(updated)}}
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
var errNoRow = errors.New("pgstore: a statement that always returns a row returned none")

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

// sqlWriteIfAllowed answers driver.ConditionalWriter in one statement. c is the state before
// the write (as sqlCheckWrite reports it, without content) and the new size; ok keeps c's row
// only when ConditionalWrite.Allows would; f, u and j are sqlPut's file, byte count and outbox
// upserts, run only for a row of ok, with content = content || $7 when appending ($9), returning
// the new content's SHA-256 (WriteResult.SHA256); the
// row leaves the trigram index (grep_indexed, migration 0008) until the indexer adds it again.
// With history on ($13 > 0 versions to keep, $14 the retention in microseconds) the statement
// does what the trigger of migration 0005 would, without a PL/pgSQL call: f numbers the row
// (the old version + 1, which keeps the triggers of 0006 from firing; a new file gets 1 and the
// insert trigger continues its path's numbering), hk copies the replaced row e into
// mcp_file_versions, hd drops the versions past the last $13 that no checkpoint pins (migration
// 0010) and hu counts the difference in
// mcp_file_history_usage. All CTEs see the snapshot before the write, as the trigger's OLD row.
// For Store.UpdateIfAllowed, which commits in the same round trip, the statement also checks
// the quota of UpdateOptions.Quota as a transaction's commit would (migration 0014): us is the
// project's usage before the write, and when f wrote, the final SELECT calls
// mcp_files_quota_guard with the usage after it, which q computes (the size change, the
// version hk kept less those hd dropped, and the event the write's trigger records) when a
// bound of the project is passed or the write creates a file (the tenant's bounds). The guard
// raises SQLSTATE AFQ01, which fails the whole statement (nothing it wrote is kept).
//
// Parameters: $1 tenant, $2 project, $3 path, $4 ancestors, $5 path + "/", $6 credential
// reference (as sqlUpsertJobCTE expects), $7 data, $8 its length, $9 append, $10 exclusive,
// $11 file limit, $12 project limit, $13 history versions, $14 history retention (µs), $15 to
// $18 the quota (project bytes and files, tenant files and projects; 0: no bound).
const sqlWriteIfAllowed = `WITH ` + sqlConflictCTEs + `, e AS (
    SELECT size, created_at, updated_at, version, CASE WHEN $13::bigint > 0 THEN content END AS content FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE
), us AS (
    SELECT * FROM mcp_files_usage($1, $2)
), c AS (
    SELECT (SELECT path FROM a) AS ancestor, COALESCE((SELECT starts_with(path, $5) FROM d), FALSE) AS below,
           e.size AS old_size, e.created_at AS old_created, e.updated_at AS old_updated, e.version AS old_version,
           us.bytes - us.events AS project_bytes, us.bytes AS usage_bytes, us.files AS usage_files, us.kept AS usage_kept,
           CASE WHEN $9::boolean THEN COALESCE(e.size, 0) + $8::bigint ELSE $8::bigint END AS new_size
    FROM us LEFT JOIN e ON TRUE
), ok AS (
    SELECT new_size, COALESCE(old_size, 0) AS old_size, old_size IS NULL AS created, old_version FROM c
    WHERE ancestor IS NULL AND NOT below AND NOT ($10::boolean AND old_size IS NOT NULL)
      AND new_size <= $11::bigint
      AND (new_size <= COALESCE(old_size, 0) OR project_bytes + new_size - COALESCE(old_size, 0) <= $12::bigint)
), f AS (
    INSERT INTO mcp_files AS f (apikey_hash, project, path, content, size, created_at, updated_at, version)
    SELECT $1, $2, $3, $7, $8, statement_timestamp(), statement_timestamp(),
           CASE WHEN $13::bigint > 0 AND NOT created THEN old_version + 1 ELSE 1 END FROM ok
    ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
    SET content = CASE WHEN $9::boolean THEN f.content || EXCLUDED.content ELSE EXCLUDED.content END,
        size = CASE WHEN $9::boolean THEN f.size + EXCLUDED.size ELSE EXCLUDED.size END,
        grep_indexed = FALSE,
        updated_at = GREATEST(EXCLUDED.updated_at, f.updated_at + interval '1 microsecond'),
        version = CASE WHEN $13::bigint > 0 THEN f.version + 1 ELSE f.version END
    RETURNING f.size, f.created_at, f.updated_at, encode(sha256(f.content), 'hex') AS sum
), hk AS (
    INSERT INTO mcp_file_versions
        (apikey_hash, project, path, version, content, size, created_at, written_at, replaced_at, deleted, purge_after)
    SELECT $1, $2, $3, e.version, e.content, e.size, e.created_at, e.updated_at, statement_timestamp(), FALSE,
           statement_timestamp() + $14::bigint * interval '1 microsecond'
    FROM e WHERE $13::bigint > 0 AND EXISTS (SELECT 1 FROM f)
    ON CONFLICT (apikey_hash, project, path, version) DO NOTHING
    RETURNING size
), hd AS (
    DELETE FROM mcp_file_versions v
    WHERE v.apikey_hash = $1 AND v.project = $2 AND v.path = $3
      AND v.version <= (SELECT e.version FROM e) - $13::bigint
      AND $13::bigint > 0 AND EXISTS (SELECT 1 FROM f)
      AND NOT mcp_file_version_pinned(v.apikey_hash, v.project, v.path, v.version)
    RETURNING v.size
), hu AS (
    INSERT INTO mcp_file_history_usage AS h (apikey_hash, project, size_bytes)
    SELECT $1, $2, COALESCE((SELECT sum(size) FROM hk), 0) - COALESCE((SELECT sum(size) FROM hd), 0)
    WHERE $13::bigint > 0 AND EXISTS (SELECT 1 FROM e) AND EXISTS (SELECT 1 FROM f)
    ON CONFLICT (apikey_hash, project) DO UPDATE SET size_bytes = h.size_bytes + EXCLUDED.size_bytes
), u AS (
    INSERT INTO mcp_file_project_usage AS u (apikey_hash, project, size_bytes, file_count)
    SELECT $1, $2, new_size - old_size, CASE WHEN created THEN 1 ELSE 0 END FROM ok
    WHERE EXISTS (SELECT 1 FROM f)
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET size_bytes = u.size_bytes + EXCLUDED.size_bytes, file_count = u.file_count + EXCLUDED.file_count
), ` + sqlUpsertJobCTE + `, q AS (
    SELECT c.usage_bytes AS bytes, (c.usage_bytes + f.size - COALESCE(c.old_size, 0)
               + COALESCE((SELECT sum(size) FROM hk), 0) - COALESCE((SELECT sum(size) FROM hd), 0)
               + octet_length($3) + ` + sqlEventOverhead + `)::bigint AS after_bytes,
           c.usage_files AS files, c.old_size IS NULL AS created, c.usage_files > 0 OR c.usage_kept > 0 AS counted
    FROM c, f
)
SELECT c.ancestor, c.below, c.old_size, c.old_created, c.old_updated, c.project_bytes,
       f.size, f.created_at, f.updated_at, f.sum,
       (SELECT CASE WHEN ($15::bigint > 0 AND after_bytes > $15::bigint AND after_bytes > bytes)
                      OR ($16::bigint > 0 AND created AND files + 1 > $16::bigint)
                      OR (created AND ($17::bigint > 0 OR $18::bigint > 0))
                THEN mcp_files_quota_guard($1, $2, bytes, after_bytes, files, files + CASE WHEN created THEN 1 ELSE 0 END,
                                           counted, TRUE, $15::bigint, $16::bigint, $17::bigint, $18::bigint) END
        FROM q)
FROM c LEFT JOIN f ON TRUE`

// sqlWriteIfAllowedNotify is sqlWriteIfAllowed that also announces the new job, as NOTIFY
// would, when it writes (for Store.UpdateIfAllowed, which commits in the same round trip). The
// lateral subquery runs for the one row of c and calls pg_notify only when f has a row.
const sqlWriteIfAllowedNotify = sqlWriteIfAllowed + `
LEFT JOIN LATERAL (SELECT pg_notify('` + jobsChannel + `', '') WHERE f.size IS NOT NULL) AS n ON TRUE`

// WriteIfAllowed implements driver.ConditionalWriter in one statement (see sqlWriteIfAllowed).
func (tx *writeTx) WriteIfAllowed(ctx context.Context, w driver.ConditionalWrite, opts driver.PutOptions) (driver.ConditionalResult, error) {
	// Inside an Update the quota is checked at commit (session.commitChecked), after the
	// Service has applied its rules to the Check: the statement leaves it alone.
	cw := newConditionalWrite(tx.x, w, opts, driver.Quota{})
	if err := tx.x.query(ctx, opWrite, sqlWriteIfAllowed, cw.args, cw.scan); err != nil {
		return driver.ConditionalResult{}, err
	}
	return cw.result(ctx, tx.x)
}

// conditionalWrite is one run of sqlWriteIfAllowed (or sqlWriteIfAllowedNotify): its arguments
// and the row it returns.
type conditionalWrite struct {
	path                string
	args                []any
	ancestor            *string
	oldSize, newSize    *int64
	oldCreated, created *time.Time
	oldUpdated, updated *time.Time
	sum                 *string
	res                 driver.ConditionalResult
	rowScanned          bool
	data                []byte // what is written (appended, with appends)
	appends             bool
}

// newConditionalWrite prepares a run of sqlWriteIfAllowed that checks quota in the statement
// (none: the zero Quota).
func newConditionalWrite(x *session, w driver.ConditionalWrite, opts driver.PutOptions, quota driver.Quota) *conditionalWrite {
	sc := x.scope
	data := w.Data
	if data == nil {
		data = []byte{} // NOT NULL column; content || NULL would be NULL
	}
	return &conditionalWrite{path: w.Path, data: data, appends: w.Append, args: []any{sc.Tenant, sc.Project, w.Path, ancestorDirs(w.Path), w.Path + "/", opts.CredentialRef,
		data, int64(len(data)), w.Append, w.Exclusive, w.MaxFileBytes, w.MaxProjectBytes,
		int64(max(x.opts.HistoryVersions, 0)), max(x.opts.HistoryRetention, 0).Microseconds(),
		quota.ProjectBytes, quota.ProjectFiles, quota.TenantFiles, quota.TenantProjects}}
}

func (cw *conditionalWrite) scan(r pgx.Rows) error {
	cw.rowScanned = true
	var guarded *bool // the quota guard's answer; a refusal is the statement's error
	return r.Scan(&cw.ancestor, &cw.res.Check.HasDescendant, &cw.oldSize, &cw.oldCreated, &cw.oldUpdated, &cw.res.Check.ProjectBytes,
		&cw.newSize, &cw.created, &cw.updated, &cw.sum, &guarded)
}

// result converts the scanned row; a write marks the session as having queued a job.
// cacheWritten keeps the content the write made for the grep cache: the data, or, for an
// append to a file whose previous version the cache holds, that version and the data.
func (cw *conditionalWrite) cacheWritten(x *session, res driver.ConditionalResult) {
	content := bytes.Clone(cw.data)
	if cw.appends && res.Check.Existing != nil {
		old, ok := x.s.grepCache.get(x.scope, res.Check.Existing.FileInfo)
		if !ok {
			return
		}
		content = append(old[:len(old):len(old)], cw.data...) // a new array: old is full
	}
	x.cacheWritten(cw.path, res.Info.UpdatedAt, content)
}

func (cw *conditionalWrite) result(ctx context.Context, x *session) (driver.ConditionalResult, error) {
	if !cw.rowScanned { // cannot happen: the statement always returns one row
		return driver.ConditionalResult{}, x.s.storeError(ctx, opWrite, x.scope, errNoRow)
	}
	res := cw.res
	if cw.ancestor != nil {
		res.Check.AncestorFile = *cw.ancestor
	}
	if cw.oldSize != nil {
		res.Check.Existing = &driver.File{FileInfo: driver.FileInfo{Path: cw.path, SizeBytes: *cw.oldSize, CreatedAt: utc(cw.oldCreated), UpdatedAt: utc(cw.oldUpdated)}}
	}
	if cw.newSize != nil {
		x.enqueued, x.wrote = true, true
		res.Written = true
		res.Info = driver.FileInfo{Path: cw.path, SizeBytes: *cw.newSize, CreatedAt: utc(cw.created), UpdatedAt: utc(cw.updated)}
		if cw.sum != nil {
			res.SHA256 = *cw.sum
		}
		cw.cacheWritten(x, res)
	}
	return res, nil
}
