package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// A batch of PutMany whose paths are all new to the project — every batch of an import into a
// new project or directory, the files a rewind brings back — is written with COPY rather than
// with sqlPutMany: COPY takes the rows as a stream, without the statement's unnest, the
// materialized contents, the speculative insertion ON CONFLICT needs and the joins with the
// inserted rows, which made a 30,000-file import take about 15% longer (BENCHMARKS.md). It runs
// in three steps, the first two waited for, the third pipelined as sqlPutMany is:
//
//  1. sqlBulkProbe looks each path up (one probe of the active-path index per path, as
//     sqlPutMany's old does), numbers the new versions as sqlPutMany does, sets the bulk
//     settings and answers the statement's timestamp, which the rows take as created_at and
//     updated_at. When a path exists, PutMany sends sqlPutMany instead.
//  2. COPY inserts the rows (binary format; the INSERT triggers stand aside under
//     agentfiles.bulk_insert, the check constraint passes text Go verified).
//  3. sqlBulkAfterCopy does the rest of sqlPutMany for the new rows: the project's byte and file
//     counts, the index jobs, the feed head and the "created" events, and clears the settings.
//
// The paths cannot appear between 1 and 2: the write transaction holds the project's lock,
// which every writer of the project takes first.

// sqlBulkProbe: $3 the batch's paths, $4 agentfiles.text_checked. It answers the statement
// timestamp, whether a path has an active file, and the version of each new row when the
// transaction keeps history (the path's newest kept version + 1; NULL without history: 1).
const sqlBulkProbe = `WITH p AS (
    SELECT u.path, u.n FROM unnest($3::text[]) WITH ORDINALITY AS u(path, n)
)
SELECT statement_timestamp(),
    set_config('agentfiles.bulk_insert', 'on', true) || set_config('agentfiles.text_checked', $4, true),
    EXISTS (SELECT 1 FROM p, LATERAL (
        SELECT 1 FROM mcp_files f
        WHERE f.apikey_hash = $1 AND f.project = $2 AND f.path = p.path AND f.deleted = FALSE
        OFFSET 0) o),
    CASE WHEN COALESCE(NULLIF(current_setting('agentfiles.history_versions', true), '')::bigint, 0) > 0
    THEN ARRAY(SELECT COALESCE(v.version, 0) + 1 FROM p LEFT JOIN LATERAL (
        SELECT max(v.version) AS version FROM mcp_file_versions v
        WHERE v.apikey_hash = $1 AND v.project = $2 AND v.path = p.path
        OFFSET 0) v ON TRUE ORDER BY p.n) END`

// bulkColumns are the columns the COPY of step 2 writes, in its rows' order.
var bulkColumns = []string{"apikey_hash", "project", "path", "content", "size", "created_at", "updated_at", "grep_indexed", "version"}

// sqlBulkAfterCopy: $3 paths, $4 sizes, $5 versions, $6 credential references, $7 SHA-256 sums
// of the rows the COPY wrote, $8 their updated_at. The events and the feed head are those of
// sqlPutMany's created rows.
const sqlBulkAfterCopy = `WITH s AS (
    SELECT * FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[]) AS s(path, size, version, ref, sha256)
), u AS (
    INSERT INTO mcp_file_project_usage AS u (apikey_hash, project, size_bytes, file_count)
    SELECT $1, $2, sum(size), count(*) FROM s
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET size_bytes = u.size_bytes + EXCLUDED.size_bytes, file_count = u.file_count + EXCLUDED.file_count
), j AS (
    ` + sqlJobInsert + `
    SELECT $1, $2, s.path, 'UPSERT', $8, statement_timestamp(), statement_timestamp(), s.ref FROM s
    ` + sqlJobReplace + `
), h AS (
    INSERT INTO mcp_file_feed_heads AS h (apikey_hash, project, last_position, event_bytes)
    SELECT $1, $2, count(*), sum(octet_length(path) + ` + sqlEventOverhead + `) FROM s
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET last_position = h.last_position + EXCLUDED.last_position, event_bytes = h.event_bytes + EXCLUDED.event_bytes
    RETURNING h.last_position
), e AS (
    INSERT INTO mcp_file_events
        (apikey_hash, project, position, path, kind, version, prev_version, sha256, size, at, purge_after)
    SELECT $1, $2, h.last_position - (SELECT count(*) FROM s) + row_number() OVER (ORDER BY s.path), s.path, 'created',
           s.version, 0, s.sha256, s.size, $8, $8 + ` + sqlEventRetention + `
    FROM s, h
)
SELECT set_config('agentfiles.bulk_insert', '', true), set_config('agentfiles.text_checked', '', true)`

// putNew is steps 1–3 for a batch of PutMany (contents[starts[i]-1:][:sizes[i]] is file i's;
// hashes brings their SHA-256 sums, computed meanwhile, for step 3).
// It reports handled = false, having written nothing, when a path of the batch has an active
// file.
func (tx *writeTx) putNew(ctx context.Context, paths, refs []string, hashes <-chan []string, textChecked string, contents []byte, starts, sizes []int32, indexNow bool) (handled bool, err error) {
	x, sc := tx.x, tx.x.scope
	var at time.Time
	var exists bool
	var versions []int64
	err = x.query(ctx, opWrite, sqlBulkProbe, []any{sc.Tenant, sc.Project, paths, textChecked}, func(r pgx.Rows) error {
		var settings string
		return r.Scan(&at, &settings, &exists, &versions)
	})
	if err != nil || exists {
		return false, err
	}
	if versions == nil {
		versions = make([]int64, len(paths))
		for i := range versions {
			versions[i] = 1
		}
	}
	sizes64 := make([]int64, len(paths))
	for i := range sizes {
		sizes64[i] = int64(sizes[i])
	}
	content := func(i int) []byte {
		from := starts[i] - 1
		return contents[from : from+sizes[i] : from+sizes[i]]
	}
	rows := pgx.CopyFromSlice(len(paths), func(i int) ([]any, error) {
		return []any{sc.Tenant, sc.Project, paths[i], content(i), sizes64[i], at, at, indexNow, versions[i]}, nil
	})
	if _, err := x.conn.Conn().CopyFrom(ctx, pgx.Identifier{"mcp_files"}, bulkColumns, rows); err != nil {
		x.failed = x.storeError(ctx, opWrite, err)
		return true, x.failed
	}
	return true, x.batch(ctx, opWrite, []stmt{{sql: sqlBulkAfterCopy, args: []any{sc.Tenant, sc.Project, paths, sizes64, versions, refs, <-hashes, at}}},
		0, func(pgx.Rows) error { return nil }, func() {
			x.enqueued, x.wrote = true, true
			x.bulkWritten(int64(len(paths)), indexNow)
			at := at.UTC()
			for i, p := range paths {
				x.cacheWritten(p, at, content(i))
			}
		})
}
