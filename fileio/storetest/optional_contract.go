package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// checkFixture holds files a Service would never write together (a file at "/a" and below it,
// "/a0" right after the "/a/" range, LIKE wildcards, multi-byte paths, an empty file), written
// with Put directly: the store is dumb and CheckWrite must report whatever is there.
var checkFixture = map[string]string{
	"/a":              "file a",
	"/a/b":            "file a/b",
	"/a/b/c/d":        "deep",
	"/a-b":            "dash",
	"/a.c":            "dot",
	"/a0":             "zero sorts right after a/",
	"/x%y/z":          "percent",
	"/x_y":            "underscore",
	"/é/ü":            "two-byte",
	"/日本/語":           "three-byte",
	"/empty":          "",
	"/big":            strings.Repeat("0123456789abcdef", 256),
	"/d/deep/er/file": "nested",
}

// checkProbes are the paths CheckWrite is asked about: fixture files, their ancestors and
// descendants, near misses in byte order, and missing paths.
var checkProbes = []string{
	"", "/", "/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/b/c/d/e", "/a/bc", "/a-b", "/a-", "/a0",
	"/a0/x", "/x%y", "/x%y/z", "/x_", "/x_y/q", "/é", "/é/ü", "/é/ü/x", "/日本", "/日", "/empty",
	"/empty/x", "/big", "/nope", "/nope/deep/x", "/d", "/d/deep", "/d/deep/er/file", "/d/deep/er/file/x",
}

// portableCheck is the definition of fileio.WriteCheck in terms of the ReadTx calls it replaces.
func portableCheck(ctx context.Context, tx fileio.ReadTx, path string, wantContent bool) (fileio.WriteCheck, error) {
	var c fileio.WriteCheck
	for i := 1; i < len(path); i++ {
		if path[i] != '/' {
			continue
		}
		_, isFile, err := tx.Stat(ctx, path[:i])
		if err != nil {
			return c, err
		}
		if isFile {
			c.AncestorFile = path[:i]
			break
		}
	}
	below, err := tx.List(ctx, path+"/", 1)
	if err != nil {
		return c, err
	}
	c.HasDescendant = len(below) > 0
	f, err := tx.Get(ctx, path)
	switch {
	case err == nil:
		if !wantContent {
			f.Content = nil
		}
		c.Existing = &f
	case fileio.ErrorCode(err) != fileio.CodeNotFound:
		return c, err
	}
	c.ProjectBytes, err = tx.ProjectBytes(ctx)
	return c, err
}

// compareChecks asks CheckWrite about every probe, with and without content, and compares the
// answers with portableCheck's.
func compareChecks(t *testing.T, ctx context.Context, tx fileio.WriteTx, stage string) {
	t.Helper()
	checker := tx.(fileio.WriteChecker)
	for _, path := range checkProbes {
		for _, wantContent := range []bool{false, true} {
			want, err := portableCheck(ctx, tx, path, wantContent)
			if err != nil {
				t.Fatalf("%s: portable check of %q: %v", stage, path, err)
			}
			got, err := checker.CheckWrite(ctx, path, wantContent)
			if err != nil {
				t.Errorf("%s: CheckWrite(%q, %v): %v", stage, path, wantContent, err)
				continue
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: CheckWrite(%q, wantContent=%v) differs from Stat/List/Get/ProjectBytes (-portable +CheckWrite):\n%s",
					stage, path, wantContent, diff)
			}
			if !wantContent && got.Existing != nil && got.Existing.Content != nil {
				t.Errorf("%s: CheckWrite(%q, false) returned content", stage, path)
			}
		}
	}
}

var errRollback = errors.New("storetest: roll back")

