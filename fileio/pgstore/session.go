package pgstore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgpool"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Operation names for logs; opCommit also selects the "outcome unknown" message.
const (
	opAcquire = "acquiring a connection"
	opLock    = "taking the project lock"
	opCommit  = "commit"
	opRead    = "read"
	opWrite   = "write"
	opOutbox  = "outbox"
	opPurge   = "purge"
	// opGrepIndex is the background indexing of files for grep (IndexGrep).
	opGrepIndex = "indexing files for grep"
)

// jobsChannel is the NOTIFY channel that announces new index jobs.
const jobsChannel = "mcp_file_index_jobs"

// stmt is one statement with its arguments.
type stmt struct {
	sql  string
	args []any
}

// session is one transaction on one pooled connection. For a View, BEGIN is sent in the same
// round trip as the callback's first statement, so a one-read View costs two round trips (that
// one and COMMIT). An Update opens its transaction and takes the project lock in one round
// trip before the callback runs. A session is used by one goroutine.
type session struct {
	s        *Store
	conn     *pgxpool.Conn
	scope    driver.Scope
	opts     driver.UpdateOptions // of an Update
	begin    []stmt               // still to send before the first statement; nil once the transaction is open
	started  bool                 // begin was sent (the transaction may be open)
	failed   error                // first statement failure: the transaction is aborted
	enqueued bool                 // an outbox row was written: NOTIFY on commit
	// wrote: a statement created or replaced a file, so commit checks opts.Quota first.
	wrote bool
	// afterCommit, when set, runs on the connection after a successful COMMIT (an import's
	// index upkeep, import_finish.go).
	afterCommit func(context.Context)
	bulkCreated int64         // files PutMany created
	bulkIndexed bool          // PutMany added files to the trigram index
	pending     *pendingBatch // sent by batch, results not read yet (pipeline.go)
	// readOnly is set for a View: its greps may use the grep cache (through view).
	readOnly bool
	view     *grepView
	// written is what a write transaction wrote, put in the grep cache at commit.
	written writtenContents
}

func (s *Store) openSession(ctx context.Context, scope driver.Scope, begin []stmt) (*session, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, s.storeError(ctx, opAcquire, scope, err)
	}
	return &session{s: s, conn: conn, scope: scope, begin: begin}, nil
}

// query runs one statement of the transaction and calls scan for each row. A failure is mapped
// to a coded error and remembered: PostgreSQL aborts the transaction, so later statements fail
// with the same error without a round trip.
func (x *session) query(ctx context.Context, op, sql string, args []any, scan func(pgx.Rows) error) error {
	if x.settle(); x.failed != nil {
		return x.failed
	}
	if err := x.run(ctx, sql, args, scan); err != nil {
		x.failed = x.storeError(ctx, op, err)
		return x.failed
	}
	return nil
}

