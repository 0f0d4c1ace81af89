package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/parallel"
	"github.com/jackc/pgx/v5"
)

var _ driver.BulkWriter = (*writeTx)(nil)

// sqlPutMany is sqlPut for a batch of files that replaces a file (a batch of new files is
// written with COPY, see bulk_copy.go) ($3 paths; $4 their contents one after the other,
// file i being $9[i] bytes from byte $8[i]; $5 credential references; $7 SHA-256 sums in hex):
// one statement writes them, the project's byte count, their index
// jobs and, for the new files, their history version numbers and change-feed events. New rows
// are written with grep_indexed = $6: TRUE, unless the caller defers indexing, makes PostgreSQL
// add them to the trigram index in this statement (pg_trgm's trigram extraction is most of the
// statement's cost), so a grep right after the import reads the index instead of the files. A
// replaced row that was indexed is unindexed by migration 0008's trigger and reindexed by the
// background indexer, as after any write.
//
// The statement runs with agentfiles.bulk_insert set (see PutMany), under which the INSERT
// triggers (history numbering, change feed; their WHEN clauses of migration 0011) stand aside,
// and does their work set based, with the same results:
//   - a new row's version is the path's newest kept version + 1 when the transaction keeps
//     history (agentfiles.history_versions > 0), else 1, as mcp_files_keep_version numbers it;
//   - the new rows take the next positions of the project's feed head, in path order, from one
//     upsert of the head (the triggers of replaced rows, AFTER UPDATE, run after the statement and
//     take the positions after them), which also counts their bytes (migration 0014); each gets
//     a "created" event as mcp_files_record_event writes it.
//
// Rows of an existing path (ON CONFLICT … DO UPDATE) go through the UPDATE triggers as after
// any write: the history keeps the old version, the feed records "modified".
//
// Write transactions run generic plans (see Update), made once per connection, possibly while
// the table is still empty, so every lookup here must be an index probe whatever the
// statistics say: old looks each path up in a LATERAL subquery that OFFSET 0 keeps from being
// flattened into a join, so it is one probe of the active-path index per file. A join with s
// planned on an empty table walked the whole project per batch, and so did path = ANY($3): on
// an empty table the planner tests the array as a filter over the project's rows rather than
// as an index condition (cheaper for ten rows, estimated 10 descents for the array), and the
// generic plan kept that for the whole import, which made it quadratic in its size (at 30,000
// files the last batches spent 93 of their 113 ms walking the project).
const sqlPutMany = `WITH s AS (
    SELECT u.path, substring($4::bytea FROM u.start FOR u.size) AS content, u.ref, u.sha256
    FROM unnest($3::text[], $8::int[], $9::int[], $5::text[], $7::text[]) AS u(path, start, size, ref, sha256)
), old AS (
    SELECT o.path, o.size FROM unnest($3::text[]) AS p(path), LATERAL (
        SELECT f.path, f.size FROM mcp_files f
        WHERE f.apikey_hash = $1 AND f.project = $2 AND f.path = p.path AND f.deleted = FALSE
        OFFSET 0) o
), keep AS (
    SELECT COALESCE(NULLIF(current_setting('agentfiles.history_versions', true), '')::bigint, 0) > 0 AS history
), f AS (
    INSERT INTO mcp_files AS f (apikey_hash, project, path, content, size, created_at, updated_at, grep_indexed, version)
    SELECT $1, $2, s.path, s.content, octet_length(s.content), statement_timestamp(), statement_timestamp(), $6,
           CASE WHEN keep.history THEN COALESCE((SELECT max(v.version) FROM mcp_file_versions v
               WHERE v.apikey_hash = $1 AND v.project = $2 AND v.path = s.path), 0) + 1 ELSE 1 END
    FROM s, keep
    ON CONFLICT (apikey_hash, project, path) WHERE deleted = FALSE DO UPDATE
    SET content = EXCLUDED.content, size = EXCLUDED.size, grep_indexed = $6,
        updated_at = GREATEST(EXCLUDED.updated_at, f.updated_at + interval '1 microsecond')
    RETURNING f.path, f.updated_at, f.version, f.size
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
), created AS (
    SELECT f.path, f.version, f.size, s.sha256, row_number() OVER (ORDER BY f.path) AS n
    FROM f JOIN s ON s.path = f.path WHERE NOT EXISTS (SELECT 1 FROM old WHERE old.path = f.path)
), h AS (
    INSERT INTO mcp_file_feed_heads AS h (apikey_hash, project, last_position, event_bytes)
    SELECT $1, $2, count(*), sum(octet_length(path) + ` + sqlEventOverhead + `) FROM created HAVING count(*) > 0
    ON CONFLICT (apikey_hash, project) DO UPDATE
    SET last_position = h.last_position + EXCLUDED.last_position, event_bytes = h.event_bytes + EXCLUDED.event_bytes
    RETURNING h.last_position
), e AS (
    INSERT INTO mcp_file_events
        (apikey_hash, project, position, path, kind, version, prev_version, sha256, size, at, purge_after)
    SELECT $1, $2, h.last_position - (SELECT count(*) FROM created) + c.n, c.path, 'created', c.version, 0,
           c.sha256, c.size, statement_timestamp(), statement_timestamp() + ` + sqlEventRetention + `
    FROM created c, h
)
SELECT (SELECT count(*) FROM created), array_agg(f.path), array_agg(f.updated_at) FROM f`

