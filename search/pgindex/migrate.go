package pgindex

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded schema step, named NNNN_description.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// schemaLockKey is the session pg_advisory_lock key that serialises pgindex schema changes of
// every instance sharing a database. fileio/pgstore uses a different constant for its own
// migrations, so the two packages migrate independently (its migration runner is not exported,
// so pgindex keeps its own versioned table, mcp_search_schema_migrations).
const schemaLockKey int64 = 0x5e4c_a7d1_0b93_26f1

func migrations() ([]migration, error) {
	paths, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, p := range paths {
		base := strings.TrimPrefix(p, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", base)
		}
		body, err := migrationFS.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// SchemaVersion is the newest schema version this package's embedded migrations create.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// Migrate brings the index schema up to [SchemaVersion]: it applies, each in its own
// transaction, the embedded migrations that mcp_search_schema_migrations does not list yet. It
// holds a session-level pg_advisory_lock meanwhile, so any number of instances may call it at
// once: one migrates, the others wait and then find nothing to do. Every migration is also
// written to be idempotent (IF NOT EXISTS). New calls it unless Options.SkipMigrations is set.
// It is safe for concurrent use.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return withSchemaLock(ctx, pool, func(conn *pgxpool.Conn) error { return migrate(ctx, conn) })
}

// withSchemaLock runs fn on one connection holding the schema advisory lock.
func withSchemaLock(ctx context.Context, pool *pgxpool.Pool, fn func(*pgxpool.Conn) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", schemaLockKey); err != nil {
		return err
	}
	defer func() {
		// A broken connection has lost the session lock already; the pool discards it.
		conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", schemaLockKey)
	}()
	return fn(conn)
}

func migrate(ctx context.Context, conn *pgxpool.Conn) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS mcp_search_schema_migrations (
		version    INT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, "SELECT version FROM mcp_search_schema_migrations")
	if err != nil {
		return err
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return err
	}
	applied := make(map[int]bool, len(versions))
	for _, v := range versions {
		applied[int(v)] = true
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO mcp_search_schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
