package pgstore

import (
	"context"
	"embed"

	"github.com/agentfiles/agentfiles/internal/pgmigrate"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// schema is this package's migrations. Its lock key is a fixed constant; project write locks use
// 64-bit hashes of (tenant, project) in the same key space (see projectLockKey), so a clash has
// probability 2^-64 and would only make one project's writes wait for a migration.
var schema = pgmigrate.Set{
	FS:      migrationFS,
	Dir:     "migrations",
	Table:   "mcp_files_schema_migrations",
	LockKey: 0x3a4f_9c1d_52e8_7b06,
}

// Migrate applies the embedded migrations that mcp_files_schema_migrations does not list yet,
// each in its own transaction, under a session-level pg_advisory_lock: any number of instances
// may call it at once (see the package documentation, Schema and migrations). New calls it
// unless Options.SkipMigrations is set. It is safe for concurrent use.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return schema.Apply(ctx, pool)
}