func (x *session) run(ctx context.Context, sql string, args []any, scan func(pgx.Rows) error) error {
	conn := x.conn.Conn()
	if x.begin == nil {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		return scanRows(rows, scan)
	}
	b := &pgx.Batch{}
	for _, st := range x.begin {
		b.Queue(st.sql, st.args...)
	}
	b.Queue(sql, args...)
	x.started = true
	br := conn.SendBatch(ctx, b)
	for range x.begin {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
	}
	x.begin = nil
	rows, err := br.Query()
	if err == nil {
		err = scanRows(rows, scan)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// storeError is Store.storeError for a statement of this transaction; a lock timeout names
// the Update's timeout and what held the lock (lockWaitMessage), and a quota check that
// refused is its *driver.QuotaError.
func (x *session) storeError(ctx context.Context, op string, err error) error {
	if qe := quotaError(err); qe != nil {
		return qe
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == pgpool.SQLLockNotAvailable && x.opts.LockTimeout > 0 {
		return agentfiles.WrapError(agentfiles.CodeResourceBusy, lockWaitMessage(op, pe, x.opts.LockWait()), x.scope.Project, err)
	}
	return x.s.storeError(ctx, op, x.scope, err)
}

// lockedRelation finds the table in the context PostgreSQL gives a wait for a row lock
// ("while updating tuple (0,1) in relation \"mcp_files\"").
var lockedRelation = regexp.MustCompile(`in relation "([^"]+)"`)

// lockWaitMessage says what a write transaction waited for past its lock timeout wait. Waiting
// for the project's lock (op opLock) means another write to the project. Any later wait is for
// a row the write changes, which no other write to the project can hold (they all take the
// project's lock first): the store's background work held it, and the relation in the error's
// context says which.
func lockWaitMessage(op string, pe *pgconn.PgError, wait time.Duration) string {
	if op == opLock {
		return fmt.Sprintf("another write to this project held its lock for more than %s; retry shortly", wait)
	}
	holder := "the file store's background work (grep indexing, the search index's job queue or purging)"
	if m := lockedRelation.FindStringSubmatch(pe.Where); m != nil {
		switch m[1] {
		case "mcp_files":
			holder = "the file store's background grep indexer"
		case "mcp_file_index_jobs":
			holder = "the search indexer, claiming the file's index job,"
		case "mcp_file_history_usage", "mcp_file_versions", "mcp_file_feed_heads", "mcp_file_events":
			holder = "the file store's purge of expired history"
		}
	}
	return fmt.Sprintf("this write waited more than %s for a row that %s held (not another write to this project); nothing was changed, retry shortly", wait, holder)
}

func scanRows(rows pgx.Rows, scan func(pgx.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// commit ends the transaction (announcing new jobs with NOTIFY, which PostgreSQL delivers at
// commit) and returns the connection to the pool.
func (x *session) commit(ctx context.Context) error {
	defer x.conn.Release()
	defer x.forgetWritten() // after a failure: cacheCommitted has not run
	if !x.started {
		return nil // the callback ran no statement: there is no transaction
	}
	if x.settle(); x.failed != nil {
		x.rollback()
		return x.failed
	}
	var err error
	if x.wrote && x.opts.Quota != (driver.Quota{}) {
		err = x.commitChecked(ctx)
	} else {
		sql := "COMMIT"
		if x.enqueued {
			sql = "NOTIFY " + jobsChannel + "; COMMIT"
		}
		var tag pgconn.CommandTag
		if tag, err = x.conn.Exec(ctx, sql); err == nil && tag.String() != "COMMIT" {
			err = errors.New("the transaction was rolled back at commit")
		}
		if err != nil {
			err = x.storeError(ctx, opCommit, err)
		}
	}
	if err != nil {
		x.rollback()
		return err
	}
	x.cacheCommitted()
	if x.afterCommit != nil {
		x.afterCommit(ctx)
	}
	return nil
}

// sqlQuotaBegin records the project's usage when an Update has taken its lock, for
// sqlQuotaCheck (migration 0014): its bytes, files, and whether it counts toward the tenant's
// projects.
const sqlQuotaBegin = `SELECT set_config('agentfiles.quota_before', concat_ws(' ', u.bytes, u.files, u.files > 0 OR u.kept > 0), true)
FROM mcp_files_usage($1, $2) AS u`

// sqlQuotaCheck raises SQLSTATE AFQ01 when the transaction leaves the project past its quota
// ($3 bytes, $4 files, $5 the tenant's files, $6 the tenant's projects; 0: no bound; see
// driver.Quota.Check): the comparisons of the project's own bounds are made here, and
// mcp_files_quota_guard, which raises and counts the tenant's other projects, is called only
// when a bound is passed or the tenant's bounds apply (the project gained files, or started to
// count).
const sqlQuotaCheck = `SELECT CASE WHEN
       ($3::bigint > 0 AND u.bytes > $3::bigint AND u.bytes > b.bytes) OR ($4::bigint > 0 AND u.files > $4::bigint AND u.files > b.files)
       OR ($5::bigint > 0 AND u.files > b.files) OR ($6::bigint > 0 AND NOT b.counted AND (u.files > 0 OR u.kept > 0))
    THEN mcp_files_quota_guard($1, $2, b.bytes, u.bytes, b.files, u.files, b.counted, u.files > 0 OR u.kept > 0,
                               $3::bigint, $4::bigint, $5::bigint, $6::bigint) END
FROM mcp_files_usage($1, $2) AS u,
    (SELECT v[1]::bigint AS bytes, v[2]::bigint AS files, v[3]::boolean AS counted
     FROM string_to_array(current_setting('agentfiles.quota_before'), ' ') AS v) AS b`

// commitChecked commits a transaction that created or replaced files: the quota check, the
// NOTIFY of new jobs and COMMIT go out as one pgx batch, so the check costs no round trip of
// its own. PostgreSQL skips the rest of the batch after a failing statement, so a check that
// refuses leaves the transaction to be rolled back (the caller does), with a
// *driver.QuotaError. As in UpdateIfAllowed, a failure that is not the server's may come after
// COMMIT ran, and is reported as such (batchError).
func (x *session) commitChecked(ctx context.Context) error {
	q := x.opts.Quota
	b := &pgx.Batch{}
	b.Queue(sqlQuotaCheck, x.scope.Tenant, x.scope.Project, q.ProjectBytes, q.ProjectFiles, q.TenantFiles, q.TenantProjects)
	n := 1
	if x.enqueued {
		b.Queue("NOTIFY " + jobsChannel)
		n++
	}
	b.Queue("COMMIT")
	br := x.conn.Conn().SendBatch(ctx, b)
	err := func() error {
		for i := range n {
			op := opWrite // the check refused: nothing was saved
			if i > 0 {
				op = opCommit
			}
			if _, err := br.Exec(); err != nil {
				return batchError(ctx, x, op, err)
			}
		}
		tag, err := br.Exec()
		if err == nil && tag.String() != "COMMIT" {
			err = errors.New("the transaction was rolled back at commit")
		}
		if err != nil {
			return x.storeError(ctx, opCommit, err)
		}
		return nil
	}()
	if cerr := br.Close(); err == nil && cerr != nil {
		err = x.storeError(ctx, opCommit, cerr)
	}
	return err
}

// abort rolls the transaction back and returns the connection to the pool.
func (x *session) abort() {
	defer x.conn.Release()
	defer x.forgetWritten()
	x.settle()
	if x.started {
		x.rollback()
	}
}

// rollback ends an open transaction so the connection can be reused. It does not use the
// caller's context: a cancelled request must still release its transaction. A connection that
// cannot be rolled back is closed, and the pool discards it.
func (x *session) rollback() {
	pc := x.conn.Conn().PgConn()
	if pc.IsClosed() || (!pc.IsBusy() && pc.TxStatus() == 'I') {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := x.conn.Exec(ctx, "ROLLBACK"); err != nil {
		x.conn.Conn().Close(ctx)
	}
}

// View implements driver.Store: fn runs in a REPEATABLE READ, READ ONLY transaction, so it sees
// one consistent snapshot of committed data. Its statements stop at ctx's deadline or
// Options.StatementTimeout, whichever comes first.
func (s *Store) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x, err := s.openSession(ctx, scope, []stmt{
		{sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"},
		{sql: "SELECT set_config('statement_timeout', $1, true)", args: []any{s.statementTimeoutMillis(ctx)}},
	})
	if err != nil {
		return err
	}
	x.readOnly = true
	if err := fn(&readTx{x: x}); err != nil {
		x.abort()
		return err
	}
	return x.commit(ctx)
}

// Update implements driver.Store: fn runs in a READ COMMITTED transaction that holds
// pg_advisory_xact_lock of the project, taken under opts.LockWait() (RESOURCE_BUSY on expiry)
// before fn starts and released at commit or rollback. Every statement fn runs sees all
// mutations of the project committed before it. Rows fn deletes are purged
// opts.DeleteRetention after the delete.
func (s *Store) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	x, err := s.openSession(ctx, scope, nil)
	if err != nil {
		return err
	}
	opts.LockTimeout = opts.LockWait()
	x.opts = opts
	// One round trip, simple protocol: the lock timeout and key are numbers formatted here.
	// Every statement of a write transaction is a lookup by (tenant, project, path) whose best
	// plan does not depend on the values, so it runs a generic plan: PostgreSQL would otherwise
	// keep planning sqlWriteIfAllowed afresh (its generic cost assumes ten ancestors), which
	// costs more than running it. A generic plan made while a table is nearly empty would
	// read it whole (cheapest then) and keep doing so as it grows, so sequential scans are
	// disabled: each statement finds its rows through an index (sqlActiveRowIDs). A
	// lock_timeout of 0 would mean "wait forever".
	x.started = true
	// The history settings reach the trigger of migration 0005 as transaction-local settings,
	// in this round trip (sqlWriteIfAllowed takes them as parameters instead).
	history := ""
	if opts.HistoryVersions > 0 {
		history = fmt.Sprintf("SET LOCAL agentfiles.history_versions = %d; SET LOCAL agentfiles.history_retention_us = %d; ",
			opts.HistoryVersions, max(opts.HistoryRetention, 0).Microseconds())
	}
	begin := fmt.Sprintf("BEGIN; SET LOCAL lock_timeout = %d; SET LOCAL statement_timeout = %s; SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off; %sSELECT pg_advisory_xact_lock(%d)",
		max(opts.LockTimeout.Milliseconds(), 1), s.statementTimeoutMillis(ctx), history, projectLockKey(scope))
	if _, err := x.conn.Exec(ctx, begin); err != nil {
		x.abort()
		return x.storeError(ctx, opLock, err)
	}
	if opts.Quota != (driver.Quota{}) {
		// The usage the quota check compares with, read under the lock, in the round trip of
		// fn's first statement.
		x.begin = []stmt{{sql: sqlQuotaBegin, args: []any{scope.Tenant, scope.Project}}}
	}
	if err := fn(&writeTx{readTx{x: x}}); err != nil {
		x.abort()
		return err
	}
	return x.commit(ctx)
}
