package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// storeContract is the transactional part of the Store contract: one test per rule, each on a
// fresh store.
var storeContract = []storeTest{
	{"PutGetStatList", testPutGet},
	{"Timestamps", testTimestamps},
	{"Rollback", testRollback},
	{"ReadYourWrites", testReadYourWrites},
	{"ViewSeesCommittedOnly", testCommittedOnly},
	{"UpdatesSerialised", testSerialised},
	{"ProjectsIndependent", testProjectsIndependent},
	{"LockWaitBounded", testLockWaitBounded},
	{"LockTimeout", testLockTimeout},
}

func update(t testing.TB, s driver.Store, scope driver.Scope, fn func(tx driver.WriteTx) error) {
	t.Helper()
	if err := s.Update(context.Background(), scope, driver.UpdateOptions{}, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func put(ctx context.Context, tx driver.WriteTx, path, content string) error {
	_, err := tx.Put(ctx, path, []byte(content), driver.PutOptions{})
	return err
}

// Files returns every file of scope, in List order, as one View of s shows them. It fails t
// when the View fails.
func Files(t testing.TB, s driver.Store, scope driver.Scope) []driver.File {
	t.Helper()
	var files []driver.File
	ctx := context.Background()
	err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		_, files, err = readAll(ctx, tx)
		return err
	})
	if err != nil {
		t.Fatalf("reading the files of %s: %v", scope.Project, err)
	}
	return files
}

