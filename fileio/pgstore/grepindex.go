package pgstore

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

// Defaults of the background trigram indexer (Options.GrepIndexInterval and
// Options.GrepIndexBatchBytes).
const (
	DefaultGrepIndexInterval   = 250 * time.Millisecond
	DefaultGrepIndexBatchBytes = 256 << 10
)

// grepIndexBatchFiles bounds the rows one indexer statement claims, whatever their size.
const grepIndexBatchFiles = 256

// sqlGrepIndexBatch adds unindexed active files to the trigram index of migration 0008, taking
// turns among the projects that have some, so that one tenant's burst of writes does not hold
// back another's files: s lists the projects with unindexed files (one probe of the index of
// pending files per project, at most $1 of them), c claims the same share of $1 files of each
// with FOR UPDATE SKIP LOCKED (a row a writer holds is skipped, and a writer waits at most for
// this statement) and numbers them per project, w keeps, in turns (every project's first
// file, then every project's second, …), those that start within $2 bytes of text (at least
// one), and the UPDATE sets grep_indexed, which makes PostgreSQL compute their trigrams and
// insert them into the partial GIN index. Nothing else changes: not content, updated_at,
// version, the byte counts or the outbox. It returns the files and bytes indexed.
const sqlGrepIndexBatch = `WITH RECURSIVE s AS (
    (SELECT apikey_hash, project FROM mcp_files WHERE deleted = FALSE AND NOT grep_indexed
     ORDER BY apikey_hash, project LIMIT 1)
    UNION ALL
    SELECT n.apikey_hash, n.project FROM s CROSS JOIN LATERAL (
        SELECT apikey_hash, project FROM mcp_files
        WHERE deleted = FALSE AND NOT grep_indexed AND (apikey_hash, project) > (s.apikey_hash, s.project)
        ORDER BY apikey_hash, project LIMIT 1) AS n
), scopes AS (
    SELECT * FROM s LIMIT $1
), c AS MATERIALIZED (
    SELECT p.id, p.size, p.turn FROM scopes CROSS JOIN LATERAL (
        SELECT id, size, row_number() OVER (ORDER BY id) AS turn FROM (
            SELECT id, size FROM mcp_files AS f
            WHERE f.apikey_hash = scopes.apikey_hash AND f.project = scopes.project AND f.deleted = FALSE AND NOT f.grep_indexed
            LIMIT GREATEST(1, $1 / (SELECT count(*) FROM scopes)) FOR UPDATE SKIP LOCKED) AS l
    ) AS p
), w AS (
    SELECT id FROM (SELECT id, sum(size) OVER (ORDER BY turn, id) - size AS before FROM c) AS s
    WHERE before < $2::bigint
), u AS (
    UPDATE mcp_files AS f SET grep_indexed = TRUE
    FROM w WHERE f.id = w.id AND f.deleted = FALSE AND NOT f.grep_indexed
    RETURNING f.size
)
SELECT count(*), COALESCE(sum(size), 0)::bigint FROM u`

// sqlGrepIndexSettings bounds the indexer's transaction ($1, statement_timeout in
// milliseconds) and switches the history triggers off for it explicitly, whatever the
// session's defaults: its UPDATE replaces no version.
const sqlGrepIndexSettings = `SELECT set_config('statement_timeout', $1, true),
       set_config('agentfiles.history_versions', '0', true)`

// IndexGrep adds the active files written since it last ran to the trigram index that
// fileio.Service.Grep uses (migration 0008), in short transactions of at most
// Options.GrepIndexBatchBytes of text each, until none is left, and returns how many files it
// indexed. Each transaction takes turns among the projects with unindexed files, so a file
// written into one project waits for about one transaction, however many files another
// project wrote before it. Grep answers exactly whether or not files are indexed (it reads unindexed ones
// itself); indexing only makes it skip them. The background indexer (Options.GrepIndexInterval)
// calls it; any number of processes may run it at once, each taking rows the others have not
// locked. It never changes a file's content, times, version, history, byte counts or index
// jobs. It is safe for concurrent use.
func (s *Store) IndexGrep(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, _, err := s.indexGrepBatch(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// indexGrepBatch runs sqlGrepIndexBatch in one transaction.
func (s *Store) indexGrepBatch(ctx context.Context) (files, bytes int64, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		timeout := strconv.FormatInt(max(s.statementTimeout.Milliseconds(), 1), 10)
		if _, err := tx.Exec(ctx, sqlGrepIndexSettings, timeout); err != nil {
			return err
		}
		return tx.QueryRow(ctx, sqlGrepIndexBatch, grepIndexBatchFiles, s.grepIndexBatchBytes).Scan(&files, &bytes)
	})
	if err != nil {
		return 0, 0, s.storeError(ctx, opGrepIndex, driver.Scope{}, err)
	}
	return files, bytes, nil
}

// grepIndexMaxBackoff caps the wait of the background indexer after consecutive failures.
const grepIndexMaxBackoff = 30 * time.Second

// startGrepIndexer runs IndexGrep now and then every interval until Close; after a failure
// it waits twice as long each time, up to grepIndexMaxBackoff.
func (s *Store) startGrepIndexer(interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopGrepIndexer, s.grepIndexerDone = cancel, make(chan struct{})
	go func() {
		defer close(s.grepIndexerDone)
		timer := time.NewTimer(0)
		defer timer.Stop()
		wait := interval
		for {
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			_, err := s.IndexGrep(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				wait = min(max(2*wait, time.Second), max(grepIndexMaxBackoff, interval))
				s.logger.LogAttrs(ctx, slog.LevelWarn, "pgstore: indexing files for grep failed; will retry",
					slog.String("error", err.Error()), slog.Duration("retry_in", wait))
			default:
				wait = interval
			}
			timer.Reset(wait)
		}
	}()
}
