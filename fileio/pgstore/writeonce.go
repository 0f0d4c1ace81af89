package pgstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var _ driver.ConditionalUpdater = (*Store)(nil)

// sqlUpdateSettings sets, for the transaction, what Update sets in its first round trip: the
// lock timeout ($1, in milliseconds), the generic plans without sequential scans (see
// Update), the history settings that the triggers of migrations 0005 and 0006 read ($2
// versions, $3 retention in microseconds; "0" means off, as unset does), and the statement
// timeout ($4, milliseconds). As parameters, one prepared statement serves every project.
const sqlUpdateSettings = `SELECT set_config('lock_timeout', $1, true),
       set_config('statement_timeout', $4, true),
       set_config('plan_cache_mode', 'force_generic_plan', true),
       set_config('enable_seqscan', 'off', true),
       set_config('agentfiles.history_versions', $2, true),
       set_config('agentfiles.history_retention_us', $3, true)`

// sqlLockProject takes the project lock ($1, projectLockKey) until the transaction ends.
const sqlLockProject = `SELECT pg_advisory_xact_lock($1)`

// UpdateIfAllowed implements driver.ConditionalUpdater in one round trip: BEGIN, the settings,
// the project lock, sqlWriteIfAllowedNotify and COMMIT go out as one pgx batch, which pgx
// pipelines with a single Sync. PostgreSQL runs them in order and, after a failing statement,
// skips the rest up to the Sync, so a lock timeout or a failing write never reaches COMMIT; the
// transaction is then rolled back (one more round trip, on failure only). A failure that is not
// the server's (a lost connection) may come after COMMIT ran, so it is reported as such (see
// batchError). The statement writes only when driver.ConditionalWrite.Allows holds, so a
// refused write commits an empty transaction.
func (s *Store) UpdateIfAllowed(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, w driver.ConditionalWrite, put driver.PutOptions) (driver.ConditionalResult, error) {
	if err := ctx.Err(); err != nil {
		return driver.ConditionalResult{}, err
	}
	x, err := s.openSession(ctx, scope, nil)
	if err != nil {
		return driver.ConditionalResult{}, err
	}
	defer x.conn.Release()
	defer x.forgetWritten()
	opts.LockTimeout = opts.LockWait()
	x.opts = opts
	x.started = true
	cw := newConditionalWrite(x, w, put, opts.Quota)
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sqlUpdateSettings, strconv.FormatInt(max(opts.LockTimeout.Milliseconds(), 1), 10),
		strconv.Itoa(max(opts.HistoryVersions, 0)), strconv.FormatInt(max(opts.HistoryRetention, 0).Microseconds(), 10),
		s.statementTimeoutMillis(ctx))
	b.Queue(sqlLockProject, projectLockKey(scope))
	b.Queue(sqlWriteIfAllowedNotify, cw.args...)
	b.Queue("COMMIT")
	br := x.conn.Conn().SendBatch(ctx, b)
	err = runWriteBatch(ctx, x, br, cw)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = x.storeError(ctx, opCommit, cerr)
	}
	if err != nil {
		x.rollback()
		return driver.ConditionalResult{}, err
	}
	res, err := cw.result(ctx, x)
	x.cacheCommitted() // the batch committed
	return res, err
}

// runWriteBatch reads the results of UpdateIfAllowed's batch in order and returns the first
// failure as a coded error (see batchError).
func runWriteBatch(ctx context.Context, x *session, br pgx.BatchResults, cw *conditionalWrite) error {
	for range 3 { // BEGIN, the settings, the lock
		if _, err := br.Exec(); err != nil {
			return batchError(ctx, x, opLock, err)
		}
	}
	rows, err := br.Query()
	if err == nil {
		err = scanRows(rows, cw.scan)
	}
	if err != nil {
		return batchError(ctx, x, opWrite, err)
	}
	tag, err := br.Exec()
	if err == nil && tag.String() != "COMMIT" {
		err = errors.New("the transaction was rolled back at commit")
	}
	if err != nil {
		return x.storeError(ctx, opCommit, err)
	}
	return nil
}

// batchError maps the failure of a statement of the batch. A server error (*pgconn.PgError)
// means PostgreSQL skipped the rest of the batch, COMMIT included, so nothing was saved: it is
// reported for op. Any other failure (a lost connection, a row the client could not read) may
// have happened after the server ran COMMIT, so it is reported as a failure while committing,
// whose message says that the change may or may not have been saved.
func batchError(ctx context.Context, x *session, op string, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		op = opCommit
	}
	return x.storeError(ctx, op, err)
}
