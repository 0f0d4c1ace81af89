package pgstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

// holdProjectLock starts an Update of scope on s that runs inside (nil: nothing) and then holds
// the project's lock until the returned release is called; release waits for that Update to
// commit and fails t if it did not.
func holdProjectLock(t *testing.T, s driver.Store, scope driver.Scope, inside func(tx driver.WriteTx) error) (release func()) {
	t.Helper()
	holding, released, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- s.Update(context.Background(), scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
			if inside != nil {
				if err := inside(tx); err != nil {
					return err
				}
			}
			close(holding)
			<-released
			return nil
		})
	}()
	select {
	case <-holding:
	case err := <-held:
		t.Fatalf("the lock holder failed: %v", err)
	}
	return func() {
		t.Helper()
		close(released)
		if err := <-held; err != nil {
			t.Fatalf("the lock holder's commit: %v", err)
		}
	}
}

// TestLockTimeout: while one transaction holds a project's lock, a second writer to that project
// fails with RESOURCE_BUSY after the lock timeout, writers to other projects (and readers of the
// locked one) proceed, and the holder's commit is unaffected.
func TestLockTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	put(t, s, testScope, "/before", "committed")

	release := holdProjectLock(t, s, testScope, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/held", []byte("in progress"), driver.PutOptions{})
		return err
	})

	start := time.Now()
	err := s.Update(ctx, testScope, driver.UpdateOptions{LockTimeout: timeout}, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/second", []byte("x"), driver.PutOptions{})
		return err
	})
	waited := time.Since(start)
	if !errors.Is(err, agentfiles.ErrResourceBusy) || !strings.Contains(err.Error(), "for more than 300ms") {
		t.Fatalf("second writer: err = %v, want RESOURCE_BUSY naming the lock timeout", err)
	}
	if waited < timeout {
		t.Errorf("second writer gave up after %v, before the lock timeout %v", waited, timeout)
	}
	t.Logf("second writer got RESOURCE_BUSY after %v (lock timeout %v): %v", waited, timeout, err)

	other := driver.Scope{Tenant: testScope.Tenant, Project: "other"}
	put(t, s, other, "/free", "not blocked")
	if _, err := get(t, s, testScope, "/held"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("reader saw the holder's uncommitted file: err = %v", err)
	}
	if f, err := get(t, s, testScope, "/before"); err != nil || string(f.Content) != "committed" {
		t.Errorf("reader of the locked project: %q, %v", f.Content, err)
	}

	release()
	if _, err := get(t, s, testScope, "/held"); err != nil {
		t.Errorf("holder's file after commit: %v", err)
	}
	if _, err := get(t, s, testScope, "/second"); !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("the timed-out write left a file: err = %v", err)
	}
	// The lock is free again.
	put(t, s, testScope, "/after", "ok")
}

