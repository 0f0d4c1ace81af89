package pgstore

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
	"github.com/jackc/pgx/v5"
)

// claimTenants bounds the tenants one claim takes turns among.
const claimTenants = 64

// sqlClaimTenants lists up to $2 tenants with index jobs after $1, one probe of
// uq_mcp_file_index_jobs_path per tenant. With the claim below, it is the outbox's statement
// that spans tenants; it only reads.
const sqlClaimTenants = `WITH RECURSIVE t AS (
    (SELECT apikey_hash FROM mcp_file_index_jobs WHERE apikey_hash > $1 ORDER BY apikey_hash LIMIT 1)
    UNION ALL
    SELECT n.apikey_hash FROM t CROSS JOIN LATERAL (
        SELECT apikey_hash FROM mcp_file_index_jobs WHERE apikey_hash > t.apikey_hash
        ORDER BY apikey_hash LIMIT 1) AS n
)
SELECT apikey_hash FROM t LIMIT $2`

// sqlClaim leases up to $2 available jobs of the tenants $1, taking the tenants in turns in
// that order (each tenant's oldest enqueued job first: every tenant's first job, then every
// tenant's second, …). SKIP LOCKED lets concurrent claimers (in any process) take disjoint jobs
// without waiting, and no writer waits for more than this one short statement (a writer that
// replaces a claimed job updates the row after it). Moving available_at to the end of the
// lease ($3 microseconds) hides the job until then, so a crashed worker's jobs come back by
// themselves. Each tenant's jobs are read from idx_mcp_file_index_jobs_tenant (migration 0017).
const sqlClaim = `WITH c AS MATERIALIZED (
    SELECT l.id, l.turn, t.ord FROM unnest($1::text[]) WITH ORDINALITY AS t(apikey_hash, ord)
    CROSS JOIN LATERAL (
        SELECT id, row_number() OVER (ORDER BY enqueued_at, id) AS turn FROM (
            SELECT id, enqueued_at FROM mcp_file_index_jobs
            WHERE apikey_hash = t.apikey_hash AND status = 'pending' AND available_at <= statement_timestamp()
            ORDER BY enqueued_at, id
            LIMIT $2
            FOR UPDATE SKIP LOCKED) AS j
    ) AS l
), w AS (
    SELECT id FROM c ORDER BY turn, ord LIMIT $2
)
UPDATE mcp_file_index_jobs j
SET available_at = statement_timestamp() + $3 * interval '1 microsecond',
    claimed_until = statement_timestamp() + $3 * interval '1 microsecond',
    updated_at = statement_timestamp()
FROM w WHERE j.id = w.id
RETURNING j.id, j.apikey_hash, j.project, j.file_path, j.operation, j.file_updated_at,
          j.enqueued_at, j.retry_count, j.credential_ref, j.version`

// claimTurn is the tenant that the last claim of this process served last: the next claim
// starts with the tenants after it.
type claimTurn struct {
	mu     sync.Mutex
	tenant string
}

// ClaimJobs implements driver.Outbox: tenants take turns. It lists up to 64 tenants with jobs
// after the tenant this process's previous claim served last (then from the first tenant on)
// and leases their jobs in turns, each tenant's oldest first, in one short statement.
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
	tenants, err := s.claimTenants(ctx, min(limit, claimTenants))
	if err != nil || len(tenants) == 0 {
		return nil, err
	}
	jobs, err := s.claim(ctx, tenants, limit, lease)
	if err != nil {
		return nil, s.storeError(ctx, opOutbox, driver.Scope{}, err)
	}
	s.claimTurn.mu.Lock()
	s.claimTurn.tenant = lastServed(tenants, jobs, s.claimTurn.tenant)
	s.claimTurn.mu.Unlock()
	// RETURNING does not keep the order of the CTE.
	sort.Slice(jobs, func(a, b int) bool {
		if !jobs[a].EnqueuedAt.Equal(jobs[b].EnqueuedAt) {
			return jobs[a].EnqueuedAt.Before(jobs[b].EnqueuedAt)
		}
		return jobs[a].ID < jobs[b].ID
	})
	return jobs, nil
}

// sqlClaimSettings makes sqlClaim read each tenant's oldest jobs in the order of
// idx_mcp_file_index_jobs_tenant, whatever the statistics say: with statistics from before a
// burst of jobs (a table the planner believes nearly empty) it would read and sort all of a
// tenant's jobs instead, a million after a large import. JIT is off: the cost that
// enable_sort = off puts on the sorts that remain (of a few rows) would make PostgreSQL compile
// the statement, which took 0.3 s.
const sqlClaimSettings = `SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`

// claim runs sqlClaim in a transaction sent in one round trip with its settings.
func (s *Store) claim(ctx context.Context, tenants []string, limit int, lease time.Duration) ([]driver.Job, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(sqlClaimSettings)
	b.Queue(sqlClaim, tenants, limit, lease.Microseconds())
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	var jobs []driver.Job
	for range 2 {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			jobs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (driver.Job, error) {
				var j driver.Job
				var op string
				var fileUpdated *time.Time
				var attempts int32
				err := r.Scan(&j.ID, &j.Scope.Tenant, &j.Scope.Project, &j.Path, &op, &fileUpdated,
					&j.EnqueuedAt, &attempts, &j.CredentialRef, &j.Version)
				j.Op, j.FileUpdatedAt, j.EnqueuedAt, j.Attempts = driver.JobOp(op), utc(fileUpdated), j.EnqueuedAt.UTC(), int(attempts)
				return j, err
			})
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
		return nil, err
	}
	return jobs, nil
}

// lastServed is the tenant whose job the claim took last in its turns (every tenant's first
// job in the order of tenants, then every tenant's second, …): the last of tenants with the
// most jobs among jobs. It is before when jobs is empty.
func lastServed(tenants []string, jobs []driver.Job, before string) string {
	taken := make(map[string]int, len(tenants))
	most := 0
	for _, j := range jobs {
		taken[j.Scope.Tenant]++
		most = max(most, taken[j.Scope.Tenant])
	}
	for i := len(tenants) - 1; i >= 0 && most > 0; i-- {
		if taken[tenants[i]] == most {
			return tenants[i]
		}
	}
	return before
}

// claimTenants lists up to n tenants with jobs, in turn order: those after the tenant the
// previous claim served last, then from the first tenant on.
func (s *Store) claimTenants(ctx context.Context, n int) ([]string, error) {
	s.claimTurn.mu.Lock()
	after := s.claimTurn.tenant
	s.claimTurn.mu.Unlock()
	list := func(after string, n int) ([]string, error) {
		rows, err := s.pool.Query(ctx, sqlClaimTenants, after, n)
		if err == nil {
			var out []string
			if out, err = pgx.CollectRows(rows, pgx.RowTo[string]); err == nil {
				return out, nil
			}
		}
		return nil, s.storeError(ctx, opOutbox, driver.Scope{}, err)
	}
	tenants, err := list(after, n)
	if err != nil || len(tenants) == n || after == "" {
		return tenants, err
	}
	first, err := list("", n-len(tenants))
	for _, t := range first {
		if t <= after {
			tenants = append(tenants, t)
		}
	}
	return tenants, err
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
