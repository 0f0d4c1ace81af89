package pgstore

import (
	"context"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaVersion is the newest schema version of the embedded migrations.
func SchemaVersion() int { return schema.Latest() }

// ProjectLockKey exposes projectLockKey to the benchmark's reference transaction.
var ProjectLockKey = projectLockKey

// LastJobError returns the error text recorded by the last RetryJob of the pending job for
// (scope, path), and whether such a job exists. For tests.
func (s *Store) LastJobError(ctx context.Context, scope driver.Scope, path string) (string, bool, error) {
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
func (s *Store) GrepIndexed(ctx context.Context, scope driver.Scope, path string) (bool, error) {
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

// MigrateTo applies the embedded migrations up to version only, as an older release would
// have: for upgrade tests.
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int) error {
	old := fstest.MapFS{}
	paths, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	for _, p := range paths {
		num, _, _ := strings.Cut(path.Base(p), "_")
		if v, err := strconv.Atoi(num); err == nil && v <= version {
			body, err := fs.ReadFile(migrationFS, p)
			if err != nil {
				return err
			}
			old[p] = &fstest.MapFile{Data: body}
		}
	}
	set := schema
	set.FS = old
	return set.Apply(ctx, pool)
}
