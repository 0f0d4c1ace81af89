package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
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
