package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

var (
	_ driver.HistoryPurger = (*writeTx)(nil)
	_ driver.HistorySizer  = (*readTx)(nil)
)

const sqlKeptBytes = `SELECT COALESCE((SELECT size_bytes FROM mcp_file_history_usage WHERE apikey_hash = $1 AND project = $2), 0)`

// KeptBytes implements driver.HistorySizer.
func (tx *readTx) KeptBytes(ctx context.Context) (int64, error) {
	var n int64
	err := tx.x.query(ctx, opRead, sqlKeptBytes, []any{tx.x.scope.Tenant, tx.x.scope.Project}, func(r pgx.Rows) error {
		return r.Scan(&n)
	})
	return n, err
}

// sqlDropVersions deletes the kept versions of path $3 and below it ($4 is $3 + "/"; $3 ""
// means every path) that no checkpoint pins and takes their bytes off the project's history
// usage, in one statement.
const sqlDropVersions = `WITH d AS (
    DELETE FROM mcp_file_versions v
    WHERE apikey_hash = $1 AND project = $2 AND ($3 = '' OR path = $3 OR starts_with(path, $4))
      AND NOT mcp_file_version_pinned(v.apikey_hash, v.project, v.path, v.version)
    RETURNING size
), u AS (
    UPDATE mcp_file_history_usage SET size_bytes = size_bytes - (SELECT COALESCE(sum(size), 0) FROM d)
    WHERE apikey_hash = $1 AND project = $2
)
SELECT count(*), COALESCE(sum(size), 0) FROM d`

// DropVersions implements driver.HistoryPurger in one statement (see sqlDropVersions).
func (tx *writeTx) DropVersions(ctx context.Context, path string) (int, int64, error) {
	var n, bytes int64
	sc := tx.x.scope
	err := tx.x.query(ctx, opWrite, sqlDropVersions, []any{sc.Tenant, sc.Project, path, path + "/"}, func(r pgx.Rows) error {
		return r.Scan(&n, &bytes)
	})
	return int(n), bytes, err
}

var _ driver.UsageReader = (*readTx)(nil)

const sqlUsage = `SELECT bytes, files, kept, events FROM mcp_files_usage($1, $2)`

// Usage implements driver.UsageReader with one statement (migration 0014's mcp_files_usage).
func (tx *readTx) Usage(ctx context.Context) (driver.Usage, error) {
	var u driver.Usage
	err := tx.x.query(ctx, opRead, sqlUsage, []any{tx.x.scope.Tenant, tx.x.scope.Project}, func(r pgx.Rows) error {
		return r.Scan(&u.Bytes, &u.Files, &u.Kept, &u.Events)
	})
	return u, err
}
