package pgtest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestNewGivesSeparateDatabases(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.New(t), pgtest.New(t)
	if a == b {
		t.Fatalf("two calls returned the same database %q", a)
	}
	connA := connect(t, a)
	if _, err := connA.Exec(ctx, "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	connB := connect(t, b)
	var n int
	if err := connB.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("table created in database A is visible in database B")
	}
}

func TestKillAndRestartKeepCommittedData(t *testing.T) {
	ctx := context.Background()
	srv, url := pgtest.DedicatedDatabase(t)
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, "CREATE TABLE t (x int); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	port := srv.Port()
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	// SIGKILL is delivered asynchronously: the backend serving conn may answer for a moment
	// after the postmaster is gone. Poll until it stops answering.
	poll.Eventually(t, 10*time.Second, "ping fails after the server was killed", func() bool { return conn.Ping(ctx) != nil })
	if err := srv.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if srv.Port() != port {
		t.Fatalf("port changed across restart: %d -> %d", port, srv.Port())
	}
	var x int
	if err := connect(t, url).QueryRow(ctx, "SELECT x FROM t").Scan(&x); err != nil {
		t.Fatal(err)
	}
	if x != 42 {
		t.Fatalf("after restart x = %d, want 42", x)
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// TestHarness: Open closes what it opened, MigrateConcurrently and CheckMigrated agree on a
// migration that records its versions.
func TestHarness(t *testing.T) {
	url := pgtest.New(t)
	var closed bool
	t.Run("Open", func(t *testing.T) {
		c := pgtest.Open(t, url, func(ctx context.Context, url string, name string) (*closer, error) {
			return &closer{name: name, closed: &closed}, nil
		}, "x")
		if c.name != "x" || closed {
			t.Fatalf("Open = %+v, closed %v", c, closed)
		}
	})
	if !closed {
		t.Error("Open did not close at the end of the test")
	}
	migrate := func(ctx context.Context, pool *pgxpool.Pool) error {
		// One implicit transaction, serialised by the lock, as a real migration would be.
		_, err := pool.Exec(ctx, `SELECT pg_advisory_xact_lock(7);
			CREATE TABLE IF NOT EXISTS harness_versions (version INT PRIMARY KEY);
			INSERT INTO harness_versions VALUES (1), (2) ON CONFLICT DO NOTHING`)
		return err
	}
	pgtest.MigrateConcurrently(t, url, 4, migrate)
	pgtest.CheckMigrated(t, url, "harness_versions", 2, migrate)
}

type closer struct {
	name   string
	closed *bool
}

func (c *closer) Close() { *c.closed = true }

// migrateCounter is a Migrator of a table with a sequence and a row the migration writes.
func migrateCounter(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS counters (id bigserial PRIMARY KEY, name text NOT NULL);
CREATE TABLE IF NOT EXISTS seen (counter bigint, at timestamptz DEFAULT now());
CREATE TABLE IF NOT EXISTS labels (counter bigint NOT NULL REFERENCES counters (id), label text);
CREATE OR REPLACE FUNCTION counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO seen (counter) VALUES (OLD.id); RETURN OLD; END $$;
CREATE OR REPLACE TRIGGER counted BEFORE DELETE ON counters FOR EACH ROW EXECUTE FUNCTION counted();
INSERT INTO counters (name) SELECT 'written by the migration' WHERE NOT EXISTS (SELECT FROM counters)`)
	return err
}

// TestRecycled: a recycled database comes back to the next test as its migrations left it
// (their row, the sequence where they left it, no trigger's side effect of the reset), a
// session left open does not stop that, and one whose schema a test changed is not reused.
func TestRecycled(t *testing.T) {
	ctx := context.Background()
	rows := func(t *testing.T, url string) []string {
		t.Helper()
		r, err := connect(t, url).Query(ctx, `SELECT id || ' ' || name FROM counters UNION ALL SELECT 'seen ' || counter FROM seen
UNION ALL SELECT 'label ' || counter FROM labels ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(r, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	parent := t
	var first string
	t.Run("writes", func(t *testing.T) {
		first = pgtest.Recycled(t, "counters", migrateCounter)
		if diff := cmp.Diff([]string{"1 written by the migration"}, rows(t, first)); diff != "" {
			t.Errorf("a new database (-want +got):\n%s", diff)
		}
		conn := connect(t, first)
		if _, err := conn.Exec(ctx, `INSERT INTO counters (name) VALUES ('a'), ('b'); DELETE FROM counters WHERE name = 'a';
INSERT INTO labels SELECT id, 'label' FROM counters`); err != nil {
			t.Fatal(err)
		}
		// A session still in a transaction holding a lock when the test ends.
		idle, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		parent.Cleanup(func() { idle.Close(ctx) })
		if _, err := idle.Exec(ctx, "BEGIN; LOCK TABLE counters IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("reused", func(t *testing.T) {
		url := pgtest.Recycled(t, "counters", migrateCounter)
		if url != first {
			t.Fatalf("a second test got database %s, want the first one back (%s)", url, first)
		}
		if diff := cmp.Diff([]string{"1 written by the migration"}, rows(t, url)); diff != "" {
			t.Errorf("after the reset (-want +got):\n%s", diff)
		}
		var next int
		if err := connect(t, url).QueryRow(ctx, "INSERT INTO counters (name) VALUES ('c') RETURNING id").Scan(&next); err != nil || next != 2 {
			t.Errorf("the next id after the reset: %d, %v; want 2, as after the migration", next, err)
		}
		if _, err := connect(t, url).Exec(ctx, "ALTER TABLE counters ADD COLUMN extra int"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("schema changed", func(t *testing.T) {
		url := pgtest.Recycled(t, "counters", migrateCounter)
		if url == first {
			t.Fatalf("the database whose schema a test changed was handed out again")
		}
		if diff := cmp.Diff([]string{"1 written by the migration"}, rows(t, url)); diff != "" {
			t.Errorf("a new database (-want +got):\n%s", diff)
		}
		var exists bool
		if err := connect(t, url).QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", dbName(t, first)).Scan(&exists); err != nil || exists {
			t.Errorf("the changed database still exists: %v, %v", exists, err)
		}
	})
}

// dbName is the database a connection URL names.
func dbName(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// TestRecycledInParallel: tests running at once never share a recycled database, and each
// finds it empty of the others' rows.
func TestRecycledInParallel(t *testing.T) {
	var mu sync.Mutex
	held := map[string]bool{}
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			url := pgtest.Recycled(t, "parallel", migrateCounter)
			mu.Lock()
			if held[url] {
				t.Errorf("database %s handed to two tests at once", url)
			}
			held[url] = true
			mu.Unlock()
			conn := connect(t, url)
			var n int
			if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM counters").Scan(&n); err != nil || n != 1 {
				t.Errorf("rows at the start: %d, %v; want the migration's one", n, err)
			}
			if _, err := conn.Exec(context.Background(), "INSERT INTO counters (name) VALUES ('mine')"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				mu.Lock()
				delete(held, url)
				mu.Unlock()
			})
		})
	}
}
