package pgstore_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newStore returns a Store on an empty database of its own (a recycled one: see
// pgtest.Recycled), closed when the test ends.
func newStore(t testing.TB, opts pgstore.Options) (*pgstore.Store, string) {
	t.Helper()
	url := pgtest.Recycled(t, "pgstore", pgstore.Migrate)
	return pgtest.Open(t, url, pgstore.Open, opts), url
}

// newFreshStore is newStore on a database created for the test: for a test whose answer
// depends on the planner's view of the tables (statistics, pages of deleted rows), which a
// recycled database keeps from the tests before.
func newFreshStore(t testing.TB, opts pgstore.Options) (*pgstore.Store, string) {
	t.Helper()
	url := pgtest.New(t)
	return pgtest.Open(t, url, pgstore.Open, opts), url
}

var testScope = driver.Scope{Tenant: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Project: "proj"}

func put(t testing.TB, s driver.Store, scope driver.Scope, path, content string) driver.FileInfo {
	t.Helper()
	var fi driver.FileInfo
	err := s.Update(context.Background(), scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		var err error
		fi, err = tx.Put(context.Background(), path, []byte(content), driver.PutOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("Put %s: %v", path, err)
	}
	return fi
}

func get(t testing.TB, s driver.Store, scope driver.Scope, path string) (driver.File, error) {
	t.Helper()
	var f driver.File
	err := s.View(context.Background(), scope, func(tx driver.ReadTx) error {
		var err error
		f, err = tx.Get(context.Background(), path)
		return err
	})
	return f, err
}

func list(t testing.TB, s driver.Store, scope driver.Scope, prefix string, limit int) []string {
	t.Helper()
	var paths []string
	err := s.View(context.Background(), scope, func(tx driver.ReadTx) error {
		infos, err := tx.List(context.Background(), prefix, limit)
		for _, fi := range infos {
			paths = append(paths, fi.Path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("List %q: %v", prefix, err)
	}
	return paths
}