func testCheckWrite(t *testing.T, s fileio.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx fileio.WriteTx) error {
		compareChecks(t, ctx, tx, "empty project")
		return nil
	})
	update(t, s, scope, func(tx fileio.WriteTx) error {
		for p, c := range checkFixture {
			if err := put(ctx, tx, p, c); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, scope, func(tx fileio.WriteTx) error {
		compareChecks(t, ctx, tx, "committed fixture")
		return nil
	})
	// The transaction's own changes count: CheckWrite reads its writes as Get does.
	err := s.Update(ctx, scope, func(tx fileio.WriteTx) error {
		if err := tx.Delete(ctx, "/a", "/a/b/c/d", "/a0"); err != nil {
			return err
		}
		for p, c := range map[string]string{"/a/b/c": "now a file", "/empty": "not empty now", "/new/x": "new"} {
			if err := put(ctx, tx, p, c); err != nil {
				return err
			}
		}
		compareChecks(t, ctx, tx, "inside a transaction with uncommitted changes")
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update returned %v, want the callback's error", err)
	}
	// Another tenant's files never show.
	_, other := newTenant(proj)
	update(t, s, other, func(tx fileio.WriteTx) error {
		compareChecks(t, ctx, tx, "another tenant")
		got, err := tx.(fileio.WriteChecker).CheckWrite(ctx, "/a/b", true)
		if err != nil || got.AncestorFile != "" || got.HasDescendant || got.Existing != nil || got.ProjectBytes != 0 {
			t.Errorf("another tenant's CheckWrite(/a/b) = %+v, %v; want nothing", got, err)
		}
		return nil
	})
}

func testAppend(t *testing.T, s fileio.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	var first, second fileio.FileInfo
	update(t, s, scope, func(tx fileio.WriteTx) error {
		app := tx.(fileio.Appender)
		var err error
		if first, err = app.Append(ctx, "/log", []byte("one\n"), fileio.PutOptions{CredentialRef: "ref-1"}); err != nil {
			return err
		}
		if first.Path != "/log" || first.SizeBytes != 4 || first.CreatedAt.IsZero() || !first.CreatedAt.Equal(first.UpdatedAt) {
			t.Errorf("Append creating /log = %+v; want size 4 and CreatedAt == UpdatedAt", first)
		}
		if second, err = app.Append(ctx, "/log", []byte("two\n"), fileio.PutOptions{CredentialRef: "ref-2"}); err != nil {
			return err
		}
		if second.SizeBytes != 8 || !second.CreatedAt.Equal(first.CreatedAt) || !second.UpdatedAt.After(first.UpdatedAt) {
			t.Errorf("second Append = %+v after %+v; want size 8, CreatedAt kept, UpdatedAt later", second, first)
		}
		if f, err := tx.Get(ctx, "/log"); err != nil || string(f.Content) != "one\ntwo\n" || f.FileInfo != second {
			t.Errorf("Get inside the transaction = %+v, %v; want the appended content and the returned info", f, err)
		}
		empty, err := app.Append(ctx, "/empty", nil, fileio.PutOptions{})
		if err != nil {
			return err
		}
		if info, ok, err := tx.Stat(ctx, "/empty"); !ok || err != nil || info != empty || info.SizeBytes != 0 {
			t.Errorf("Append of nothing to a missing file: Stat = %+v %v %v, Append returned %+v; want an empty file", info, ok, err, empty)
		}
		return nil
	})
	if diff := cmp.Diff(map[string]string{"/log": "one\ntwo\n", "/empty": ""}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after commit (-want +got):\n%s", diff)
	}
	jobs := mustClaim(t, s)
	if len(jobs) != 2 || jobs[0].Path != "/log" || jobs[0].Op != fileio.JobUpsert || jobs[0].CredentialRef != "ref-2" ||
		!jobs[0].FileUpdatedAt.Equal(second.UpdatedAt) {
		t.Errorf("jobs after two Appends to /log and one to /empty: %+v; want /log's with the last reference and time", jobs)
	}
	for _, j := range jobs {
		if err := s.CompleteJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var third fileio.FileInfo
	update(t, s, scope, func(tx fileio.WriteTx) error {
		var err error
		third, err = tx.(fileio.Appender).Append(ctx, "/log", []byte("é"), fileio.PutOptions{})
		return err
	})
	if third.SizeBytes != 10 || !third.CreatedAt.Equal(first.CreatedAt) || !third.UpdatedAt.After(second.UpdatedAt) {
		t.Errorf("Append to a committed file = %+v; want size 10, CreatedAt kept, UpdatedAt later", third)
	}
	err := s.Update(ctx, scope, func(tx fileio.WriteTx) error {
		if _, err := tx.(fileio.Appender).Append(ctx, "/log", []byte("lost"), fileio.PutOptions{}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update returned %v, want the callback's error", err)
	}
	if diff := cmp.Diff(map[string]string{"/log": "one\ntwo\né", "/empty": ""}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after a rolled-back Append (-want +got):\n%s", diff)
	}
	if n := pending(t, s); n != 1 {
		t.Errorf("pending jobs %d after one committed and one rolled-back Append, want 1", n)
	}
}
