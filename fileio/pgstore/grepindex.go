package pgstore

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Defaults of the background trigram indexer (Options.GrepIndexInterval and
// Options.GrepIndexBatchBytes).
const (
	DefaultGrepIndexInterval   = 250 * time.Millisecond
	DefaultGrepIndexBatchBytes = 64 << 10
)

// grepIndexBatchFiles bounds the files one indexer transaction marks, whatever their size.
const grepIndexBatchFiles = 256

// grepIndexTenants bounds the tenants one round of the indexer takes turns among; the next
// round starts after the last of them.
const grepIndexTenants = 64

// How the indexer finds and marks its work; idx_mcp_files_grep_pending (tenant, project, path)
// lists the unindexed active files.
const (
	// sqlGrepIndexTenants lists up to $2 tenants with unindexed files after $1, one probe of the
	// pending index per tenant. It is the indexer's only statement that spans tenants, and it
	// only reads.
	sqlGrepIndexTenants = `WITH RECURSIVE t AS (
    (SELECT apikey_hash FROM mcp_files WHERE deleted = FALSE AND NOT grep_indexed AND apikey_hash > $1
     ORDER BY apikey_hash LIMIT 1)
    UNION ALL
    SELECT n.apikey_hash FROM t CROSS JOIN LATERAL (
        SELECT apikey_hash FROM mcp_files
        WHERE deleted = FALSE AND NOT grep_indexed AND apikey_hash > t.apikey_hash
        ORDER BY apikey_hash LIMIT 1) AS n
)
SELECT apikey_hash FROM t LIMIT $2`
	// sqlGrepIndexProject is tenant $1's first project with unindexed files after $2, or else
	// its first one (the second branch runs only when the first finds none).
	sqlGrepIndexProject = `(SELECT project FROM mcp_files
 WHERE apikey_hash = $1 AND project > $2 AND deleted = FALSE AND NOT grep_indexed ORDER BY project LIMIT 1)
UNION ALL
(SELECT project FROM mcp_files
 WHERE apikey_hash = $1 AND deleted = FALSE AND NOT grep_indexed ORDER BY project LIMIT 1)
LIMIT 1`
	// sqlGrepIndexFiles is up to $4 unindexed files of project ($1, $2) after path $3, in path
	// order: starting after the last file indexed, the scan does not walk the index entries of
	// the files indexed before it (dead until vacuum).
	sqlGrepIndexFiles = `SELECT id, path, size FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND path > $3 AND deleted = FALSE AND NOT grep_indexed
ORDER BY path LIMIT $4`
	// sqlGrepIndexMark adds the files $3 of project ($1, $2) to the trigram index of migration
	// 0008: it locks those still unindexed with FOR UPDATE SKIP LOCKED (a row a writer holds is
	// skipped: the statement waits for no writer) and sets grep_indexed, which makes
	// PostgreSQL compute their trigrams and insert them into the partial GIN index. Nothing
	// else changes: not content, updated_at, version, the byte counts or the outbox. It returns
	// the size of each file it marked.
	sqlGrepIndexMark = `WITH c AS (
    SELECT id FROM mcp_files
    WHERE id = ANY($3) AND apikey_hash = $1 AND project = $2 AND deleted = FALSE AND NOT grep_indexed
    FOR UPDATE SKIP LOCKED
)
UPDATE mcp_files AS f SET grep_indexed = TRUE FROM c WHERE f.id = c.id RETURNING f.size`
)

// sqlGrepIndexSettings bounds the indexer's transaction ($1: statement_timeout and
// lock_timeout, in milliseconds; it should wait for no lock) and switches the history triggers
// off for it explicitly, whatever the session's defaults: its UPDATE replaces no version.
const sqlGrepIndexSettings = `SELECT set_config('statement_timeout', $1, true),
       set_config('lock_timeout', $1, true),
       set_config('agentfiles.history_versions', '0', true)`

// grepTurns is where this process's indexer stands: the tenant whose turn came last (a round
// starts after it), each tenant's project whose turn came last, and each project's path
// indexed last. A lost position costs only a scan from the start of a list, so the maps start
// over past grepTurnsMax entries. Guarded by mu.
type grepTurns struct {
	mu       sync.Mutex
	tenant   string
	projects map[string]string
	paths    map[driver.Scope]string
}

// grepTurnsMax bounds each map of grepTurns.
const grepTurnsMax = 4096

// IndexGrep adds the active files written since it last ran to the trigram index that
// fileio.Service.Grep uses (migration 0008) and returns how many files it indexed. It works in
// rounds until no file is left: a round lists the tenants with unindexed files (at most 64,
// after the last tenant of the round before, so that every tenant gets its turn) and gives
// each of them one turn: a transaction over one of its projects (a tenant's projects take
// turns too) that marks at most 256 files and Options.GrepIndexBatchBytes of text (at least
// one file). So a file written by one tenant waits for about one turn of each tenant with
// files to index, however many files another tenant wrote before it, and a writer of one of a
// turn's files waits at most for that one short transaction: the indexer takes no row a writer
// holds and waits for none. Grep answers exactly whether or not files are indexed (it reads
// unindexed ones itself); indexing only makes it skip them. The background indexer
// (Options.GrepIndexInterval) calls it; any number of processes may run it at once, each
// taking rows the others have not locked. It never changes a file's content, times, version,
// history, byte counts or index jobs. It returns once a round indexes nothing (the files left,
// if any, are held by writers). It is safe for concurrent use.
func (s *Store) IndexGrep(ctx context.Context) (int64, error) {
	var total int64
	for {
		n, err := s.indexGrepRound(ctx)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// indexGrepRound gives one turn to each tenant with unindexed files (up to grepIndexTenants)
// and returns the files indexed.
func (s *Store) indexGrepRound(ctx context.Context) (files int64, err error) {
	tenants, err := s.grepIndexTenants(ctx)
	if err != nil || len(tenants) == 0 {
		return 0, err
	}
	for _, tenant := range tenants {
		n, _, err := s.indexGrepTurn(ctx, tenant)
		files += n
		if err != nil {
			return files, err
		}
	}
	s.grepTurns.mu.Lock()
	s.grepTurns.tenant = tenants[len(tenants)-1]
	s.grepTurns.mu.Unlock()
	return files, nil
}

// grepIndexTenants lists the tenants of the next round: up to grepIndexTenants with unindexed
// files after the last tenant of the round before, then from the first tenant on.
func (s *Store) grepIndexTenants(ctx context.Context) ([]string, error) {
	s.grepTurns.mu.Lock()
	after := s.grepTurns.tenant
	s.grepTurns.mu.Unlock()
	tenants, err := s.grepIndexQuery(ctx, sqlGrepIndexTenants, after, grepIndexTenants)
	if err != nil || len(tenants) == grepIndexTenants || after == "" {
		return tenants, err
	}
	first, err := s.grepIndexQuery(ctx, sqlGrepIndexTenants, "", grepIndexTenants-len(tenants))
	for _, t := range first {
		if t <= after {
			tenants = append(tenants, t)
		}
	}
	return tenants, err
}

// grepIndexQuery runs a statement of the indexer that returns one text column, under the
// store's statement timeout.
func (s *Store) grepIndexQuery(ctx context.Context, sql string, args ...any) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.statementTimeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, sql, args...)
	if err == nil {
		var out []string
		if out, err = pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
			return out, nil
		}
	}
	return nil, s.storeError(ctx, opGrepIndex, driver.Scope{}, err)
}

