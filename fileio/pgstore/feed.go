package pgstore

import (
	"context"
	"strconv"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// The change feed and checkpoints (migration 0010): the trigger on mcp_files writes the events;
// these statements read them and keep the checkpoints.
var (
	_ driver.FeedReader       = (*readTx)(nil)
	_ driver.CheckpointWriter = (*writeTx)(nil)
	_ driver.FeedWaiter       = (*Store)(nil)
)

// sqlPurgeEvents removes up to $1 events past their retention that come at or before every
// checkpoint of their project, and records in the project's feed head how far events are gone
// and what they no longer count toward its quota (migration 0014).
const sqlPurgeEvents = `WITH d AS (
    DELETE FROM mcp_file_events WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM mcp_file_events e WHERE purge_after <= statement_timestamp()
            AND NOT EXISTS (SELECT 1 FROM mcp_file_checkpoints c
                WHERE c.apikey_hash = e.apikey_hash AND c.project = e.project AND c.position < e.position)
        LIMIT $1))
    RETURNING apikey_hash, project, position, path
), s AS (
    SELECT apikey_hash, project, max(position) AS p, sum(octet_length(path) + ` + sqlEventOverhead + `) AS b
    FROM d GROUP BY apikey_hash, project
), u AS (
    UPDATE mcp_file_feed_heads AS h SET pruned_through = GREATEST(h.pruned_through, s.p), event_bytes = h.event_bytes - s.b
    FROM s WHERE h.apikey_hash = s.apikey_hash AND h.project = s.project
)
SELECT count(*) FROM d`

const sqlFeedHead = `SELECT COALESCE((SELECT last_position FROM mcp_file_feed_heads WHERE apikey_hash = $1 AND project = $2), 0),
       COALESCE((SELECT pruned_through FROM mcp_file_feed_heads WHERE apikey_hash = $1 AND project = $2), 0)`

// FeedHead implements driver.FeedReader.
func (tx *readTx) FeedHead(ctx context.Context) (int64, int64, error) {
	var head, pruned int64
	err := tx.x.query(ctx, opRead, sqlFeedHead, tx.scopeArgs(), func(r pgx.Rows) error {
		return r.Scan(&head, &pruned)
	})
	return head, pruned, err
}

func (tx *readTx) scopeArgs(more ...any) []any {
	return append([]any{tx.x.scope.Tenant, tx.x.scope.Project}, more...)
}

// sqlAtOrBelow keeps the rows whose path is $3 or lies below it ($4 is $3 + "/"; $3 "": all).
const sqlAtOrBelow = `($3 = '' OR path = $3 OR starts_with(path, $4))`

// sqlEvents lists the events after $5 at or below $3, in position order, at most $6.
const sqlEvents = `SELECT position, path, kind, version, sha256, size, at FROM mcp_file_events
WHERE apikey_hash = $1 AND project = $2 AND position > $5 AND ` + sqlAtOrBelow + `
ORDER BY position LIMIT $6`

// Events implements driver.FeedReader.
func (tx *readTx) Events(ctx context.Context, after int64, dir string, limit int) ([]driver.Event, error) {
	var out []driver.Event
	err := tx.x.query(ctx, opRead, sqlEvents, tx.scopeArgs(dir, dir+"/", after, int64(limit)), func(r pgx.Rows) error {
		var e driver.Event
		var kind string
		if err := r.Scan(&e.Position, &e.Path, &kind, &e.Version, &e.SHA256, &e.SizeBytes, &e.At); err != nil {
			return err
		}
		e.Kind, e.At = driver.ChangeKind(kind), e.At.UTC()
		out = append(out, e)
		return nil
	})
	return out, err
}

// sqlChangedSince finds, for each path at or below $3 with events after $5 (at most $6 paths,
// in path order), the first of them, which tells what the path held at $5 (nothing for a
// create, else the version it replaced), and hashes that version's content and the current
// one in the database. Both lookups are LATERAL subqueries with a LIMIT, which PostgreSQL does
// not flatten into a join, so that each is an index probe by path whatever the planner
// estimates: on a project written moments ago, before autovacuum has analyzed it, a plain join
// was planned as a scan of the whole project per changed path (1,500 paths: 9 s instead of
// milliseconds).
const sqlChangedSince = `WITH first AS (
    SELECT DISTINCT ON (path) path, kind, prev_version FROM mcp_file_events
    WHERE apikey_hash = $1 AND project = $2 AND position > $5 AND ` + sqlAtOrBelow + `
    ORDER BY path, position
    LIMIT $6
)
SELECT first.path, first.kind <> 'created', first.prev_version, b.sha, COALESCE(b.size, 0),
       cur.version IS NOT NULL, COALESCE(cur.version, 0), COALESCE(encode(sha256(cur.content), 'hex'), ''), COALESCE(cur.size, 0)
FROM first
LEFT JOIN LATERAL (
    SELECT encode(sha256(content), 'hex') AS sha, size FROM (
        SELECT content, size FROM mcp_files f
        WHERE f.apikey_hash = $1 AND f.project = $2 AND f.path = first.path AND f.deleted = FALSE AND f.version = first.prev_version
        UNION ALL
        SELECT content, size FROM mcp_file_versions v
        WHERE v.apikey_hash = $1 AND v.project = $2 AND v.path = first.path AND v.version = first.prev_version
        LIMIT 1) AS c
    WHERE first.kind <> 'created'
) AS b ON TRUE
LEFT JOIN LATERAL (
    SELECT version, content, size FROM mcp_files f
    WHERE f.apikey_hash = $1 AND f.project = $2 AND f.path = first.path AND f.deleted = FALSE
    LIMIT 1
) AS cur ON TRUE
ORDER BY first.path`

// ChangedSince implements driver.FeedReader in one statement (see sqlChangedSince).
func (tx *readTx) ChangedSince(ctx context.Context, position int64, dir string, limit int) ([]driver.PathChange, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	var out []driver.PathChange
	err := tx.x.query(ctx, opRead, sqlChangedSince, tx.scopeArgs(dir, dir+"/", position, lim), func(r pgx.Rows) error {
		var c driver.PathChange
		var beforeSHA *string
		if err := r.Scan(&c.Path, &c.Before.Exists, &c.Before.Version, &beforeSHA, &c.Before.SizeBytes,
			&c.After.Exists, &c.After.Version, &c.After.SHA256, &c.After.SizeBytes); err != nil {
			return err
		}
		if !c.Before.Exists {
			c.Before = driver.FileState{}
		} else if beforeSHA != nil {
			c.Before.SHA256 = *beforeSHA
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// sqlPinnedContents returns, for each ($3[i], $4[i]), i and that version's content, active or
// kept, whatever its retention; a version no longer kept has no row.
const sqlPinnedContents = `SELECT r.i, c.content
FROM unnest($3::text[], $4::bigint[]) WITH ORDINALITY AS r(path, version, i)
CROSS JOIN LATERAL (
    SELECT content FROM mcp_files
    WHERE apikey_hash = $1 AND project = $2 AND path = r.path AND deleted = FALSE AND version = r.version
    UNION ALL
    SELECT content FROM mcp_file_versions
    WHERE apikey_hash = $1 AND project = $2 AND path = r.path AND version = r.version
    LIMIT 1
) AS c`

// PinnedContents implements driver.FeedReader in one statement.
func (tx *readTx) PinnedContents(ctx context.Context, refs []driver.VersionRef) ([][]byte, error) {
	paths, versions := make([]string, len(refs)), make([]int64, len(refs))
	for i, r := range refs {
		paths[i], versions[i] = r.Path, r.Version
	}
	out := make([][]byte, len(refs))
	err := tx.x.query(ctx, opRead, sqlPinnedContents, tx.scopeArgs(paths, versions), func(r pgx.Rows) error {
		var i int64
		var content []byte
		if err := r.Scan(&i, &content); err != nil {
			return err
		}
		if content == nil {
			content = []byte{}
		}
		out[i-1] = content
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

const sqlCheckpointColumns = `id, label, position, created_at FROM mcp_file_checkpoints WHERE apikey_hash = $1 AND project = $2`

// Checkpoints implements driver.FeedReader.
func (tx *readTx) Checkpoints(ctx context.Context, after int64, limit int) ([]driver.Checkpoint, error) {
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	return tx.checkpoints(ctx, `SELECT `+sqlCheckpointColumns+` AND id > $3 ORDER BY id LIMIT $4`, after, lim)
}

// Checkpoint implements driver.FeedReader.
func (tx *readTx) Checkpoint(ctx context.Context, id int64) (driver.Checkpoint, bool, error) {
	cs, err := tx.checkpoints(ctx, `SELECT `+sqlCheckpointColumns+` AND id = $3`, id)
	if err != nil || len(cs) == 0 {
		return driver.Checkpoint{}, false, err
	}
	return cs[0], true, nil
}

func (tx *readTx) checkpoints(ctx context.Context, sql string, args ...any) ([]driver.Checkpoint, error) {
	var out []driver.Checkpoint
	err := tx.x.query(ctx, opRead, sql, tx.scopeArgs(args...), func(r pgx.Rows) error {
		c, err := scanCheckpoint(r)
		out = append(out, c)
		return err
	})
	return out, err
}

func scanCheckpoint(r pgx.Rows) (driver.Checkpoint, error) {
	var c driver.Checkpoint
	var id int64
	err := r.Scan(&id, &c.Label, &c.Position, &c.CreatedAt)
	c.ID, c.CreatedAt = strconv.FormatInt(id, 10), c.CreatedAt.UTC()
	return c, err
}

const sqlPinnedBytes = `SELECT count(*), COALESCE(sum(size), 0) FROM mcp_file_versions v
WHERE apikey_hash = $1 AND project = $2 AND mcp_file_version_pinned(v.apikey_hash, v.project, v.path, v.version)`

// PinnedBytes implements driver.FeedReader.
func (tx *readTx) PinnedBytes(ctx context.Context) (int, int64, error) {
	var n, bytes int64
	err := tx.x.query(ctx, opRead, sqlPinnedBytes, tx.scopeArgs(), func(r pgx.Rows) error {
		return r.Scan(&n, &bytes)
	})
	return int(n), bytes, err
}

// sqlCreateCheckpoint numbers a checkpoint from the project's feed head and records it at the
// head's position.
const sqlCreateCheckpoint = `WITH h AS (
    INSERT INTO mcp_file_feed_heads AS h (apikey_hash, project, last_checkpoint) VALUES ($1, $2, 1)
    ON CONFLICT (apikey_hash, project) DO UPDATE SET last_checkpoint = h.last_checkpoint + 1
    RETURNING h.last_position, h.last_checkpoint
)
INSERT INTO mcp_file_checkpoints (apikey_hash, project, id, label, position, created_at)
SELECT $1, $2, last_checkpoint, $3, last_position, statement_timestamp() FROM h
RETURNING id, label, position, created_at`

// CreateCheckpoint implements driver.CheckpointWriter.
func (tx *writeTx) CreateCheckpoint(ctx context.Context, label string) (driver.Checkpoint, error) {
	var c driver.Checkpoint
	err := tx.x.query(ctx, opWrite, sqlCreateCheckpoint, tx.scopeArgs(label), func(r pgx.Rows) error {
		var err error
		c, err = scanCheckpoint(r)
		return err
	})
	return c, err
}

const sqlDeleteCheckpoint = `DELETE FROM mcp_file_checkpoints WHERE apikey_hash = $1 AND project = $2 AND id = $3`

// DeleteCheckpoint implements driver.CheckpointWriter. The versions it pinned go at the next
// Purge once their retention has run out.
func (tx *writeTx) DeleteCheckpoint(ctx context.Context, id int64) (bool, error) {
	n := 0
	err := tx.x.query(ctx, opWrite, sqlDeleteCheckpoint+` RETURNING id`, tx.scopeArgs(id), func(r pgx.Rows) error {
		n++
		return nil
	})
	return n > 0, err
}

// WaitForEvents implements driver.FeedWaiter: every commit that changes files sends the NOTIFY
// that WaitForJobs listens for, from any instance, so a follower wakes on it and looks again.
// While the LISTEN connection is down it waits at most the poll interval.
func (s *Store) WaitForEvents(ctx context.Context, scope driver.Scope, after int64, maxWait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wake, healthy := s.listener.state() // before looking, so no notification falls in between
	var head int64
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE((SELECT last_position FROM mcp_file_feed_heads WHERE apikey_hash = $1 AND project = $2), 0)`,
		scope.Tenant, scope.Project).Scan(&head); err != nil {
		return s.storeError(ctx, opRead, scope, err)
	}
	if head > after {
		return nil
	}
	if !healthy && s.pollInterval < maxWait {
		maxWait = s.pollInterval
	}
	return driver.WaitForSignal(ctx, wake, maxWait)
}
