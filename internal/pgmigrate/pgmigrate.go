// Package pgmigrate applies a package's embedded, versioned SQL migrations to PostgreSQL, safely
// from many instances at once. fileio/pgstore and search/pgindex each own one [Set].
package pgmigrate

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Set is one package's migrations: files named NNNN_description.sql in Dir of FS, recorded as
// applied in Table, serialised across instances by the session advisory lock LockKey.
type Set struct {
	FS      fs.FS
	Dir     string
	Table   string // an SQL identifier the package owns, e.g. mcp_files_schema_migrations
	LockKey int64
}

// Migration is one embedded schema step.
type Migration struct {
	Version int
	Name    string // file name without .sql
	SQL     string
}

// Migrations lists the set's migrations by ascending version. Names must start with a positive
// number and '_', and versions must be unique.
func (s Set) Migrations() ([]Migration, error) {
	paths, err := fs.Glob(s.FS, path.Join(s.Dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, p := range paths {
		base := path.Base(p)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", base)
		}
		body, err := fs.ReadFile(s.FS, p)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: strings.TrimSuffix(base, ".sql"), SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}

// Latest is the newest version of the set, or 0 when it has none or cannot be read.
func (s Set) Latest() int {
	ms, err := s.Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// WithLock runs fn on one pooled connection while it holds the set's session advisory lock.
func (s Set) WithLock(ctx context.Context, pool *pgxpool.Pool, fn func(*pgxpool.Conn) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", s.LockKey); err != nil {
		return err
	}
	defer func() {
		// A broken connection has lost the session lock already; the pool discards it.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", s.LockKey)
	}()
	return fn(conn)
}

// Apply brings the schema up to Latest: under the lock, it applies each migration that Table
// does not list yet, in its own transaction together with its row in Table. Many instances may
// call it at once: one migrates, the others wait and then find nothing to do.
func (s Set) Apply(ctx context.Context, pool *pgxpool.Pool) error {
	return s.WithLock(ctx, pool, func(conn *pgxpool.Conn) error { return s.ApplyLocked(ctx, conn) })
}

// ApplyLocked is Apply for a caller that already holds the lock on conn (see WithLock).
func (s Set) ApplyLocked(ctx context.Context, conn *pgxpool.Conn) error {
	ms, err := s.Migrations()
	if err != nil {
		return err
	}
	table := pgx.Identifier{s.Table}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
		version    INT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, "SELECT version FROM "+table)
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
		if applied[m.Version] {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO "+table+" (version, name) VALUES ($1, $2)", m.Version, m.Name)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