// TestUpdatesOfOneProjectAreSerialised: read-modify-write counters from many goroutines on
// separate connections never lose an update.
func TestUpdatesOfOneProjectAreSerialised(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	ctx := context.Background()
	const goroutines, each = 16, 10
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		go func() {
			for i := 0; i < each; i++ {
				err := s.Update(ctx, testScope, driver.UpdateOptions{LockTimeout: time.Minute}, func(tx driver.WriteTx) error {
					f, err := tx.Get(ctx, "/counter")
					if err != nil && !errors.Is(err, agentfiles.ErrNotFound) {
						return err
					}
					_, err = tx.Put(ctx, "/counter", append(f.Content, 'x'), driver.PutOptions{})
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < goroutines; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f, err := get(t, s, testScope, "/counter")
	if err != nil || len(f.Content) != goroutines*each {
		t.Fatalf("counter has %d increments (%v), want %d", len(f.Content), err, goroutines*each)
	}
}

// procCommand is the helper command that plays one process of a multi-process test.
const procCommand = "github.com/agentfiles/agentfiles/fileio/pgstore/internal/pgstoreproc"

// runProcs runs one helper process per argument list at once and returns the number each one
// reports as successful.
func runProcs(t *testing.T, bin string, argLists ...[]string) []int {
	t.Helper()
	return startProcs(t, bin, argLists...)()
}

// startProcs starts one helper process per argument list and returns a function that waits for
// them (call it from the test's goroutine) and returns the number each reports as successful.
func startProcs(t *testing.T, bin string, argLists ...[]string) (wait func() []int) {
	t.Helper()
	start := strconv.FormatInt(time.Now().Add(time.Second).UnixNano(), 10)
	cmds := make([]*exec.Cmd, len(argLists))
	outs := make([]*bytes.Buffer, len(argLists))
	for i, args := range argLists {
		cmds[i] = exec.Command(bin, append(args, "-start", start)...)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	return func() []int {
		t.Helper()
		counts := make([]int, len(cmds))
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("process %d %v: %v\n%s", i, argLists[i], err, outs[i])
			}
			if _, err := fmt.Sscanf(outs[i].String(), "ok %d", &counts[i]); err != nil {
				t.Fatalf("process %d output %q", i, outs[i])
			}
		}
		return counts
	}
}

// procScope is the scope the helper writes to with its default -key and -project.
var procScope = driver.Scope{Tenant: agentfiles.NewAuthContext("pgstoreproc", "").APIKeyHash, Project: "proj"}

// TestTwoProcessesAppend: two processes append 1,000 records each (300 by default, 1,000 with
// AGENTFILES_FULL=1) to the same file, while the grep indexers of both (every millisecond)
// index it between appends. Every record is present
// exactly once, whole, and each writer's records are in its own order; the outbox holds one
// pending job for the path; grep finds the last records.
func TestTwoProcessesAppend(t *testing.T) {
	bin := cmdtest.Build(t, procCommand)
	url := pgtest.New(t)
	n := testsize.Count(t, 1000, 300)
	counts := runProcs(t, bin,
		[]string{"-url", url, "-mode", "append", "-writer", "A", "-n", strconv.Itoa(n), "-grep-index-interval", "1ms"},
		[]string{"-url", url, "-mode", "append", "-writer", "B", "-n", strconv.Itoa(n), "-grep-index-interval", "1ms"})
	if counts[0] != n || counts[1] != n {
		t.Fatalf("successful appends %v, want %d each", counts, n)
	}
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})
	f, err := get(t, s, procScope, "/log.txt")
	if err != nil {
		t.Fatal(err)
	}
	records := strings.Split(strings.TrimSuffix(string(f.Content), ";"), ";")
	if len(records) != 2*n {
		t.Fatalf("file holds %d records, want %d", len(records), 2*n)
	}
	next := map[string]int{}
	switches, last := 0, ""
	for _, r := range records {
		w, i, ok := strings.Cut(r, ":")
		if !ok || (w != "A" && w != "B") || strconv.Itoa(next[w]) != i {
			t.Fatalf("record %q is torn or out of its writer's order (expected %s:%d next)", r, w, next[w])
		}
		next[w]++
		if w != last {
			switches, last = switches+1, w
		}
	}
	t.Logf("the writers took turns %d times in %d appends", switches, 2*n)
	if pending, _ := s.PendingJobs(context.Background()); pending != 1 {
		t.Errorf("PendingJobs = %d, want 1 (one de-duplicated job for the path)", pending)
	}
	svc := storetest.NewService(t, s)
	actx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("pgstoreproc", ""))
	for _, rec := range []string{fmt.Sprintf("A:%d;", n-1), fmt.Sprintf("B:%d;", n-1)} {
		if diff := cmp.Diff([]string{"/log.txt"}, grepFiles(t, svc, actx, "proj", regexp.QuoteMeta(rec))); diff != "" {
			t.Errorf("grep %q (-want +got):\n%s", rec, diff)
		}
	}
}

// TestTwoProcessesFillQuota: two processes create 1,000-byte files until the project quota
// refuses one. Together they never exceed it, and they fill it: what is left is less than one
// more file with its change-feed event.
func TestTwoProcessesFillQuota(t *testing.T) {
	bin := cmdtest.Build(t, procCommand)
	url := pgtest.New(t)
	const quota, chunk = 60_000, 1000
	counts := runProcs(t, bin,
		[]string{"-url", url, "-mode", "fill", "-writer", "A", "-quota", strconv.Itoa(quota), "-chunk", strconv.Itoa(chunk)},
		[]string{"-url", url, "-mode", "fill", "-writer", "B", "-quota", strconv.Itoa(quota), "-chunk", strconv.Itoa(chunk)})
	t.Logf("files written: A %d, B %d", counts[0], counts[1])
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})
	var stored int64
	var u driver.Usage
	ctx := context.Background()
	s.Pool().QueryRow(ctx, "SELECT COALESCE(sum(size), 0) FROM mcp_files WHERE NOT deleted").Scan(&stored)
	s.View(ctx, procScope, func(tx driver.ReadTx) error { var err error; u, err = tx.(driver.UsageReader).Usage(ctx); return err })
	if u.Bytes > quota || quota-u.Bytes >= chunk+driver.EventBytes("/A-99") {
		t.Errorf("the project holds %d bytes (%d files and their events); want at most the quota of %d, and less than a file short of it", u.Bytes, u.Files, quota)
	}
	if int64(counts[0]+counts[1]) != u.Files || stored != u.Bytes-u.Kept-u.Events || stored != u.Files*chunk {
		t.Errorf("stored %d bytes, usage says %+v; the processes wrote %d files", stored, u, counts[0]+counts[1])
	}
}

