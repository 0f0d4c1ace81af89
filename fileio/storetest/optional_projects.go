package storetest

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// testListProjects: ListProjects returns exactly the caller's projects that hold an active
// file, sorted and bounded by limit, and never another tenant's. Stores without
// driver.ProjectLister pass it with a log line.
func testListProjects(t *testing.T, s driver.Store) {
	l, ok := s.(driver.ProjectLister)
	if !ok {
		t.Log("the store does not implement driver.ProjectLister: nothing to check")
		return
	}
	ctx := context.Background()
	_, scope := newTenant("")
	_, other := newTenant("")
	put := func(scope driver.Scope, project string, paths ...string) {
		t.Helper()
		scope.Project = project
		putFiles(t, s, scope, paths...)
	}
	list := func(tenant string, limit int) []string {
		t.Helper()
		got, err := l.ListProjects(ctx, tenant, limit)
		if err != nil {
			t.Fatalf("ListProjects: %v", err)
		}
		return got
	}
	if diff := cmp.Diff([]string{}, list(scope.Tenant, 0)); diff != "" {
		t.Errorf("a tenant without files (-want +got):\n%s", diff)
	}
	put(scope, "zeta", "/a")
	put(scope, "alpha", "/a", "/b/c")
	put(scope, "mid", "/x")
	put(scope, "emptied", "/gone")
	if err := s.Update(ctx, driver.Scope{Tenant: scope.Tenant, Project: "emptied"}, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		return tx.Delete(ctx, "/gone")
	}); err != nil {
		t.Fatal(err)
	}
	put(other, "secret", "/s")
	put(other, "alpha", "/s")
	if err := s.View(ctx, driver.Scope{Tenant: scope.Tenant, Project: "never-written"}, func(driver.ReadTx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		tenant string
		limit  int
		want   []string
	}{
		{"all", scope.Tenant, 0, []string{"alpha", "mid", "zeta"}},
		{"limited", scope.Tenant, 2, []string{"alpha", "mid"}},
		{"limit above count", scope.Tenant, 10, []string{"alpha", "mid", "zeta"}},
		{"other tenant", other.Tenant, 0, []string{"alpha", "secret"}},
		{"unknown tenant", "storetest-no-such-tenant", 0, []string{}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, list(tc.tenant, tc.limit)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
