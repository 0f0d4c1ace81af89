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

// SchemaVersion is the newest schema version this package's embedded migrations create.
func SchemaVersion() int { return schema.Latest() }

// Migrate brings the database's schema up to [SchemaVersion] by applying the embedded migrations
// that the table mcp_files_schema_migrations does not list yet, each in its own transaction. It
// holds a session-level pg_advisory_lock meanwhile, so many instances may call it at once: one
// migrates, the others wait and then find nothing to do. New calls it unless
// Options.SkipMigrations is set. It is safe for concurrent use.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return schema.Apply(ctx, pool)
}