// indexGrepTurn is tenant's turn: one transaction of sqlGrepIndexMark over the next files of
// the tenant's next project with unindexed files, after the project's path indexed last (from
// its first file when none is left after it). It returns the files and bytes indexed.
func (s *Store) indexGrepTurn(ctx context.Context, tenant string) (files, bytes int64, err error) {
	t := &s.grepTurns
	t.mu.Lock()
	afterProject := t.projects[tenant]
	t.mu.Unlock()
	projects, err := s.grepIndexQuery(ctx, sqlGrepIndexProject, tenant, afterProject)
	if err != nil || len(projects) == 0 {
		return 0, 0, err
	}
	scope := driver.Scope{Tenant: tenant, Project: projects[0]}
	t.mu.Lock()
	if t.projects == nil || len(t.projects) >= grepTurnsMax {
		t.projects = map[string]string{}
	}
	t.projects[tenant] = scope.Project
	afterPath := t.paths[scope]
	t.mu.Unlock()
	ids, last, err := s.grepIndexFiles(ctx, scope, afterPath)
	if err == nil && len(ids) == 0 && afterPath != "" {
		ids, last, err = s.grepIndexFiles(ctx, scope, "")
	}
	if err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	t.mu.Lock()
	if t.paths == nil || len(t.paths) >= grepTurnsMax {
		t.paths = map[driver.Scope]string{}
	}
	t.paths[scope] = last
	t.mu.Unlock()
	began := time.Now()
	if files, bytes, err = s.markGrepIndexed(ctx, scope, ids); err != nil {
		return 0, 0, s.storeError(ctx, opGrepIndex, scope, err)
	}
	// held: the longest any of the files' rows was locked.
	s.logger.LogAttrs(ctx, slog.LevelDebug, "pgstore: grep index turn", slog.String("project", scope.Project),
		slog.Int64("files", files), slog.Int64("bytes", bytes), slog.Duration("held", time.Since(began)))
	return files, bytes, nil
}