// readAll lists every file of tx and reads each one.
func readAll(ctx context.Context, tx driver.ReadTx) ([]driver.FileInfo, []driver.File, error) {
	infos, err := tx.List(ctx, "", 0)
	if err != nil {
		return nil, nil, err
	}
	files := make([]driver.File, 0, len(infos))
	for _, info := range infos {
		f, err := tx.Get(ctx, info.Path)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return infos, files, nil
}

// snapshot is everything a View of scope shows: paths, sizes, contents, total bytes.
func snapshot(t testing.TB, s driver.Store, scope driver.Scope) map[string]string {
	t.Helper()
	out := map[string]string{}
	ctx := context.Background()
	err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		infos, files, err := readAll(ctx, tx)
		if err != nil {
			return err
		}
		var total int64
		for i, f := range files {
			out[f.Path] = string(f.Content)
			total += infos[i].SizeBytes
		}
		pb, err := tx.ProjectBytes(ctx)
		if err != nil {
			return err
		}
		if pb != total {
			return fmt.Errorf("ProjectBytes %d, sum of sizes %d", pb, total)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return out
}

func testPutGet(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error {
		for _, p := range []string{"/b", "/a/x", "/a-b", "/a.c", "/a/y", "/ab"} {
			if err := put(ctx, tx, p, "content of "+p); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		f, err := tx.Get(ctx, "/a/x")
		if err != nil || string(f.Content) != "content of /a/x" || f.Path != "/a/x" || f.SizeBytes != 15 {
			t.Errorf("Get = %+v, %v", f, err)
		}
		_, err = tx.Get(ctx, "/missing")
		wantCode(t, "Get of a missing file", err, agentfiles.CodeNotFound)
		if _, ok, err := tx.Stat(ctx, "/a"); ok || err != nil {
			t.Errorf("Stat of a directory path: ok=%v err=%v; stores know files only", ok, err)
		}
		info, ok, err := tx.Stat(ctx, "/b")
		if !ok || err != nil || info.SizeBytes != 13 {
			t.Errorf("Stat /b = %+v %v %v", info, ok, err)
		}
		all, _ := tx.List(ctx, "", 0)
		var paths []string
		for _, i := range all {
			paths = append(paths, i.Path)
		}
		if diff := cmp.Diff([]string{"/a-b", "/a.c", "/a/x", "/a/y", "/ab", "/b"}, paths); diff != "" {
			t.Errorf("List order is not bytewise (-want +got):\n%s", diff)
		}
		under, _ := tx.List(ctx, "/a/", 0)
		if len(under) != 2 || under[0].Path != "/a/x" {
			t.Errorf("List /a/ = %+v", under)
		}
		one, _ := tx.List(ctx, "/a", 1)
		if len(one) != 1 || one[0].Path != "/a-b" {
			t.Errorf("List /a limit 1 = %+v", one)
		}
		none, _ := tx.List(ctx, "/zzz", 0)
		if len(none) != 0 {
			t.Errorf("List /zzz = %+v", none)
		}
		pb, _ := tx.ProjectBytes(ctx)
		if pb != 13+15+15+15+15+14 {
			t.Errorf("ProjectBytes = %d", pb)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, scope, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/a/x", "/never-existed") })
	if got := snapshot(t, s, scope); len(got) != 5 || got["/a/x"] != "" {
		t.Errorf("after Delete: %v", got)
	}
	// The empty project of an unknown scope is a valid, empty view.
	_, other := newTenant("unknown")
	if got := snapshot(t, s, other); len(got) != 0 {
		t.Errorf("unknown scope shows %v", got)
	}
}

func testTimestamps(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	var first driver.FileInfo
	update(t, s, scope, func(tx driver.WriteTx) error {
		var err error
		first, err = tx.Put(ctx, "/t", []byte("1"), driver.PutOptions{})
		return err
	})
	if first.CreatedAt.IsZero() || !first.CreatedAt.Equal(first.UpdatedAt) {
		t.Errorf("new file: CreatedAt %v UpdatedAt %v; want equal and non-zero", first.CreatedAt, first.UpdatedAt)
	}
	prev := first
	for i := 0; i < 20; i++ {
		var info driver.FileInfo
		update(t, s, scope, func(tx driver.WriteTx) error {
			var err error
			info, err = tx.Put(ctx, "/t", []byte("12"), driver.PutOptions{})
			return err
		})
		if !info.UpdatedAt.After(prev.UpdatedAt) || !info.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("put %d: %+v after %+v; want CreatedAt kept and UpdatedAt strictly increasing", i, info, prev)
		}
		prev = info
	}
	s.View(ctx, scope, func(tx driver.ReadTx) error {
		info, _, _ := tx.Stat(ctx, "/t")
		if diff := cmp.Diff(prev, info); diff != "" {
			t.Errorf("Stat differs from what Put returned (-put +stat):\n%s", diff)
		}
		return nil
	})
}

func testRollback(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/keep", "kept") })
	for _, j := range mustClaim(t, s) {
		s.CompleteJob(ctx, j)
	}
	boom := errors.New("boom")
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		if err := put(ctx, tx, "/new", "new"); err != nil {
			return err
		}
		if err := put(ctx, tx, "/keep", "changed"); err != nil {
			return err
		}
		if err := tx.Delete(ctx, "/keep"); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", boom)
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update returned %v, want the callback's error", err)
	}
	if diff := cmp.Diff(map[string]string{"/keep": "kept"}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("state after a failed transaction (-want +got):\n%s", diff)
	}
	if n := pending(t, s); n != 0 {
		t.Errorf("a failed transaction left %d outbox jobs", n)
	}
}

func testReadYourWrites(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/old", "12345") })
	update(t, s, scope, func(tx driver.WriteTx) error {
		if err := put(ctx, tx, "/new", "abc"); err != nil {
			return err
		}
		if err := put(ctx, tx, "/old", "1"); err != nil {
			return err
		}
		if f, err := tx.Get(ctx, "/new"); err != nil || string(f.Content) != "abc" {
			t.Errorf("Get inside the transaction: %+v %v", f, err)
		}
		if pb, _ := tx.ProjectBytes(ctx); pb != 4 {
			t.Errorf("ProjectBytes inside the transaction = %d, want 4", pb)
		}
		if err := tx.Delete(ctx, "/old"); err != nil {
			return err
		}
		if _, ok, _ := tx.Stat(ctx, "/old"); ok {
			t.Errorf("Stat sees a file deleted in the same transaction")
		}
		l, _ := tx.List(ctx, "/", 0)
		if len(l) != 1 || l[0].Path != "/new" {
			t.Errorf("List inside the transaction = %+v", l)
		}
		if pb, _ := tx.ProjectBytes(ctx); pb != 3 {
			t.Errorf("ProjectBytes after Delete inside the transaction = %d, want 3", pb)
		}
		return nil
	})
	if diff := cmp.Diff(map[string]string{"/new": "abc"}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after commit (-want +got):\n%s", diff)
	}
}

func testCommittedOnly(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/f", "v1") })
	held := holdLock(t, s, scope, func(tx driver.WriteTx) error {
		if err := put(ctx, tx, "/f", "v2"); err != nil {
			return err
		}
		return put(ctx, tx, "/g", "new")
	})
	if diff := cmp.Diff(map[string]string{"/f": "v1"}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("a View during a transaction sees uncommitted state (-want +got):\n%s", diff)
	}
	held.Release(t)
	if diff := cmp.Diff(map[string]string{"/f": "v2", "/g": "new"}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after commit (-want +got):\n%s", diff)
	}
}

func testSerialised(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	var inside, maxInside atomic.Int32
	inParallel(8, func(g int) {
		for i := 0; i < 10; i++ {
			err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				n := inside.Add(1)
				defer inside.Add(-1)
				for {
					m := maxInside.Load()
					if n <= m || maxInside.CompareAndSwap(m, n) {
						break
					}
				}
				f, err := tx.Get(ctx, "/counter")
				count := 0
				if err == nil {
					fmt.Sscan(string(f.Content), &count)
				}
				return put(ctx, tx, "/counter", fmt.Sprint(count+1))
			})
			if err != nil {
				t.Errorf("Update: %v", err)
			}
		}
	})
	if m := maxInside.Load(); m != 1 {
		t.Errorf("%d transactions of one project ran at once", m)
	}
	if got := snapshot(t, s, scope)["/counter"]; got != "80" {
		t.Errorf("counter = %s after 80 read-modify-write transactions, want 80 (lost updates)", got)
	}
}

func testProjectsIndependent(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, a := newTenant("one")
	b := driver.Scope{Tenant: a.Tenant, Project: "two"}
	held := holdLock(t, s, a, nil)
	// While project one's lock is held, project two must still be writable.
	bctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Update(bctx, b, driver.UpdateOptions{}, func(tx driver.WriteTx) error { return put(ctx, tx, "/x", "x") }); err != nil {
		t.Errorf("Update of another project while one is locked: %v", err)
	}
	held.Release(t)
}

func testLockWaitBounded(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	held := holdLock(t, s, scope, func(tx driver.WriteTx) error { return put(ctx, tx, "/held", "1") })
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	ran := false
	err := s.Update(short, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error { ran = true; return put(ctx, tx, "/second", "2") })
	if err == nil || ran {
		t.Errorf("Update while the lock is held and the context expires: err=%v ran=%v; want an error and no callback", err, ran)
	}
	// The wait ends at the lock timeout (RESOURCE_BUSY) or at the context's deadline, which a
	// store may report as the deadline itself or as TIMEOUT (pgstore's statement_timeout is the
	// time left on the context, so the server may cancel the lock wait first).
	if code := agentfiles.ErrorCode(err); code != agentfiles.CodeResourceBusy && code != agentfiles.CodeTimeout && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("lock wait error %v: want RESOURCE_BUSY, TIMEOUT or the context's deadline", err)
	}
	held.Release(t)
	if got := snapshot(t, s, scope); got["/second"] != "" || got["/held"] != "1" {
		t.Errorf("after the timed-out Update: %v", got)
	}
}

