package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/jackc/pgx/v5"
)

// SchemaVersion is the newest schema version of the embedded migrations.
func SchemaVersion() int { return schema.Latest() }

// ProjectLockKey exposes projectLockKey to the benchmark's reference transaction.
var ProjectLockKey = projectLockKey

// LastJobError returns the error text recorded by the last RetryJob of the pending job for
// (scope, path), and whether such a job exists. For tests.
func (s *Store) LastJobError(ctx context.Context, scope fileio.Scope, path string) (string, bool, error) {
	var msg string
	err := s.pool.QueryRow(ctx, `SELECT last_error FROM mcp_file_index_jobs
WHERE apikey_hash = $1 AND project = $2 AND file_path = $3`, scope.Tenant, scope.Project, path).Scan(&msg)
	if err == pgx.ErrNoRows {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.storeError(ctx, opOutbox, scope, err)
	}
	return msg, true, nil
}