// markGrepIndexed runs sqlGrepIndexMark over ids in a transaction sent in one round trip
// (BEGIN, the settings, the statement, COMMIT), so that its rows are locked only while
// PostgreSQL computes their trigrams. It returns the files and bytes indexed.
func (s *Store) markGrepIndexed(ctx context.Context, scope driver.Scope, ids []int64) (files, bytes int64, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sqlGrepIndexSettings, strconv.FormatInt(max(s.statementTimeout.Milliseconds(), 1), 10))
	b.Queue(sqlGrepIndexMark, scope.Tenant, scope.Project, ids)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	for range 2 {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			var size int64
			_, err = pgx.ForEachRow(rows, []any{&size}, func() error { files, bytes = files+1, bytes+size; return nil })
		}
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		endFailed(conn)
		return 0, 0, err
	}
	return files, bytes, nil
}

// endFailed rolls back what a failed batch left open on conn, without the caller's context
// (which may have ended); a connection that cannot be rolled back is closed, and the pool
// discards it.
func endFailed(conn *pgxpool.Conn) {
	pc := conn.Conn().PgConn()
	if pc.IsClosed() || (!pc.IsBusy() && pc.TxStatus() == 'I') {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		conn.Conn().Close(ctx)
	}
}

// grepIndexFiles returns the ids of the next files of scope to index after path after (at most
// grepIndexBatchFiles, and Options.GrepIndexBatchBytes of text but at least one file) and the
// path of the last of them.
func (s *Store) grepIndexFiles(ctx context.Context, scope driver.Scope, after string) (ids []int64, last string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.statementTimeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, sqlGrepIndexFiles, scope.Tenant, scope.Project, after, grepIndexBatchFiles)
	if err != nil {
		return nil, "", s.storeError(ctx, opGrepIndex, scope, err)
	}
	var id, size, total int64
	var path string
	full := false
	_, err = pgx.ForEachRow(rows, []any{&id, &path, &size}, func() error {
		if full = full || (len(ids) > 0 && total+size > s.grepIndexBatchBytes); full {
			return nil // this and the files after it are for the next turns
		}
		total += size
		ids, last = append(ids, id), path
		return nil
	})
	if err != nil {
		return nil, "", s.storeError(ctx, opGrepIndex, scope, err)
	}
	return ids, last, nil
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
