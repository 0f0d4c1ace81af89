package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestPutManyOfNewFilesLikePut: a batch of PutMany whose paths are all new is written with
// COPY (bulk_copy.go), a batch that replaces a file with one statement; both must leave what
// the same files written one Put at a time leave: versions that continue a deleted file's
// numbering, the change feed's events, the project's byte count and the files themselves.
func TestPutManyOfNewFilesLikePut(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	opts := driver.UpdateOptions{HistoryVersions: 10, HistoryRetention: time.Hour}
	// Each project first has /gone.md written twice and deleted (its kept versions are 1 and
	// 2) and /kept.md written once; then each step writes its files.
	steps := [][]driver.File{
		{ // all new, one with history: COPY
			{FileInfo: driver.FileInfo{Path: "/gone.md"}, Content: []byte("back\n")},
			{FileInfo: driver.FileInfo{Path: "/new/a.md"}, Content: []byte("a\n")},
			{FileInfo: driver.FileInfo{Path: "/new/b.md"}, Content: []byte{}},
		},
		{ // replaces /kept.md: the statement (which orders the events of a batch that creates
			// and replaces files differently from Puts in path order, see sqlPutMany)
			{FileInfo: driver.FileInfo{Path: "/kept.md"}, Content: []byte("kept v2\n")},
		},
		{{FileInfo: driver.FileInfo{Path: "/new/c.md"}, Content: []byte("c\n")}},
	}
	write := func(project string, bulk bool) {
		scope := driver.Scope{Tenant: testScope.Tenant, Project: project}
		update := func(fn func(tx driver.WriteTx) error) {
			if err := s.Update(ctx, scope, opts, fn); err != nil {
				t.Fatal(err)
			}
		}
		update(func(tx driver.WriteTx) error {
			for _, c := range []string{"gone v1\n", "gone v2\n"} {
				if _, err := tx.Put(ctx, "/gone.md", []byte(c), driver.PutOptions{}); err != nil {
					return err
				}
			}
			_, err := tx.Put(ctx, "/kept.md", []byte("kept\n"), driver.PutOptions{})
			return err
		})
		update(func(tx driver.WriteTx) error { return tx.Delete(ctx, "/gone.md") })
		for _, files := range steps {
			update(func(tx driver.WriteTx) error {
				if bulk {
					return tx.(driver.BulkWriter).PutMany(ctx, files, driver.BulkOptions{DeferIndex: true})
				}
				for _, f := range files {
					if _, err := tx.Put(ctx, f.Path, f.Content, driver.PutOptions{}); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	type state struct {
		Events   []driver.Event
		Versions map[string][]driver.VersionInfo
		Files    map[string]string
		Bytes    int64
	}
	read := func(project string) state {
		st := state{Versions: map[string][]driver.VersionInfo{}, Files: map[string]string{}}
		err := s.View(ctx, driver.Scope{Tenant: testScope.Tenant, Project: project}, func(tx driver.ReadTx) error {
			var err error
			if st.Events, err = tx.(driver.FeedReader).Events(ctx, 0, "", 100); err != nil {
				return err
			}
			for _, p := range []string{"/gone.md", "/kept.md", "/new/a.md", "/new/b.md", "/new/c.md"} {
				if st.Versions[p], err = tx.(driver.Historian).Versions(ctx, p); err != nil {
					return err
				}
				f, err := tx.Get(ctx, p)
				if err != nil {
					return err
				}
				st.Files[p] = string(f.Content)
			}
			st.Bytes, err = tx.ProjectBytes(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	write("one-by-one", false)
	write("bulk", true)
	ignoreTimes := cmpopts.IgnoreFields(driver.Event{}, "At")
	ignoreVersionTimes := cmpopts.IgnoreFields(driver.VersionInfo{}, "WrittenAt", "ReplacedAt")
	want, got := read("one-by-one"), read("bulk")
	if diff := cmp.Diff(want, got, ignoreTimes, ignoreVersionTimes); diff != "" {
		t.Errorf("PutMany left a different project than Put (-Put +PutMany):\n%s", diff)
	}
	if v := got.Versions["/gone.md"]; len(v) == 0 || v[0].Version != 3 {
		t.Errorf("/gone.md written again by PutMany has versions %+v; want the numbering to go on at 3", v)
	}
}