// sqlEventOverhead is driver.EventOverheadBytes in SQL: an event counts toward the project's
// byte quota as its path's bytes and this (migration 0014).
const sqlEventOverhead = "128"

// sqlEventRetention is how long a change-feed event is kept, as migration 0010's trigger
// computes it: as long as the transaction's history keeps versions, at least a day.
const sqlEventRetention = `GREATEST(
               COALESCE(NULLIF(current_setting('agentfiles.history_retention_us', true), '')::bigint, 0),
               86400000000) * interval '1 microsecond'`

// sqlBulkSettings sets (or, with empty values, clears) the transaction-local settings around
// sqlPutMany: agentfiles.bulk_insert ($1) makes the INSERT triggers stand aside (migration
// 0011), agentfiles.text_checked ($2) tells the check constraint of migration 0012 that the
// batch's UTF-8 was verified in Go.
const sqlBulkSettings = `SELECT set_config('agentfiles.bulk_insert', $1, true), set_config('agentfiles.text_checked', $2, true)`

// PutMany implements driver.BulkWriter: a batch of new files with COPY (putNew, which waits
// for it), any other with one statement (sqlPutMany), in the round trip that sets
// agentfiles.bulk_insert and agentfiles.text_checked before the statement and clears them
// after. The contents travel as one bytea parameter with the start and size of each file
// (pgx encodes a bytea[] of 2 MB at about 400 MB/s, element by element), the paths,
// credential references and SHA-256 sums as arrays. PutMany checks the files' text
// (textChecked) and hashes them (hashes, while the COPY runs), sends the batch and returns
// without waiting for it (see session.batch): its results, and a failure, come at the
// transaction's next call (for a COPY, only those of the statement after it).
func (tx *writeTx) PutMany(ctx context.Context, files []driver.File, opts driver.BulkOptions) error {
	if len(files) == 0 {
		return ctx.Err()
	}
	sc := tx.x.scope
	paths := make([]string, len(files))
	refs := opts.Refs
	if refs == nil {
		refs = make([]string, len(files))
	}
	starts, sizes := make([]int32, len(files)), make([]int32, len(files))
	n := 0
	for _, f := range files {
		n += len(f.Content)
	}
	if n > maxBatchContent {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"a batch of %d bytes is more than PostgreSQL holds in one value (%d bytes); write the files in smaller batches", n, maxBatchContent), "")
	}
	contents := make([]byte, 0, n)
	for i, f := range files {
		paths[i] = f.Path
		starts[i], sizes[i] = int32(len(contents)+1), int32(len(f.Content))
		contents = append(contents, f.Content...)
	}
	checked, hashed := textChecked(files), hashes(files)
	if handled, err := tx.putNew(ctx, paths, refs, hashed, checked, contents, starts, sizes, !opts.DeferIndex); handled || err != nil {
		return err
	}
	sums := <-hashed
	var created int64
	var written []string
	var updatedAt []time.Time
	return tx.x.batch(ctx, opWrite, []stmt{
		{sql: sqlBulkSettings, args: []any{"on", checked}},
		{sql: sqlPutMany, args: []any{sc.Tenant, sc.Project, paths, contents, refs, !opts.DeferIndex, sums, starts, sizes}},
		{sql: sqlBulkSettings, args: []any{"", ""}},
	}, 1, func(r pgx.Rows) error { return r.Scan(&created, &written, &updatedAt) }, func() {
		tx.x.enqueued, tx.x.wrote = true, true
		tx.x.bulkWritten(created, !opts.DeferIndex)
		// The batch's own buffer holds the contents, and nothing modifies it: the cache keeps
		// slices of it.
		at := make(map[string]time.Time, len(written))
		for i, p := range written {
			at[p] = updatedAt[i].UTC()
		}
		for i, p := range paths {
			from := starts[i] - 1
			tx.x.cacheWritten(p, at[p], contents[from:from+sizes[i]:from+sizes[i]])
		}
	})
}

// maxBatchContent is the most content one PutMany sends: its bytea parameter is one
// PostgreSQL value, of at most 1 GB (the Service's batches are 2 MiB plus one file).
const maxBatchContent = 1<<30 - 1

// textChecked is the value of agentfiles.text_checked (see sqlBulkSettings) for files: "on"
// when every content is valid UTF-8, else "": the check constraint then verifies the batch in
// PostgreSQL and refuses it, as it refuses any write of such content.
func textChecked(files []driver.File) string {
	var invalid atomic.Bool
	parallel.For(len(files), func(i int) {
		if !invalid.Load() && !utf8.Valid(files[i].Content) {
			invalid.Store(true)
		}
	})
	if invalid.Load() {
		return ""
	}
	return "on"
}

// hashes returns the SHA-256 (hex) of each content, which the change-feed events of new files
// record, computed on the free CPUs (internal/parallel) while PostgreSQL writes the batch: the
// result comes through the channel.
func hashes(files []driver.File) <-chan []string {
	out := make(chan []string, 1)
	go func() {
		sums := make([]string, len(files))
		parallel.For(len(files), func(i int) {
			sum := sha256.Sum256(files[i].Content)
			sums[i] = hex.EncodeToString(sum[:])
		})
		out <- sums
	}()
	return out
}