// testLockTimeout: UpdateOptions.LockTimeout bounds the wait for a held lock, and it is what a
// Service's Config.LockTimeout sets: a write through the Service gives up with RESOURCE_BUSY
// after the configured time, long before the default five seconds.
func testLockTimeout(t *testing.T, s driver.Store) {
	const timeout = 100 * time.Millisecond
	ctx, scope := newTenant(proj)
	held := holdLock(t, s, scope, nil)
	defer held.Release(t)

	ran := false
	start := time.Now()
	err := s.Update(context.Background(), scope, driver.UpdateOptions{LockTimeout: timeout}, func(driver.WriteTx) error { ran = true; return nil })
	wantCode(t, "Update with a lock timeout while the lock is held", err, agentfiles.CodeResourceBusy)
	if ran {
		t.Errorf("the callback ran without the lock")
	}

	svc := NewService(t, s, func(cfg *fileio.Config) { cfg.LockTimeout = timeout })
	_, err = svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/blocked", Content: "x"})
	wantCode(t, "Service.Write with Config.LockTimeout while the lock is held", err, agentfiles.CodeResourceBusy)
	wantMessage(t, "Service.Write with Config.LockTimeout while the lock is held", err, "retry")
	if elapsed := time.Since(start); elapsed >= driver.DefaultLockTimeout {
		t.Errorf("two lock waits of %s took %s: the configured timeout was not applied", timeout, elapsed)
	}
}
