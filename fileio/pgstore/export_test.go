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

// GrepIndexed reports whether the active file at path is in the trigram index (grep_indexed).
// For tests.
func (s *Store) GrepIndexed(ctx context.Context, scope fileio.Scope, path string) (bool, error) {
	var indexed bool
	err := s.pool.QueryRow(ctx, `SELECT grep_indexed FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND path = $3 AND deleted = FALSE`, scope.Tenant, scope.Project, path).Scan(&indexed)
	return indexed, err
}

// GrepUnindexed counts the active files of every tenant not yet in the trigram index.
func (s *Store) GrepUnindexed(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM mcp_files WHERE deleted = FALSE AND NOT grep_indexed`).Scan(&n)
	return n, err
}
