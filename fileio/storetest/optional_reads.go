package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// readExtensions are the optional read interfaces' contracts: StatMany agrees with Stat,
// ScopeJobs agrees with the jobs the mutations enqueued, and ReadRanges (optional_ranges.go)
// agrees with Get. Stores without them are skipped (ReadRanges checks its fallback instead).
var readExtensions = []storeTest{
	{"StatManyMatchesStat", testStatMany},
	{"ScopeJobsOfOneProject", testScopeJobs},
	{"ReadRangesMatchesGet", testReadRanges},
	{"ListProjectsOfOneTenant", testListProjects},    // optional_projects.go
	{"GrepLiteralsMatchesLineScan", testLiteralGrep}, // grep_literals.go
}

func testStatMany(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant("p")
	_, other := newTenant("p")
	put := func(scope driver.Scope, paths ...string) { putFiles(t, s, scope, paths...) }
	put(scope, "/a", "/b/c", "/d")
	put(other, "/x")
	if err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/d") }); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/a", "/b/c", "/d", "/x", "/missing", "/a"}
	check := func(tx driver.ReadTx, what string) {
		t.Helper()
		_, native := tx.(driver.MultiStater)
		got, err := driver.StatMany(ctx, tx, paths)
		if err != nil {
			t.Fatalf("%s: StatMany: %v", what, err)
		}
		want := map[string]driver.FileInfo{}
		for _, p := range paths {
			if info, ok, err := tx.Stat(ctx, p); err != nil {
				t.Fatal(err)
			} else if ok {
				want[p] = info
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s (native %v): StatMany %v, Stat %v", what, native, got, want)
		}
		for p, w := range want {
			if g, ok := got[p]; !ok || g.Path != w.Path || g.SizeBytes != w.SizeBytes || !g.UpdatedAt.Equal(w.UpdatedAt) || !g.CreatedAt.Equal(w.CreatedAt) {
				t.Errorf("%s: %s: StatMany %+v, Stat %+v", what, p, g, w)
			}
		}
	}
	if err := s.View(ctx, scope, func(tx driver.ReadTx) error { check(tx, "View"); return nil }); err != nil {
		t.Fatal(err)
	}
	// Inside an Update, the transaction's own writes count.
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		if _, err := tx.Put(ctx, "/missing", []byte("now here"), driver.PutOptions{}); err != nil {
			return err
		}
		if err := tx.Delete(ctx, "/a"); err != nil {
			return err
		}
		check(tx, "Update")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testScopeJobs(t *testing.T, s driver.Store) {
	l, ok := s.(driver.ScopeJobLister)
	if !ok {
		t.Log("the store does not implement driver.ScopeJobLister: nothing to check")
		return
	}
	ctx := context.Background()
	_, scope := newTenant("p")
	_, other := newTenant("p")
	var versions = map[string]time.Time{}
	update := func(scope driver.Scope, fn func(tx driver.WriteTx) error) {
		t.Helper()
		if err := s.Update(ctx, scope, driver.UpdateOptions{}, fn); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/docs/a", "/docs/b", "/src/c"} {
		update(scope, func(tx driver.WriteTx) error {
			info, err := tx.Put(ctx, p, []byte("x"), driver.PutOptions{CredentialRef: "ref"})
			versions[p] = info.UpdatedAt
			return err
		})
		time.Sleep(2 * time.Millisecond) // distinct EnqueuedAt
	}
	update(scope, func(tx driver.WriteTx) error { return tx.Delete(ctx, "/docs/b") })
	update(other, func(tx driver.WriteTx) error {
		_, err := tx.Put(ctx, "/docs/a", []byte("y"), driver.PutOptions{})
		return err
	})
	jobs, err := l.ScopeJobs(ctx, scope, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, string(j.Op)+" "+j.Path)
		if j.Scope != scope || j.CredentialRef != "" {
			t.Errorf("job %+v: want scope %v and no credential reference", j, scope)
		}
		if j.Op == driver.JobUpsert && !j.FileUpdatedAt.Equal(versions[j.Path]) {
			t.Errorf("job of %s at %v, want the version written %v", j.Path, j.FileUpdatedAt, versions[j.Path])
		}
	}
	// Newest first: the delete of /docs/b superseded its upsert.
	if want := []string{"DELETE /docs/b", "UPSERT /src/c", "UPSERT /docs/a"}; !slices.Equal(got, want) {
		t.Errorf("ScopeJobs = %v, want %v", got, want)
	}
	if jobs, err := l.ScopeJobs(ctx, scope, "/docs/", 1); err != nil || len(jobs) != 1 || jobs[0].Path != "/docs/b" {
		t.Errorf("prefix /docs/, limit 1: %+v, %v", jobs, err)
	}
	// A completed job is gone; a claimed one stays until completed.
	claimed, err := s.ClaimJobs(ctx, 100, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range claimed {
		if j.Scope == scope && j.Path == "/src/c" {
			if err := s.CompleteJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	if jobs, err := l.ScopeJobs(ctx, scope, "", 0); err != nil || len(jobs) != 2 {
		t.Errorf("after completing /src/c: %+v, %v; want the two others, leased or not", jobs, err)
	}
}

// putFiles writes "content of <path>" at each path of scope, in one transaction.
func putFiles(t *testing.T, s driver.Store, scope driver.Scope, paths ...string) {
	t.Helper()
	ctx := context.Background()
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		for _, p := range paths {
			if _, err := tx.Put(ctx, p, []byte("content of "+p), driver.PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
