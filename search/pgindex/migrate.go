package pgindex

import (
	"context"
	"embed"

	"github.com/agentfiles/agentfiles/internal/pgmigrate"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// schema is this package's migrations. fileio/pgstore uses a different lock key and table for
// its own, so the two packages migrate independently.
var schema = pgmigrate.Set{
	FS:      migrationFS,
	Dir:     "migrations",
	Table:   "mcp_search_schema_migrations",
	LockKey: 0x5e4c_a7d1_0b93_26f1,
}

// Migrate brings the index schema up to the newest version of its embedded migrations: it applies, each in its own
// transaction, the embedded migrations that mcp_search_schema_migrations does not list yet. It
// holds a session-level pg_advisory_lock meanwhile, so any number of instances may call it at
// once: one migrates, the others wait and then find nothing to do. Every migration is also
// written to be idempotent (IF NOT EXISTS). New calls it unless Options.SkipMigrations is set.
// It is safe for concurrent use.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return schema.Apply(ctx, pool)
}
