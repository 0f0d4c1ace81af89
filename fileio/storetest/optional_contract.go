package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
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

// portableCheck is the definition of driver.WriteCheck in terms of the ReadTx calls it replaces.
func portableCheck(ctx context.Context, tx driver.ReadTx, path string, wantContent bool) (driver.WriteCheck, error) {
	var c driver.WriteCheck
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
	case agentfiles.ErrorCode(err) != agentfiles.CodeNotFound:
		return c, err
	}
	c.ProjectBytes, err = tx.ProjectBytes(ctx)
	return c, err
}

// compareChecks asks CheckWrite about every probe, with and without content, and compares the
// answers with portableCheck's.
func compareChecks(t *testing.T, ctx context.Context, tx driver.WriteTx, stage string) {
	t.Helper()
	checker := tx.(driver.WriteChecker)
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

func testCheckWrite(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	update(t, s, scope, func(tx driver.WriteTx) error {
		compareChecks(t, ctx, tx, "empty project")
		return nil
	})
	update(t, s, scope, func(tx driver.WriteTx) error {
		for p, c := range checkFixture {
			if err := put(ctx, tx, p, c); err != nil {
				return err
			}
		}
		return nil
	})
	update(t, s, scope, func(tx driver.WriteTx) error {
		compareChecks(t, ctx, tx, "committed fixture")
		return nil
	})
	// The transaction's own changes count: CheckWrite reads its writes as Get does.
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
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
	update(t, s, other, func(tx driver.WriteTx) error {
		compareChecks(t, ctx, tx, "another tenant")
		got, err := tx.(driver.WriteChecker).CheckWrite(ctx, "/a/b", true)
		if err != nil || got.AncestorFile != "" || got.HasDescendant || got.Existing != nil || got.ProjectBytes != 0 {
			t.Errorf("another tenant's CheckWrite(/a/b) = %+v, %v; want nothing", got, err)
		}
		return nil
	})
}

// conditionVariants are the conditions testWriteIfAllowed tries at every probe with the
// 5-byte data "12345"; total is the fixture's byte count.
func conditionVariants(total int64) []driver.ConditionalWrite {
	const loose, project = 1 << 20, 1 << 30
	return []driver.ConditionalWrite{
		{MaxFileBytes: loose, MaxProjectBytes: project},
		{Append: true, MaxFileBytes: loose, MaxProjectBytes: project},
		{Exclusive: true, MaxFileBytes: loose, MaxProjectBytes: project},
		{Append: true, Exclusive: true, MaxFileBytes: loose, MaxProjectBytes: project},
		{Append: true, MaxFileBytes: 8, MaxProjectBytes: project},       // appends to files over 3 bytes refused
		{MaxFileBytes: 4, MaxProjectBytes: project},                     // every replacement refused
		{MaxFileBytes: loose, MaxProjectBytes: total},                   // only writes that do not grow the project
		{Append: true, MaxFileBytes: loose, MaxProjectBytes: total + 5}, // exactly at the quota
		{Append: true, MaxFileBytes: loose, MaxProjectBytes: total + 4}, // one byte over it
	}
}

// testWriteIfAllowed checks WriteIfAllowed against the definition: the state it reports is
// CheckWrite's, it writes exactly when ConditionalWrite.Allows, and what it writes is a Put of
// the data or of the old content followed by the data.
func testWriteIfAllowed(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	var total int64
	update(t, s, scope, func(tx driver.WriteTx) error {
		for p, c := range checkFixture {
			if err := put(ctx, tx, p, c); err != nil {
				return err
			}
			total += int64(len(c))
		}
		return nil
	})
	data := []byte("12345")
	outcomes := map[bool]int{}
	for _, path := range checkProbes {
		for _, w := range conditionVariants(total) {
			w.Path, w.Data = path, data
			err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				before, err := portableCheck(ctx, tx, path, true)
				if err != nil {
					return err
				}
				res, err := tx.(driver.ConditionalWriter).WriteIfAllowed(ctx, w, driver.PutOptions{})
				if err != nil {
					return err
				}
				want := before
				if want.Existing != nil {
					existing := *want.Existing
					existing.Content = nil
					want.Existing = &existing
				}
				if diff := cmp.Diff(want, res.Check, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("WriteIfAllowed(%+v): the reported state differs from Stat/List/Get/ProjectBytes (-want +got):\n%s", w, diff)
				}
				allowed := w.Allows(want)
				outcomes[allowed]++
				if res.Written != allowed {
					t.Errorf("WriteIfAllowed(%+v) on %+v: written %v, but Allows says %v", w, want, res.Written, allowed)
					return errRollback
				}
				wantContent := string(data)
				var oldSize int64
				if before.Existing != nil {
					oldSize = before.Existing.SizeBytes
					if w.Append {
						wantContent = string(before.Existing.Content) + wantContent
					}
				}
				f, getErr := tx.Get(ctx, path)
				pb, err := tx.ProjectBytes(ctx)
				if err != nil {
					return err
				}
				if !res.Written {
					if before.Existing == nil && getErr == nil || before.Existing != nil && (getErr != nil || f.FileInfo != before.Existing.FileInfo) || pb != before.ProjectBytes {
						t.Errorf("WriteIfAllowed(%+v) declined but changed the file or the byte count", w)
					}
					return errRollback
				}
				if getErr != nil || string(f.Content) != wantContent || f.FileInfo != res.Info {
					t.Errorf("WriteIfAllowed(%+v): file %q %+v (%v), returned %+v; want content %q and the returned info",
						w, f.Content, f.FileInfo, getErr, res.Info, wantContent)
				}
				if pb != before.ProjectBytes+int64(len(wantContent))-oldSize {
					t.Errorf("WriteIfAllowed(%+v): project bytes %d after the write, want %d", w, pb, before.ProjectBytes+int64(len(wantContent))-oldSize)
				}
				if e := before.Existing; e != nil && (!res.Info.CreatedAt.Equal(e.CreatedAt) || !res.Info.UpdatedAt.After(e.UpdatedAt)) {
					t.Errorf("WriteIfAllowed(%+v): times %+v after %+v; want CreatedAt kept and UpdatedAt later", w, res.Info, e.FileInfo)
				}
				if before.Existing == nil && !res.Info.CreatedAt.Equal(res.Info.UpdatedAt) {
					t.Errorf("WriteIfAllowed(%+v) created a file with CreatedAt %v != UpdatedAt %v", w, res.Info.CreatedAt, res.Info.UpdatedAt)
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatalf("Update around WriteIfAllowed(%+v): %v", w, err)
			}
		}
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("the cases wrote %d times and declined %d times; want both", outcomes[true], outcomes[false])
	}
}

// testConditionalSequence: committed appends through WriteIfAllowed keep CreatedAt, advance
// UpdatedAt, queue one job per path carrying the last reference, and roll back with the
// transaction.
func testConditionalSequence(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant(proj)
	appendTo := func(tx driver.WriteTx, path, data, ref string) driver.FileInfo {
		t.Helper()
		w := driver.ConditionalWrite{Path: path, Data: []byte(data), Append: true, MaxFileBytes: 1 << 20, MaxProjectBytes: 1 << 20}
		res, err := tx.(driver.ConditionalWriter).WriteIfAllowed(ctx, w, driver.PutOptions{CredentialRef: ref})
		if err != nil || !res.Written {
			t.Fatalf("append %q to %s: %+v, %v", data, path, res, err)
		}
		return res.Info
	}
	var first, second driver.FileInfo
	update(t, s, scope, func(tx driver.WriteTx) error {
		first = appendTo(tx, "/log", "one\n", "ref-1")
		second = appendTo(tx, "/log", "two\n", "ref-2")
		if second.SizeBytes != 8 || !second.CreatedAt.Equal(first.CreatedAt) || !second.UpdatedAt.After(first.UpdatedAt) {
			t.Errorf("second append = %+v after %+v; want size 8, CreatedAt kept, UpdatedAt later", second, first)
		}
		if empty := appendTo(tx, "/empty", "", ""); empty.SizeBytes != 0 {
			t.Errorf("appending nothing to a missing file = %+v; want an empty file", empty)
		}
		return nil
	})
	if diff := cmp.Diff(map[string]string{"/log": "one\ntwo\n", "/empty": ""}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after commit (-want +got):\n%s", diff)
	}
	jobs := mustClaim(t, s)
	if len(jobs) != 2 || jobs[0].Path != "/log" || jobs[0].Op != driver.JobUpsert || jobs[0].CredentialRef != "ref-2" ||
		!jobs[0].FileUpdatedAt.Equal(second.UpdatedAt) {
		t.Errorf("jobs after two appends to /log and one to /empty: %+v; want /log's with the last reference and time", jobs)
	}
	for _, j := range jobs {
		if err := s.CompleteJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var third driver.FileInfo
	update(t, s, scope, func(tx driver.WriteTx) error { third = appendTo(tx, "/log", "é", ""); return nil })
	if third.SizeBytes != 10 || !third.CreatedAt.Equal(first.CreatedAt) || !third.UpdatedAt.After(second.UpdatedAt) {
		t.Errorf("append to a committed file = %+v; want size 10, CreatedAt kept, UpdatedAt later", third)
	}
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error { appendTo(tx, "/log", "lost", ""); return errRollback })
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update returned %v, want the callback's error", err)
	}
	if diff := cmp.Diff(map[string]string{"/log": "one\ntwo\né", "/empty": ""}, snapshot(t, s, scope)); diff != "" {
		t.Errorf("after a rolled-back append (-want +got):\n%s", diff)
	}
	if n := pending(t, s); n != 1 {
		t.Errorf("pending jobs %d after one committed and one rolled-back append, want 1", n)
	}
}