// TestTwoProcessesShell: two processes run file_shell commands that each increment a counter
// file and append a record to a log, running again on CONFLICT. No increment and no record is
// lost or doubled: each command was one transaction over one snapshot, across processes.
func TestTwoProcessesShell(t *testing.T) {
	bin := cmdtest.Build(t, procCommand)
	url := pgtest.New(t)
	const n = 40
	counts := runProcs(t, bin,
		[]string{"-url", url, "-mode", "shell", "-writer", "A", "-n", strconv.Itoa(n)},
		[]string{"-url", url, "-mode", "shell", "-writer", "B", "-n", strconv.Itoa(n)})
	if counts[0] != n || counts[1] != n {
		t.Fatalf("successful commands %v, want %d each", counts, n)
	}
	s := pgtest.Open(t, url, pgstore.Open, pgstore.Options{})
	counter, err := get(t, s, procScope, "/counter")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(counter.Content)); got != strconv.Itoa(2*n) {
		t.Errorf("/counter = %s after %d commands", got, 2*n)
	}
	log, err := get(t, s, procScope, "/log.txt")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, rec := range strings.Fields(string(log.Content)) {
		seen[rec]++
	}
	for _, w := range []string{"A", "B"} {
		for i := range n {
			if rec := fmt.Sprintf("%s:%d", w, i); seen[rec] != 1 {
				t.Errorf("record %s appears %d times", rec, seen[rec])
			}
		}
	}
}

// TestConcurrentMigrations: two processes and eight goroutines (each with its own pool) migrate
// one empty database at the same moment; all succeed and every migration is applied once.
func TestConcurrentMigrations(t *testing.T) {
	bin := cmdtest.Build(t, procCommand)
	url := pgtest.New(t)
	wait := startProcs(t, bin, []string{"-url", url, "-mode", "migrate"}, []string{"-url", url, "-mode", "migrate"})
	pgtest.MigrateConcurrently(t, url, 8, pgstore.Migrate)
	wait()
	pgtest.CheckMigrated(t, url, "mcp_files_schema_migrations", pgstore.SchemaVersion(), pgstore.Migrate)
}

// TestLockWaitSaysWhatHeldIt: a write that waits past its lock timeout says truly what it
// waited for (issue 41: a tenant alone in its project was told of "another write to this
// project" when the grep indexer held its file's row): another write when the project's lock
// was held, the grep indexer when a file row was, the search indexer when the file's index job
// was. Both write paths are checked: an Update, and the Service's one-round-trip write.
func TestLockWaitSaysWhatHeldIt(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	ac := agentfiles.NewAuthContext("lock-wait-key", "t")
	scope := driver.Scope{Tenant: ac.TenantID(), Project: "p"}
	svc := storetest.NewService(t, s, func(c *fileio.Config) { c.LockTimeout = 200 * time.Millisecond })
	actx := agentfiles.WithAuth(ctx, ac)
	if _, err := svc.Write(actx, fileio.WriteRequest{Project: "p", Path: "/a.md", Content: "one line\n", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	// holdRow locks rows of table in a transaction of its own, as background work would.
	holdRow := func(sql string) (release func()) {
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if tag, err := tx.Exec(ctx, sql, scope.Tenant, scope.Project); err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("locking a row: %v %v", tag, err)
		}
		return func() { tx.Rollback(ctx) }
	}
	writes := map[string]func() error{
		"Update": func() error {
			return s.Update(ctx, scope, driver.UpdateOptions{LockTimeout: 200 * time.Millisecond}, func(tx driver.WriteTx) error {
				_, err := tx.Put(ctx, "/a.md", []byte("two lines\n"), driver.PutOptions{})
				return err
			})
		},
		"Service.Write": func() error {
			_, err := svc.Write(actx, fileio.WriteRequest{Project: "p", Path: "/a.md", Content: "three\n", Mode: fileio.ModeTruncate})
			return err
		},
	}
	for _, tc := range []struct {
		holder string
		hold   func() func()
		want   *regexp.Regexp
	}{
		{"another write", func() func() { return holdProjectLock(t, s, scope, nil) }, regexp.MustCompile(`^another write to this project held its lock for more than 200ms`)},
		{"the grep indexer", func() func() {
			return holdRow(`SELECT 1 FROM mcp_files WHERE apikey_hash = $1 AND project = $2 AND path = '/a.md' AND NOT deleted FOR UPDATE`)
		}, regexp.MustCompile(`^this write waited more than 200ms for a row that the file store's background grep indexer held \(not another write to this project\)`)},
		{"the search indexer", func() func() {
			return holdRow(`SELECT 1 FROM mcp_file_index_jobs WHERE apikey_hash = $1 AND project = $2 AND file_path = '/a.md' FOR UPDATE`)
		}, regexp.MustCompile(`^this write waited more than 200ms for a row that the search indexer, claiming the file's index job, held`)},
	} {
		for name, write := range writes {
			t.Run(tc.holder+"/"+name, func(t *testing.T) {
				release := tc.hold()
				err := write()
				release()
				var fe *agentfiles.Error
				if !errors.As(err, &fe) || fe.Code != agentfiles.CodeResourceBusy || !tc.want.MatchString(fe.Message) {
					t.Fatalf("write while %s held a lock: %v; want RESOURCE_BUSY matching %q", tc.holder, err, tc.want)
				}
			})
		}
	}
}
