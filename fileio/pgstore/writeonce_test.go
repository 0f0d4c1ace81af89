package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestUpdateIfAllowedMatchesUpdate: the same sequence of conditional writes, made with
// UpdateIfAllowed in one project and with WriteIfAllowed inside Update in another, returns the
// same results and leaves the same files, byte counts, kept versions and outbox jobs.
func TestUpdateIfAllowedMatchesUpdate(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	once := driver.Scope{Tenant: testScope.Tenant, Project: "once"}
	tx := driver.Scope{Tenant: testScope.Tenant, Project: "tx"}
	opts := driver.UpdateOptions{HistoryVersions: 2, HistoryRetention: time.Hour}
	limits := func(w driver.ConditionalWrite) driver.ConditionalWrite {
		if w.MaxFileBytes == 0 {
			w.MaxFileBytes = 100
		}
		if w.MaxProjectBytes == 0 {
			w.MaxProjectBytes = 1000
		}
		return w
	}
	for _, tc := range []struct {
		name string
		w    driver.ConditionalWrite
	}{
		{"create", driver.ConditionalWrite{Path: "/a/b", Data: []byte("hello")}},
		{"replace", driver.ConditionalWrite{Path: "/a/b", Data: []byte("hi")}},
		{"append", driver.ConditionalWrite{Path: "/a/b", Data: []byte(" there"), Append: true}},
		{"append creates", driver.ConditionalWrite{Path: "/log", Data: []byte("1"), Append: true}},
		{"replace again", driver.ConditionalWrite{Path: "/a/b", Data: []byte("third")}},
		{"exclusive on a file", driver.ConditionalWrite{Path: "/a/b", Data: []byte("x"), Exclusive: true}},
		{"below a file", driver.ConditionalWrite{Path: "/a/b/c", Data: []byte("x")}},
		{"at a directory", driver.ConditionalWrite{Path: "/a", Data: []byte("x")}},
		{"file too large", driver.ConditionalWrite{Path: "/big", Data: []byte(strings.Repeat("x", 101))}},
		{"project full", driver.ConditionalWrite{Path: "/big", Data: []byte("xx"), MaxProjectBytes: 5}},
		{"shrink a full project", driver.ConditionalWrite{Path: "/a/b", Data: []byte("t"), MaxProjectBytes: 1}},
		{"exclusive create", driver.ConditionalWrite{Path: "/new", Data: []byte(""), Exclusive: true}},
	} {
		w := limits(tc.w)
		got, err := s.UpdateIfAllowed(ctx, once, opts, w, driver.PutOptions{CredentialRef: "ref"})
		if err != nil {
			t.Fatalf("%s: UpdateIfAllowed: %v", tc.name, err)
		}
		var want driver.ConditionalResult
		err = s.Update(ctx, tx, opts, func(wtx driver.WriteTx) error {
			var err error
			want, err = wtx.(driver.ConditionalWriter).WriteIfAllowed(ctx, w, driver.PutOptions{CredentialRef: "ref"})
			return err
		})
		if err != nil {
			t.Fatalf("%s: Update: %v", tc.name, err)
		}
		if got.Written != w.Allows(got.Check) {
			t.Errorf("%s: Written = %v, Allows = %v", tc.name, got.Written, w.Allows(got.Check))
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreTypes(time.Time{})); diff != "" {
			t.Errorf("%s: UpdateIfAllowed (-Update +UpdateIfAllowed):\n%s", tc.name, diff)
		}
	}
	if diff := cmp.Diff(projectState(t, s, tx), projectState(t, s, once)); diff != "" {
		t.Errorf("state (-Update +UpdateIfAllowed):\n%s", diff)
	}
}

