package pgtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// openTimeout bounds opening a store or index, migrations included.
const openTimeout = time.Minute

// Open opens a T on the database at url with open and opts (a package's Open function, such
// as pgstore.Open or pgindex.Open), fails tb if that fails, and closes the T when the test ends:
//
//	store := pgtest.Open(t, pgtest.New(t), pgstore.Open, pgstore.Options{})
func Open[T interface{ Close() }, O any](tb testing.TB, url string, open func(context.Context, string, O) (T, error), opts O) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	v, err := open(ctx, url, opts)
	if err != nil {
		tb.Fatalf("pgtest: opening: %v", err)
	}
	tb.Cleanup(v.Close)
	return v
}

// Migrator is a package's Migrate function, such as pgstore.Migrate.
type Migrator func(ctx context.Context, pool *pgxpool.Pool) error

// MigrateConcurrently runs migrate on the database at url from n goroutines at once, each with
// a pool of its own, as n instances starting together would, and fails tb for every error.
func MigrateConcurrently(tb testing.TB, url string, n int, migrate Migrator) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer pool.Close()
			<-start
			errs <- migrate(ctx, pool)
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			tb.Errorf("pgtest: concurrent migration: %v", err)
		}
	}
}

// CheckMigrated fails tb unless the database at url is at schema version latest, the newest of
// a set of migrations (whose numbers may leave gaps, as when parallel branches reserve ranges):
// migrating it again succeeds and records nothing more, and the newest version recorded in the
// migrations table is latest.
func CheckMigrated(tb testing.TB, url, table string, latest int, migrate Migrator) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer pool.Close()
	q := "SELECT count(*), COALESCE(max(version), 0) FROM " + pgx.Identifier{table}.Sanitize()
	var before, rows, newest int
	if err := pool.QueryRow(ctx, q).Scan(&before, &newest); err != nil {
		tb.Fatal(err)
	}
	if err := migrate(ctx, pool); err != nil {
		tb.Fatalf("pgtest: migrating an up-to-date schema: %v", err)
	}
	if err := pool.QueryRow(ctx, q).Scan(&rows, &newest); err != nil {
		tb.Fatal(err)
	}
	if rows != before || newest != latest {
		tb.Errorf("pgtest: %s has %d rows up to version %d after migrating again (%d before), want %d up to %d", table, rows, newest, before, before, latest)
	}
}
