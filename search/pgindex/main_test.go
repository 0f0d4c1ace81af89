package pgindex_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search/pgindex"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newIndex returns an Index on an empty database of its own (a recycled one: see
// pgtest.Recycled), closed when the test ends, and the database URL.
func newIndex(t testing.TB, opts pgindex.Options) (*pgindex.Index, string) {
	t.Helper()
	url := pgtest.Recycled(t, "pgindex", openMigrates)
	return pgtest.Open(t, url, pgindex.Open, opts), url
}

// openMigrates brings a database to the schema that opening an Index leaves, which goes
// further than Migrate (Open converts what older versions indexed and drops their tables).
func openMigrates(ctx context.Context, pool *pgxpool.Pool) error {
	ix, err := pgindex.New(ctx, pool, pgindex.Options{})
	if err != nil {
		return err
	}
	ix.Close()
	return nil
}
