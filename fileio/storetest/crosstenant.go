package storetest

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// exerciseCrossTenant: tenant B works on a project with the same name as tenant A's and must
// neither see nor change anything of A's, through the Service and through the Store.
func exerciseCrossTenant(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore, func(c *fileio.Config) { c.AllowRootWipe = true })
	a, scopeA := newTenant(proj)
	b, scopeB := newTenant(proj)
	for _, p := range []string{"/secret/key.txt", "/secret/deep/x", "/top.md"} {
		e.write(a, proj, p, "A's data at "+p)
	}
	before := snapshot(t, e.store, scopeA)
	jobsBefore := pending(t, e.store)

	for _, p := range []string{"", "/secret", "/secret/key.txt", "/top.md"} {
		s, err := e.svc.Stat(b, fileio.StatRequest{Project: proj, Path: p})
		want := fileio.StatResult{}
		if p == "" {
			want = fileio.StatResult{Exists: true, Type: fileio.TypeDirectory}
		}
		if diff := cmp.Diff(want, s); err != nil || diff != "" {
			t.Errorf("B stat %q: err %v (-want +got):\n%s", p, err, diff)
		}
	}
	for _, depth := range []int{0, 1, 5} {
		l, err := e.svc.List(b, fileio.ListRequest{Project: proj, Path: "", Depth: depth, Limit: 0})
		if err != nil || (depth > 0 && len(l.Entries) != 0) || (depth == 0 && !l.Entries[0].UpdatedAt.IsZero()) {
			t.Errorf("B list root depth %d = %+v, %v", depth, l, err)
		}
	}
	for _, req := range []fileio.GrepRequest{
		{Project: proj, Pattern: "data"},
		{Project: proj, Pattern: "", OutputMode: fileio.GrepFilesWithMatches},
		{Project: proj, Pattern: "A's", FixedStrings: true, OutputMode: fileio.GrepCount},
	} {
		g, err := e.svc.Grep(b, req)
		if err != nil || g.ScannedFiles != 0 || len(g.Matches)+len(g.Files)+len(g.Counts) != 0 {
			t.Errorf("B grep %+v = %+v, %v; want nothing of A's", req, g, err)
		}
	}
	_, err := e.svc.Grep(b, fileio.GrepRequest{Project: proj, Pattern: "data", Path: "/secret"})
	wantCode(t, "B grep in A's directory", err, agentfiles.CodeNotFound)
	_, err = e.svc.Grep(b, fileio.GrepRequest{Project: proj, Pattern: "data", Path: "/top.md"})
	wantCode(t, "B grep A's file", err, agentfiles.CodeNotFound)
	if g, err := e.svc.Glob(b, fileio.GlobRequest{Project: proj, Pattern: "**"}); err != nil || len(g.Paths) != 0 {
		t.Errorf("B glob ** = %+v, %v; want no paths", g, err)
	}
	_, err = e.svc.Glob(b, fileio.GlobRequest{Project: proj, Pattern: "*", Path: "/secret"})
	wantCode(t, "B glob in A's directory", err, agentfiles.CodeNotFound)
	// A cursor of A's search does not open A's files to B (it is bound to the arguments, and
	// B's project holds nothing of A's anyway).
	if res, err := e.svc.Grep(a, fileio.GrepRequest{Project: proj, Pattern: "data", Limit: 1}); err != nil || res.NextCursor == "" {
		t.Fatalf("A grep with limit 1 = %+v, %v", res, err)
	} else if g, err := e.svc.Grep(b, fileio.GrepRequest{Project: proj, Pattern: "data", Limit: 1, Cursor: res.NextCursor}); err != nil || len(g.Matches) != 0 {
		t.Errorf("B grep with A's cursor = %+v, %v; want nothing", g, err)
	}
	_, err = e.svc.List(b, fileio.ListRequest{Project: proj, Path: "/secret", Depth: 1, Limit: 0})
	wantCode(t, "B list A's directory", err, agentfiles.CodeNotFound)
	_, err = e.svc.Read(b, fileio.ReadRequest{Project: proj, Path: "/secret/key.txt", OffsetBytes: 0, LengthBytes: new(int64(-1))})
	wantCode(t, "B read A's file", err, agentfiles.CodeNotFound)
	_, err = e.svc.Read(b, fileio.ReadRequest{Project: proj, Path: "/secret", OffsetBytes: 0, LengthBytes: new(int64(-1))})
	wantCode(t, "B read A's directory", err, agentfiles.CodeNotFound)
	wantCode(t, "B delete A's file", e.svc.Delete(b, fileio.DeleteRequest{Project: proj, Path: "/top.md", Recursive: false}), agentfiles.CodeNotFound)
	wantCode(t, "B delete A's directory", e.svc.Delete(b, fileio.DeleteRequest{Project: proj, Path: "/secret", Recursive: true}), agentfiles.CodeNotFound)
	wantCode(t, "B wipe the root", e.svc.Delete(b, fileio.DeleteRequest{Project: proj, Path: "", Recursive: true}), noError)
	_, err = e.svc.Write(b, fileio.WriteRequest{Project: proj, Path: "/top.md", Content: "x", OffsetBytes: 5, Mode: fileio.ModeOverwrite})
	wantCode(t, "B overwrite inside A's file", err, fileio.CodeInvalidOffset)
	_, err = e.svc.Write(b, fileio.WriteRequest{Project: proj, Path: "/top.md", Content: "x", Exclusive: true})
	wantCode(t, "B exclusive create of A's path", err, noError)
	// A's file /top.md does not make /top.md/x a NOT_DIRECTORY for B, nor A's /secret an IS_DIRECTORY.
	_, err = e.svc.Write(b, fileio.WriteRequest{Project: proj, Path: "/secret", Content: "B"})
	wantCode(t, "B write where A has a directory", err, noError)

	if diff := cmp.Diff(before, snapshot(t, e.store, scopeA)); diff != "" {
		t.Errorf("B's operations changed A's project (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"/top.md": "x", "/secret": "B"}, snapshot(t, e.store, scopeB)); diff != "" {
		t.Errorf("B's project (-want +got):\n%s", diff)
	}
	if jobs := pending(t, e.store); jobs != jobsBefore+2 {
		t.Errorf("outbox has %d jobs, want A's %d plus B's 2", jobs, jobsBefore)
	}
	// Store level: B's scope shows nothing of A's.
	ctx := context.Background()
	e.store.View(ctx, scopeB, func(tx driver.ReadTx) error {
		if _, err := tx.Get(ctx, "/secret/key.txt"); agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
			t.Errorf("store Get of A's file under B's scope: %v", err)
		}
		if l, _ := tx.List(ctx, "/secret/", 0); len(l) != 0 {
			t.Errorf("store List under B's scope shows %v", l)
		}
		if pb, _ := tx.ProjectBytes(ctx); pb != 2 {
			t.Errorf("B's ProjectBytes = %d, want 2", pb)
		}
		return nil
	})
	// A sees its data unchanged through the Service as well.
	if got := e.read(a, proj, "/top.md"); got != "A's data at /top.md" {
		t.Errorf("A reads %q", got)
	}
}
