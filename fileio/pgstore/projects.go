package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/jackc/pgx/v5"
)

var _ driver.ProjectLister = (*Store)(nil)

// sqlListProjects is a loose index scan over uq_mcp_files_active (apikey_hash, project, path)
// WHERE deleted = FALSE: each step finds the next project name above the previous one with one
// index probe, so the cost grows with the number of projects, not of files.
const sqlListProjects = `WITH RECURSIVE p(project) AS (
    (SELECT project FROM mcp_files WHERE apikey_hash = $1 AND deleted = FALSE ORDER BY project LIMIT 1)
    UNION ALL
    SELECT (SELECT f.project FROM mcp_files f
            WHERE f.apikey_hash = $1 AND f.deleted = FALSE AND f.project > p.project
            ORDER BY f.project LIMIT 1)
    FROM p WHERE p.project IS NOT NULL
)
SELECT project FROM p WHERE project IS NOT NULL LIMIT $2`

// ListProjects implements driver.ProjectLister with one statement.
func (s *Store) ListProjects(ctx context.Context, tenant string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	scope := driver.Scope{Tenant: tenant}
	rows, err := s.pool.Query(ctx, sqlListProjects, tenant, lim)
	if err != nil {
		return nil, s.storeError(ctx, opRead, scope, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.storeError(ctx, opRead, scope, err)
	}
	if names == nil {
		names = []string{}
	}
	return names, nil
}
