package pgstore

import (
	"context"
	"sort"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
	"github.com/jackc/pgx/v5"
)

// sqlClaim leases up to $1 available jobs, oldest enqueued first. SKIP LOCKED lets concurrent
// claimers (in any process) take disjoint jobs without waiting; moving available_at to the end
// of the lease hides the job until then, so a crashed worker's jobs come back by themselves.
const sqlClaim = `WITH c AS (
    SELECT id FROM mcp_file_index_jobs
    WHERE status = 'pending' AND available_at <= statement_timestamp()
    ORDER BY enqueued_at, id
    LIMIT $1
    FOR UPDATE SKIP LOCKED
)
UPDATE mcp_file_index_jobs j
SET available_at = statement_timestamp() + $2 * interval '1 microsecond',
    claimed_until = statement_timestamp() + $2 * interval '1 microsecond',
    updated_at = statement_timestamp()
FROM c WHERE j.id = c.id
RETURNING j.id, j.apikey_hash, j.project, j.file_path, j.operation, j.file_updated_at,
          j.enqueued_at, j.retry_count, j.credential_ref, j.version`

// ClaimJobs implements driver.Outbox.
func (s *Store) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]driver.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	if lease < 0 {
		lease = 0
	}
	rows, err := s.pool.Query(ctx, sqlClaim, limit, lease.Microseconds())
	if err != nil {
		return nil, s.storeError(ctx, opOutbox, driver.Scope{}, err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (driver.Job, error) {
		var j driver.Job
		var op string
		var fileUpdated *time.Time
		var attempts int32
		err := r.Scan(&j.ID, &j.Scope.Tenant, &j.Scope.Project, &j.Path, &op, &fileUpdated,
			&j.EnqueuedAt, &attempts, &j.CredentialRef, &j.Version)
		j.Op, j.FileUpdatedAt, j.EnqueuedAt, j.Attempts = driver.JobOp(op), utc(fileUpdated), j.EnqueuedAt.UTC(), int(attempts)
		return j, err
	})
	if err != nil {
		return nil, s.storeError(ctx, opOutbox, driver.Scope{}, err)
	}
	// RETURNING does not keep the ORDER BY of the CTE.
	sort.Slice(jobs, func(a, b int) bool {
		if !jobs[a].EnqueuedAt.Equal(jobs[b].EnqueuedAt) {
			return jobs[a].EnqueuedAt.Before(jobs[b].EnqueuedAt)
		}
		return jobs[a].ID < jobs[b].ID
	})
	return jobs, nil
}

// CompleteJob implements driver.Outbox: the row goes only if no newer mutation bumped its version.
func (s *Store) CompleteJob(ctx context.Context, job driver.Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, "DELETE FROM mcp_file_index_jobs WHERE id = $1 AND version = $2", job.ID, job.Version)
	return s.storeError(ctx, opOutbox, job.Scope, err)
}

// RetryJob implements driver.Outbox. The notification wakes waiting workers, which then wait
// until notBefore by themselves (WaitForJobs looks at the earliest available_at).
func (s *Store) RetryJob(ctx context.Context, job driver.Job, notBefore time.Time, lastError string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `UPDATE mcp_file_index_jobs
SET retry_count = retry_count + 1, available_at = $3, claimed_until = NULL, last_error = $4,
    updated_at = statement_timestamp()
WHERE id = $1 AND version = $2`, job.ID, job.Version, notBefore, lastErrorText(lastError))
	return s.storeError(ctx, opOutbox, job.Scope, err)
}

// maxLastErrorBytes caps the recorded error text of a failed attempt.
const maxLastErrorBytes = 2048

// lastErrorText is s cut to maxLastErrorBytes on a character boundary.
func lastErrorText(s string) string {
	text, _ := utf8cut.Cut(s, maxLastErrorBytes)
	return text
}

// PendingJobs implements driver.Outbox: jobs not yet completed, leased or not, of every tenant.
func (s *Store) PendingJobs(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := s.pool.QueryRow(ctx, "SELECT count(*) FROM mcp_file_index_jobs").Scan(&n)
	if err != nil {
		return 0, s.storeError(ctx, opOutbox, driver.Scope{}, err)
	}
	return int(n), nil
}

var _ driver.ScopeJobLister = (*Store)(nil)

// sqlScopeJobs reads the project's jobs from the unique (apikey_hash, project, file_path) index:
// a range scan over the prefix, never the project's files. LIMIT NULL means no limit.
const sqlScopeJobs = `SELECT id, file_path, operation, file_updated_at, enqueued_at, retry_count, version
FROM mcp_file_index_jobs
WHERE apikey_hash = $1 AND project = $2 AND file_path >= $3 AND starts_with(file_path, $3)
ORDER BY enqueued_at DESC, id DESC LIMIT $4`

// ScopeJobs implements driver.ScopeJobLister in one statement.
func (s *Store) ScopeJobs(ctx context.Context, scope driver.Scope, prefix string, limit int) ([]driver.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	rows, err := s.pool.Query(ctx, sqlScopeJobs, scope.Tenant, scope.Project, prefix, lim)
	if err != nil {
		return nil, s.storeError(ctx, opOutbox, scope, err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (driver.Job, error) {
		j := driver.Job{Scope: scope}
		var op string
		var fileUpdated *time.Time
		var attempts int32
		err := r.Scan(&j.ID, &j.Path, &op, &fileUpdated, &j.EnqueuedAt, &attempts, &j.Version)
		j.Op, j.FileUpdatedAt, j.EnqueuedAt, j.Attempts = driver.JobOp(op), utc(fileUpdated), j.EnqueuedAt.UTC(), int(attempts)
		return j, err
	})
	if err != nil {
		return nil, s.storeError(ctx, opOutbox, scope, err)
	}
	return jobs, nil
}