// projectState lists what a project holds: files with their content and version, byte counts,
// kept versions and outbox jobs, one string per row.
func projectState(t *testing.T, s *pgstore.Store, scope driver.Scope) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'file ' || path || ' ' || convert_from(content, 'UTF8') || ' v' || version FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND NOT deleted`,
		`SELECT 'usage ' || size_bytes || ' ' || file_count FROM mcp_file_project_usage WHERE apikey_hash = $1 AND project = $2`,
		`SELECT 'history ' || size_bytes FROM mcp_file_history_usage WHERE apikey_hash = $1 AND project = $2`,
		`SELECT 'version ' || path || ' v' || version || ' ' || convert_from(content, 'UTF8') FROM mcp_file_versions WHERE apikey_hash = $1 AND project = $2`,
		`SELECT 'job ' || file_path || ' ' || operation || ' ' || credential_ref FROM mcp_file_index_jobs WHERE apikey_hash = $1 AND project = $2`,
	} {
		rows, err := s.Pool().Query(context.Background(), q+" ORDER BY 1", scope.Tenant, scope.Project)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lines...)
	}
	return out
}

// TestUpdateIfAllowedFailures: a lock timeout is RESOURCE_BUSY and a failing statement keeps
// its code; neither leaves a trace nor an open transaction on the (single) connection, and the
// next write through it succeeds and announces its job.
func TestUpdateIfAllowedFailures(t *testing.T) {
	_, url := newStore(t, pgstore.Options{})
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pgstore.New(ctx, pool, pgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})
	w := driver.ConditionalWrite{Path: "/f", Data: []byte("x"), MaxFileBytes: 100, MaxProjectBytes: 100}

	release := holdProjectLock(t, holder, testScope, nil)
	_, err = s.UpdateIfAllowed(ctx, testScope, driver.UpdateOptions{LockTimeout: 100 * time.Millisecond}, w, driver.PutOptions{})
	release()
	if code := agentfiles.ErrorCode(err); code != agentfiles.CodeResourceBusy || !strings.Contains(err.Error(), "for more than 100ms") {
		t.Errorf("write while the lock is held: %v, want RESOURCE_BUSY naming the lock timeout", err)
	}

	long := driver.Scope{Tenant: testScope.Tenant, Project: strings.Repeat("p", 129)}
	_, err = s.UpdateIfAllowed(ctx, long, driver.UpdateOptions{}, w, driver.PutOptions{})
	if code := agentfiles.ErrorCode(err); code != agentfiles.CodeInvalidArgument {
		t.Errorf("129-character project: %v, want INVALID_ARGUMENT", err)
	}
	if diff := cmp.Diff([]string(nil), projectState(t, s, testScope)); diff != "" {
		t.Errorf("after the failures (-want +got):\n%s", diff)
	}

	conn, err := holder.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN mcp_file_index_jobs"); err != nil {
		t.Fatal(err)
	}
	res, err := s.UpdateIfAllowed(ctx, testScope, driver.UpdateOptions{}, w, driver.PutOptions{})
	if err != nil || !res.Written {
		t.Fatalf("write after the failures: %+v, %v", res, err)
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := conn.Conn().WaitForNotification(wctx); err != nil {
		t.Errorf("no notification of the new job: %v", err)
	}
	want := []string{"file /f x v1", "usage 1 1", "job /f UPSERT "}
	if diff := cmp.Diff(want, projectState(t, s, testScope)); diff != "" {
		t.Errorf("after the write (-want +got):\n%s", diff)
	}
}

// TestUpdateIfAllowedConnectionLost: the server terminates the writer's backend while its batch
// waits for the project lock. The server's error answers the lock statement, so the rest of the
// batch never ran: the write is UNAVAILABLE, nothing of it is kept, and the pool recovers.
func TestUpdateIfAllowedConnectionLost(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	release := holdProjectLock(t, s, testScope, nil)
	w := driver.ConditionalWrite{Path: "/f", Data: []byte("x"), MaxFileBytes: 100, MaxProjectBytes: 100}
	done := make(chan error, 1)
	go func() {
		_, err := s.UpdateIfAllowed(ctx, testScope, driver.UpdateOptions{LockTimeout: time.Minute}, w, driver.PutOptions{})
		done <- err
	}()
	err := poll.Until(ctx, time.Minute, "the writer waiting for the project lock", func() (bool, error) {
		var n int
		err := s.Pool().QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted`).Scan(&n)
		return n == 1, err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = <-done
	release()
	if code := agentfiles.ErrorCode(err); code != agentfiles.CodeUnavailable {
		t.Errorf("write on a terminated connection: %v, want UNAVAILABLE", err)
	}
	if diff := cmp.Diff([]string(nil), projectState(t, s, testScope)); diff != "" {
		t.Errorf("after the lost write (-want +got):\n%s", diff)
	}
	if res, err := s.UpdateIfAllowed(ctx, testScope, driver.UpdateOptions{}, w, driver.PutOptions{}); err != nil || !res.Written {
		t.Errorf("write after the lost one: %+v, %v", res, err)
	}
}
