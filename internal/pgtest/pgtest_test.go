package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/jackc/pgx/v5"
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
	srv := pgtest.Dedicated(t)
	url, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
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
	for deadline := time.Now().Add(10 * time.Second); conn.Ping(ctx) == nil; {
		if time.Now().After(deadline) {
			t.Fatal("ping still succeeds 10s after the server was killed")
		}
		time.Sleep(10 * time.Millisecond)
	}
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
