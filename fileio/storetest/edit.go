package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// exerciseEdits covers the editing operations through the Service: Edit, Rename, line
// ranges, and the history (Versions, Read of a version, Restore).
func exerciseEdits(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Edit", func(t *testing.T) { testEdit(t, newEnv(t, newStore)) })
	t.Run("EditConcurrent", func(t *testing.T) { testEditConcurrent(t, newEnv(t, newStore)) })
	t.Run("WriteSHA256", func(t *testing.T) { testWriteSHA256(t, newEnv(t, newStore)) })
	t.Run("Rename", func(t *testing.T) { testRename(t, newEnv(t, newStore)) })
	t.Run("RenameConcurrentWrites", func(t *testing.T) { testRenameConcurrentWrites(t, newEnv(t, newStore)) })
	t.Run("RenameOutbox", func(t *testing.T) { testRenameOutbox(t, newStore) })
	t.Run("ReadLines", func(t *testing.T) {
		testReadLines(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxReadBytes = 12 }))
	})
	t.Run("Versions", func(t *testing.T) { testVersions(t, newEnv(t, newStore)) })
	t.Run("HistoryRetention", func(t *testing.T) {
		testHistoryRetention(t, newEnv(t, newStore, func(c *fileio.Config) { c.HistoryVersions = 2 }))
	})
	t.Run("HistoryQuota", func(t *testing.T) { testHistoryQuota(t, newStore) })
	t.Run("HistoryOff", func(t *testing.T) {
		testHistoryOff(t, newEnv(t, newStore, func(c *fileio.Config) { c.HistoryVersions = 0 }))
	})
	t.Run("TenantIsolation", func(t *testing.T) { testNewOpsIsolation(t, newEnv(t, newStore)) })
}

func (e *env) edit(ctx context.Context, req fileio.EditRequest) (fileio.EditResult, error) {
	req.Project = proj
	return e.svc.Edit(ctx, req)
}

func testEdit(t *testing.T, e *env) {
	const start = "alpha\nbeta\ngamma\nbeta\n"
	type tc struct {
		name string
		req  fileio.EditRequest
		want string          // the content after the edit (start when it fails or is a dry run)
		code agentfiles.Code // noError for success
		msg  []string        // fragments the error message must contain
	}
	edits := func(es ...fileio.Edit) fileio.EditRequest { return fileio.EditRequest{Edits: es} }
	cases := []tc{
		{name: "one", req: edits(fileio.Edit{OldStr: "alpha", NewStr: "ALPHA"}), want: "ALPHA\nbeta\ngamma\nbeta\n"},
		{name: "replace all", req: edits(fileio.Edit{OldStr: "beta", NewStr: "B", ReplaceAll: true}), want: "alpha\nB\ngamma\nB\n"},
		{name: "in order", req: edits(fileio.Edit{OldStr: "alpha", NewStr: "x"}, fileio.Edit{OldStr: "x\nbeta", NewStr: "y"}), want: "y\ngamma\nbeta\n"},
		{name: "multi-line old_str", req: edits(fileio.Edit{OldStr: "beta\ngamma\n", NewStr: ""}), want: "alpha\nbeta\n"},
		{name: "missing", req: edits(fileio.Edit{OldStr: "delta", NewStr: "x"}), want: start, code: fileio.CodeNoMatch, msg: []string{"edits[0].old_str"}},
		{name: "ambiguous", req: edits(fileio.Edit{OldStr: "beta", NewStr: "x"}), want: start, code: fileio.CodeAmbiguousMatch, msg: []string{"2 times", "lines 2, 4", "replace_all"}},
		{name: "all or nothing", req: edits(fileio.Edit{OldStr: "alpha", NewStr: "x"}, fileio.Edit{OldStr: "alpha", NewStr: "y"}), want: start, code: fileio.CodeNoMatch, msg: []string{"edits[1].old_str"}},
		{name: "empty old_str", req: edits(fileio.Edit{OldStr: "", NewStr: "x"}), want: start, code: agentfiles.CodeInvalidArgument},
		{name: "no edits", req: fileio.EditRequest{}, want: start, code: agentfiles.CodeInvalidArgument},
		{name: "dry run", req: fileio.EditRequest{Edits: []fileio.Edit{{OldStr: "gamma", NewStr: "G"}}, DryRun: true}, want: start},
		{name: "insert top", req: fileio.EditRequest{Insert: true, InsertLine: 0, InsertText: "top"}, want: "top\n" + start},
		{name: "insert middle", req: fileio.EditRequest{Insert: true, InsertLine: 2, InsertText: "mid\nmid2\n"}, want: "alpha\nbeta\nmid\nmid2\ngamma\nbeta\n"},
		{name: "insert end", req: fileio.EditRequest{Insert: true, InsertLine: 4, InsertText: "end"}, want: start + "end\n"},
		{name: "insert past end", req: fileio.EditRequest{Insert: true, InsertLine: 5, InsertText: "x"}, want: start, code: agentfiles.CodeInvalidArgument, msg: []string{"4 lines", "0 to 4"}},
		{name: "insert and edits", req: fileio.EditRequest{Insert: true, Edits: []fileio.Edit{{OldStr: "a", NewStr: "b"}}}, want: start, code: agentfiles.CodeInvalidArgument},
		{name: "sha matches", req: fileio.EditRequest{Edits: []fileio.Edit{{OldStr: "gamma", NewStr: "G"}}, ExpectedSHA256: fileio.SHA256Hex([]byte(start))}, want: "alpha\nbeta\nG\nbeta\n"},
		{name: "sha differs", req: fileio.EditRequest{Edits: []fileio.Edit{{OldStr: "gamma", NewStr: "G"}}, ExpectedSHA256: fileio.SHA256Hex([]byte("x"))}, want: start, code: fileio.CodeConflict, msg: []string{"read it again"}},
		{name: "bad sha", req: fileio.EditRequest{Edits: []fileio.Edit{{OldStr: "gamma", NewStr: "G"}}, ExpectedSHA256: "abc"}, want: start, code: agentfiles.CodeInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, _ := newTenant(proj)
			e.write(ctx, proj, "/f.txt", start)
			req := c.req
			req.Path = "/f.txt"
			res, err := e.edit(ctx, req)
			wantCode(t, "edit", err, c.code)
			if c.msg != nil {
				wantMessage(t, "edit", err, c.msg...)
			}
			got := e.read(ctx, proj, "/f.txt")
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("content after the edit (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			after := got
			if req.DryRun {
				after = "alpha\nbeta\nG\nbeta\n"
			}
			if res.SizeBytes != int64(len(after)) || res.SHA256 != fileio.SHA256Hex([]byte(after)) || res.DryRun != req.DryRun {
				t.Errorf("result %+v does not describe the new content %q", res, after)
			}
			if want := fileio.UnifiedDiff("/f.txt", start, after); res.Diff != want || !strings.HasPrefix(res.Diff, "--- a/f.txt\n+++ b/f.txt\n@@ ") {
				t.Errorf("diff:\n%s\nwant:\n%s", res.Diff, want)
			}
		})
	}
	t.Run("diff", func(t *testing.T) {
		ctx, _ := newTenant(proj)
		e.write(ctx, proj, "/d", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n")
		res, err := e.edit(ctx, fileio.EditRequest{Path: "/d", Edits: []fileio.Edit{{OldStr: "\n2\n", NewStr: "\ntwo\n"}, {OldStr: "11\n", NewStr: ""}}, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		want := "--- a/d\n+++ b/d\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -8,5 +8,4 @@\n 8\n 9\n 10\n-11\n 12\n"
		if diff := cmp.Diff(want, res.Diff); diff != "" {
			t.Errorf("diff (-want +got):\n%s", diff)
		}
	})
	t.Run("large file", func(t *testing.T) {
		// Edits far from both ends of a file larger than any store's diff window, near its
		// ends, in a long line, and in a file without a final newline: the result and the diff
		// are those of the whole file.
		var sb strings.Builder
		for i := range 4000 {
			fmt.Fprintf(&sb, "line %04d of the large file\n", i)
		}
		large := sb.String()
		longLine := strings.Repeat("long ", 8000) + "needle " + strings.Repeat("long ", 8000) + "\n"
		for _, c := range []struct{ name, content, old, new string }{
			{"middle", large, "line 2000 of", "LINE 2000\nadded of"},
			{"start", large, "line 0001 of", "x"},
			{"end", large, "line 3999 of the large file\n", ""},
			{"no final newline", strings.TrimSuffix(large, "\n"), "line 3999", "last"},
			{"long line", large[:1000] + longLine + large[1000:], "needle", "pin"},
			{"lines above a long line", large[:2000] + longLine + large[2000:], "line 0072 of", "x"},
		} {
			t.Run(c.name, func(t *testing.T) {
				ctx, _ := newTenant(proj)
				if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/big", Content: c.content}); err != nil {
					t.Fatal(err)
				}
				want := strings.Replace(c.content, c.old, c.new, 1)
				for _, dry := range []bool{true, false} {
					res, err := e.edit(ctx, fileio.EditRequest{Path: "/big", Edits: []fileio.Edit{{OldStr: c.old, NewStr: c.new}}, DryRun: dry})
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(fileio.UnifiedDiff("/big", c.content, want), res.Diff); diff != "" {
						t.Errorf("dry_run=%v: diff (-want +got):\n%s", dry, diff)
					}
					if res.SizeBytes != int64(len(want)) || res.SHA256 != fileio.SHA256Hex([]byte(want)) {
						t.Errorf("dry_run=%v: size %d sha %s, want %d %s", dry, res.SizeBytes, res.SHA256, len(want), fileio.SHA256Hex([]byte(want)))
					}
				}
				if got := e.read(ctx, proj, "/big"); got != want {
					t.Errorf("content differs from the replacement (len %d, want %d)", len(got), len(want))
				}
			})
		}
	})
	t.Run("missing file and directory", func(t *testing.T) {
		ctx, _ := newTenant(proj)
		e.write(ctx, proj, "/dir/f", "x")
		_, err := e.edit(ctx, fileio.EditRequest{Path: "/nope", Edits: []fileio.Edit{{OldStr: "x", NewStr: "y"}}})
		wantCode(t, "edit of a missing file", err, agentfiles.CodeNotFound)
		_, err = e.edit(ctx, fileio.EditRequest{Path: "/dir", Edits: []fileio.Edit{{OldStr: "x", NewStr: "y"}}})
		wantCode(t, "edit of a directory", err, agentfiles.CodeIsDirectory)
	})
	t.Run("quota", func(t *testing.T) {
		ctx, _ := newTenant(proj)
		e.write(ctx, proj, "/q", "x")
		// Each y becomes 64 KiB: 256 of them make 16 MiB, past the default 10 MiB file limit.
		_, err := e.edit(ctx, fileio.EditRequest{Path: "/q", Edits: []fileio.Edit{
			{OldStr: "x", NewStr: strings.Repeat("y", 256)}, {OldStr: "y", NewStr: strings.Repeat("z", 64<<10), ReplaceAll: true}}})
		wantCode(t, "edit past the file size", err, fileio.CodeQuotaExceeded)
		if got := e.read(ctx, proj, "/q"); got != "x" {
			t.Errorf("content after a refused edit: %.20q", got)
		}
	})
}

// testEditConcurrent: edits with expected_sha256 of the same content race; exactly one wins,
// the others get CONFLICT; then writers that retry on CONFLICT lose nothing.
func testEditConcurrent(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	const start = "counter: 0\n"
	e.write(ctx, proj, "/c", start)
	sha := fileio.SHA256Hex([]byte(start))
	const n = 8
	errs := make([]error, n)
	inParallel(n, func(g int) {
		_, errs[g] = e.edit(ctx, fileio.EditRequest{Path: "/c", ExpectedSHA256: sha,
			Edits: []fileio.Edit{{OldStr: "counter: 0", NewStr: fmt.Sprintf("counter: %d", g+1)}}})
	})
	winners := 0
	var winner int
	for g, err := range errs {
		switch agentfiles.ErrorCode(err) {
		case noError:
			winners, winner = winners+1, g
		case fileio.CodeConflict:
		default:
			t.Errorf("editor %d: %v, want success or CONFLICT", g, err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d editors won, want exactly 1", winners)
	}
	if got, want := e.read(ctx, proj, "/c"), fmt.Sprintf("counter: %d\n", winner+1); got != want {
		t.Errorf("content %q, want the winner's %q", got, want)
	}
	// Read, edit with the sha read, retry on CONFLICT: every line lands.
	inParallel(n, func(g int) {
		for {
			res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/c", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
			if err != nil {
				errs[g] = err
				return
			}
			_, err = e.edit(ctx, fileio.EditRequest{Path: "/c", ExpectedSHA256: fileio.SHA256Hex([]byte(res.Content)),
				Insert: true, InsertLine: fileio.LineCount(res.Content), InsertText: fmt.Sprintf("line %d", g)})
			if agentfiles.ErrorCode(err) != fileio.CodeConflict {
				errs[g] = err
				return
			}
		}
	})
	for g, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", g, err)
		}
	}
	got := e.read(ctx, proj, "/c")
	for g := range n {
		if !strings.Contains(got, fmt.Sprintf("line %d\n", g)) {
			t.Errorf("line %d lost: %q", g, got)
		}
	}
	if lines := fileio.LineCount(got); lines != n+1 {
		t.Errorf("%d lines, want %d: %q", lines, n+1, got)
	}
}

func testRename(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	rename := func(from, to string, overwrite bool) (fileio.RenameResult, error) {
		return e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: from, To: to, Overwrite: overwrite})
	}
	e.write(ctx, proj, "/a.txt", "A")
	e.write(ctx, proj, "/b.txt", "B")
	res, err := rename("/a.txt", "/moved/a.txt", false)
	if err != nil || res.Files != 1 {
		t.Fatalf("rename a file: %+v, %v", res, err)
	}
	if got := e.read(ctx, proj, "/moved/a.txt"); got != "A" {
		t.Errorf("moved content %q", got)
	}
	st, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/a.txt"})
	if st.Exists {
		t.Errorf("old path still exists")
	}
	_, err = rename("/b.txt", "/moved/a.txt", false)
	wantCode(t, "rename onto a file", err, agentfiles.CodeAlreadyExists)
	wantMessage(t, "rename onto a file", err, "overwrite")
	if _, err := rename("/b.txt", "/moved/a.txt", true); err != nil {
		t.Fatalf("rename with overwrite: %v", err)
	}
	if got := e.read(ctx, proj, "/moved/a.txt"); got != "B" {
		t.Errorf("overwritten content %q", got)
	}

	// A directory of many files, into a directory that already holds other files.
	const many = 60
	for i := range many {
		e.write(ctx, proj, fmt.Sprintf("/src/sub%d/f%02d", i%3, i), fmt.Sprintf("content %d", i))
	}
	e.write(ctx, proj, "/dst/keep", "keep")
	res, err = rename("/src", "/dst/src2", false)
	if err != nil || res.Files != many {
		t.Fatalf("rename a directory: %+v, %v", res, err)
	}
	for i := range many {
		if got, want := e.read(ctx, proj, fmt.Sprintf("/dst/src2/sub%d/f%02d", i%3, i)), fmt.Sprintf("content %d", i); got != want {
			t.Errorf("file %d: %q, want %q", i, got, want)
		}
	}
	if st, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/src"}); st.Exists {
		t.Errorf("/src still exists after the move")
	}
	// Merge into an existing directory: a clash needs overwrite.
	e.write(ctx, proj, "/m1/x", "new x")
	e.write(ctx, proj, "/m1/y", "y")
	e.write(ctx, proj, "/m2/x", "old x")
	_, err = rename("/m1", "/m2", false)
	wantCode(t, "merge with a clash", err, agentfiles.CodeAlreadyExists)
	if got := e.read(ctx, proj, "/m1/y"); got != "y" {
		t.Errorf("a refused rename moved files")
	}
	if res, err := rename("/m1", "/m2", true); err != nil || res.Files != 2 {
		t.Fatalf("merge with overwrite: %+v, %v", res, err)
	}
	if got := e.read(ctx, proj, "/m2/x") + e.read(ctx, proj, "/m2/y"); got != "new xy" {
		t.Errorf("merged: %q", got)
	}

	e.write(ctx, proj, "/file", "f")
	e.write(ctx, proj, "/dir/inner", "i")
	e.write(ctx, proj, "/d3/file", "i")
	e.write(ctx, proj, "/d4/file/deeper", "i")
	for _, c := range []struct {
		from, to string
		code     agentfiles.Code
	}{
		{"/nope", "/x", agentfiles.CodeNotFound},
		{"/file", "/file", agentfiles.CodeInvalidArgument},
		{"/dir", "/dir/below", agentfiles.CodeInvalidArgument},
		{"/dir/inner", "/dir", agentfiles.CodeIsDirectory},
		{"/dir", "/file", fileio.CodeNotDirectory},
		{"/dir", "/file/x", fileio.CodeNotDirectory},
		{"/file", "/file/x", agentfiles.CodeInvalidArgument},
		{"/dir/inner", "/file/x", fileio.CodeNotDirectory},
		{"/file", "/dir", agentfiles.CodeIsDirectory},
		{"/file", "", agentfiles.CodeInvalidArgument},
		{"", "/x", agentfiles.CodeInvalidArgument},
		{"/file", "/a//b", fileio.CodeInvalidPath},
		{"/d3", "/d4", agentfiles.CodeIsDirectory}, // /d4/file is a directory where the file /d3/file would go
		{"/d4", "/d3", fileio.CodeNotDirectory},    // /d3/file is a file where a directory would go
	} {
		_, err := rename(c.from, c.to, true)
		wantCode(t, fmt.Sprintf("rename %q to %q", c.from, c.to), err, c.code)
	}
	if got := e.read(ctx, proj, "/file") + e.read(ctx, proj, "/dir/inner"); got != "fi" {
		t.Errorf("refused renames changed files: %q", got)
	}
	// Path rules for every new path: a destination that makes a path too long.
	long := "/" + strings.Repeat("d", 1000)
	e.write(ctx, proj, "/short/"+strings.Repeat("n", 30), "x")
	_, err = rename("/short", long, false)
	wantCode(t, "rename making a path too long", err, fileio.CodeInvalidPath)
}

// testRenameConcurrentWrites renames a directory while writers append to its files: the move
// is atomic, so each append lands either in the moved file or in a file created again at the
// old path after the move, and none is lost.
func testRenameConcurrentWrites(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	const files, writers, appends = 100, 4, 10
	for i := range files {
		e.write(ctx, proj, fmt.Sprintf("/src/f%03d", i), "x")
	}
	var ok [writers][appends]bool
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range appends {
				_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: fmt.Sprintf("/src/f%03d", (w*appends+a)%files), Content: "w"})
				ok[w][a] = err == nil
			}
		}()
	}
	res, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/src", To: "/dst", Overwrite: false})
	wg.Wait()
	if err != nil {
		t.Fatalf("rename under writes: %v", err)
	}
	if res.Files != files {
		t.Errorf("moved %d files, want %d", res.Files, files)
	}
	landed := 0
	for w := range writers {
		for a := range appends {
			if ok[w][a] {
				landed++
			}
		}
	}
	total := 0
	for _, dir := range []string{"/src", "/dst"} {
		list, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: dir, Depth: 1, Limit: 1024})
		if err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
			t.Fatal(err)
		}
		for _, f := range list.Entries {
			total += strings.Count(e.read(ctx, proj, f.Path), "w")
		}
		if dir == "/dst" && len(list.Entries) != files {
			t.Errorf("/dst holds %d files, want %d", len(list.Entries), files)
		}
	}
	if total != landed {
		t.Errorf("%d appends found, %d succeeded", total, landed)
	}
}

// testRenameOutbox: a rename queues a DELETE job for each old path and an UPSERT for each new,
// each UPSERT with the credential sealed for its own path.
func testRenameOutbox(t *testing.T, newStore func(t *testing.T) driver.Store) {
	store := newStore(t)
	svc, err := fileio.NewService(store, fileio.Options{Config: testConfig(), CredentialSealer: &sealer{}})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: store, svc: svc}
	ctx, scope := newTenant(proj)
	e.write(ctx, proj, "/d/a", "a")
	e.write(ctx, proj, "/d/b", "b")
	drain(t, e.store)
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/d", To: "/e", Overwrite: false}); err != nil {
		t.Fatal(err)
	}
	got := map[string]driver.JobOp{}
	for _, j := range mustClaim(t, e.store) {
		if j.Scope != scope {
			t.Errorf("job of another scope: %+v", j)
		}
		got[j.Path] = j.Op
		if want := "ref:" + proj + ":" + j.Path; j.Op == driver.JobUpsert && j.CredentialRef != want {
			t.Errorf("UPSERT job of %s carries credential %q, want %q", j.Path, j.CredentialRef, want)
		}
	}
	want := map[string]driver.JobOp{"/d/a": driver.JobDelete, "/d/b": driver.JobDelete, "/e/a": driver.JobUpsert, "/e/b": driver.JobUpsert}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jobs after a rename (-want +got):\n%s", diff)
	}
}

// drain completes every pending job.
func drain(t *testing.T, s driver.Store) {
	t.Helper()
	for pending(t, s) > 0 {
		for _, j := range mustClaim(t, s) {
			if err := s.CompleteJob(context.Background(), j); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func testReadLines(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/l", "one\ntwo\nthree\nfour\nfive") // no newline at the end; MaxReadBytes is 12
	type want struct {
		Content         string
		Start, End, Tot int
		Off, Next       int64
		Truncated       bool
	}
	for _, c := range []struct {
		name string
		req  fileio.ReadRequest
		want want
		code agentfiles.Code
	}{
		{"range", fileio.ReadRequest{StartLine: 2, EndLine: 3}, want{"two\nthree\n", 2, 3, 5, 4, 14, false}, noError},
		{"numbers", fileio.ReadRequest{StartLine: 4, LineNumbers: true}, want{"     4\tfour\n", 4, 4, 5, 14, 19, true}, noError},
		{"tail", fileio.ReadRequest{StartLine: -2}, want{"four\nfive", 4, 5, 5, 14, 23, false}, noError},
		{"tail longer than the file", fileio.ReadRequest{StartLine: -20, EndLine: 1}, want{"one\n", 1, 1, 5, 0, 4, false}, noError},
		{"end from the end", fileio.ReadRequest{StartLine: 3, EndLine: -2}, want{"three\nfour\n", 3, 4, 5, 8, 19, false}, noError},
		{"past the end", fileio.ReadRequest{StartLine: 9}, want{"", 9, 8, 5, 23, 23, false}, noError},
		{"clamped at a line, numbers counted", fileio.ReadRequest{StartLine: 1, LineNumbers: true}, want{"     1\tone\n", 1, 1, 5, 0, 4, true}, noError},
		{"clamped at a line", fileio.ReadRequest{StartLine: 1}, want{"one\ntwo\n", 1, 2, 5, 0, 8, true}, noError},
		{"end before start", fileio.ReadRequest{StartLine: 3, EndLine: 2}, want{}, agentfiles.CodeInvalidArgument},
		{"bytes and lines", fileio.ReadRequest{StartLine: 1, OffsetBytes: 2}, want{}, agentfiles.CodeInvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Project, req.Path = proj, "/l"
			res, err := e.svc.Read(ctx, req)
			wantCode(t, "ReadFile", err, c.code)
			if err != nil {
				return
			}
			got := want{res.Content, res.StartLine, res.EndLine, res.TotalLines, res.OffsetBytes, res.NextOffsetBytes, res.Truncated}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A line longer than MaxReadBytes is cut, and the note says where the rest starts.
	e.write(ctx, proj, "/long", "abcdefghijklmnopqrst\nx\n")
	res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/long", StartLine: 1})
	if err != nil || res.Content != "abcdefghijkl" || res.EndLine != 1 || !res.Truncated || res.NextOffsetBytes != 12 || !strings.Contains(res.Note, "offset=12") {
		t.Errorf("read of a line longer than the maximum: %+v, %v", res, err)
	}
	// Byte offsets still work through ReadFile.
	n := int64(3)
	res, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/l", OffsetBytes: 4, LengthBytes: &n})
	if err != nil || res.Content != "two" || res.StartLine != 0 {
		t.Errorf("byte read through ReadFile: %+v, %v", res, err)
	}
}

// versionsOf returns (version, current, deleted, content) of each version of path, newest first.
func (e *env) versionsOf(ctx context.Context, path string) []string {
	e.t.Helper()
	vs, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: path})
	if err != nil {
		e.t.Fatalf("Versions %s: %v", path, err)
	}
	var out []string
	for _, v := range vs {
		res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: path, Version: v.Version})
		if err != nil {
			e.t.Fatalf("read version %d of %s: %v", v.Version, path, err)
		}
		if v.SHA256 != fileio.SHA256Hex([]byte(res.Content)) || v.SizeBytes != int64(len(res.Content)) {
			e.t.Errorf("version %d: info %+v does not describe its content %q", v.Version, v, res.Content)
		}
		if v.Current != v.ReplacedAt.IsZero() {
			e.t.Errorf("version %d: Current %v but ReplacedAt %v", v.Version, v.Current, v.ReplacedAt)
		}
		mark := ""
		switch {
		case v.Current:
			mark = " current"
		case v.Deleted:
			mark = " deleted"
		}
		out = append(out, fmt.Sprintf("%d%s %s", v.Version, mark, res.Content))
	}
	return out
}

// testVersions: versions after each kind of mutation, reading them, restoring them, and
// restoring a deleted file.
func testVersions(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	check := func(what, path string, want ...string) {
		t.Helper()
		if diff := cmp.Diff(want, e.versionsOf(ctx, path)); diff != "" {
			t.Errorf("versions of %s after %s (-want +got):\n%s", path, what, diff)
		}
	}
	e.write(ctx, proj, "/f", "one")
	check("create", "/f", "1 current one")
	e.write(ctx, proj, "/f", "+two") // APPEND
	check("append", "/f", "2 current one+two", "1 one")
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f", Content: "three", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f", Content: "T", Mode: fileio.ModeOverwrite}); err != nil {
		t.Fatal(err)
	}
	check("truncate and overwrite", "/f", "4 current Three", "3 three", "2 one+two", "1 one")
	if _, err := e.edit(ctx, fileio.EditRequest{Path: "/f", Edits: []fileio.Edit{{OldStr: "Three", NewStr: "five"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.edit(ctx, fileio.EditRequest{Path: "/f", Edits: []fileio.Edit{{OldStr: "five", NewStr: "x"}}, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	check("edit and a dry run", "/f", "5 current five", "4 Three", "3 three", "2 one+two", "1 one")
	wr, err := e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/f", Version: 2})
	if err != nil || wr.Created || wr.FileSizeBytes != int64(len("one+two")) {
		t.Fatalf("restore: %+v, %v", wr, err)
	}
	check("restore", "/f", "6 current one+two", "5 five", "4 Three", "3 three", "2 one+two", "1 one")
	_, err = e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/f", Version: 99})
	wantCode(t, "restore of a version never written", err, agentfiles.CodeNotFound)
	_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/f", Version: 99})
	wantCode(t, "read of a version never written", err, agentfiles.CodeNotFound)

	// Rename: the old path keeps its last version, as deleted; the new path starts afresh.
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/f", To: "/g", Overwrite: false}); err != nil {
		t.Fatal(err)
	}
	check("rename (new path)", "/g", "1 current one+two")
	vs := e.versionsOf(ctx, "/f")
	if len(vs) == 0 || vs[0] != "6 deleted one+two" {
		t.Errorf("versions of a renamed-away path: %q, want the last one first, deleted", vs)
	}
	// Delete, then restore the deleted file.
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/g", Recursive: false}); err != nil {
		t.Fatal(err)
	}
	check("delete", "/g", "1 deleted one+two")
	_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/g", OffsetBytes: 0, LengthBytes: new(int64(-1))})
	wantCode(t, "read of a deleted file", err, agentfiles.CodeNotFound)
	wr, err = e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/g", Version: 1})
	if err != nil || !wr.Created {
		t.Fatalf("restore of a deleted file: %+v, %v", wr, err)
	}
	if got := e.read(ctx, proj, "/g"); got != "one+two" {
		t.Errorf("restored deleted file: %q", got)
	}
	check("restore of a deleted file", "/g", "2 current one+two", "1 deleted one+two")
	// Restore obeys the path rules: a directory now where the file was.
	e.write(ctx, proj, "/h", "h")
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/h", Recursive: false}); err != nil {
		t.Fatal(err)
	}
	e.write(ctx, proj, "/h/inner", "i")
	_, err = e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/h", Version: 1})
	wantCode(t, "restore where a directory now is", err, agentfiles.CodeIsDirectory)
	_, err = e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/never"})
	wantCode(t, "versions of a path never written", err, agentfiles.CodeNotFound)
}

// testHistoryRetention: with HistoryVersions 2 a path keeps its two newest previous versions.
func testHistoryRetention(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for i := 1; i <= 5; i++ {
		if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/r", Content: fmt.Sprint(i), Mode: fileio.ModeTruncate}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"5 current 5", "4 4", "3 3"}, e.versionsOf(ctx, "/r")); diff != "" {
		t.Errorf("versions kept (-want +got):\n%s", diff)
	}
	_, err := e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/r", Version: 2})
	wantCode(t, "restore of a version past the retention", err, agentfiles.CodeNotFound)
}

// testHistoryQuota: kept versions count toward max_project_bytes (and so do the changes'
// events, ev each: all paths here have the same length).
func testHistoryQuota(t *testing.T, newStore func(t *testing.T) driver.Store) {
	ev := driver.EventBytes("/a")
	for _, history := range []int{0, 10} {
		t.Run(fmt.Sprintf("history_versions=%d", history), func(t *testing.T) {
			e := newEnv(t, newStore, func(c *fileio.Config) {
				c.MaxProjectBytes, c.MaxFileBytes, c.HistoryVersions = 3000+5*ev, 3000, history
			})
			ctx, _ := newTenant(proj)
			for range 3 {
				if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/a", Content: strings.Repeat("a", 1000), Mode: fileio.ModeTruncate}); err != nil {
					t.Fatal(err)
				}
			}
			// Active: 1000 bytes; kept: 2000 with history, 0 without; three changes.
			_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/b", Content: strings.Repeat("b", 500)})
			want := noError
			if history > 0 {
				want = fileio.CodeQuotaExceeded
			}
			wantCode(t, "a write that fits only without the history", err, want)
			_, err = e.edit(ctx, fileio.EditRequest{Path: "/a", Edits: []fileio.Edit{{OldStr: "a", NewStr: "aa", ReplaceAll: true}}})
			wantCode(t, "an edit that grows the file", err, want)
		})
	}
}

// testHistoryOff: with HistoryVersions 0 only the current version is listed and a deleted
// file is gone.
func testHistoryOff(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", "a")
	e.write(ctx, proj, "/f", "b")
	if got := e.versionsOf(ctx, "/f"); len(got) != 1 || !strings.HasSuffix(got[0], "current ab") {
		t.Errorf("versions without history: %q", got)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/f", Recursive: false}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/f"})
	wantCode(t, "versions of a deleted file without history", err, agentfiles.CodeNotFound)
}

// testNewOpsIsolation: another tenant sees none of a tenant's files, versions or history
// through the new operations, and cannot change them.
func testNewOpsIsolation(t *testing.T, e *env) {
	owner, _ := newTenant(proj)
	other, _ := newTenant(proj)
	e.write(owner, proj, "/secret", "s1")
	e.write(owner, proj, "/secret", "s2")
	e.write(owner, proj, "/dir/x", "x")
	_, err := e.edit(other, fileio.EditRequest{Path: "/secret", Edits: []fileio.Edit{{OldStr: "s", NewStr: "S"}}})
	wantCode(t, "edit by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Rename(other, fileio.RenameRequest{Project: proj, From: "/secret", To: "/stolen", Overwrite: false})
	wantCode(t, "rename by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Rename(other, fileio.RenameRequest{Project: proj, From: "/dir", To: "/stolen", Overwrite: false})
	wantCode(t, "directory rename by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Versions(other, fileio.VersionsRequest{Project: proj, Path: "/secret"})
	wantCode(t, "versions by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Read(other, fileio.ReadRequest{Project: proj, Path: "/secret", Version: 1})
	wantCode(t, "read of a version by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Read(other, fileio.ReadRequest{Project: proj, Path: "/secret", StartLine: 1})
	wantCode(t, "line read by another tenant", err, agentfiles.CodeNotFound)
	_, err = e.svc.Restore(other, fileio.RestoreRequest{Project: proj, Path: "/secret", Version: 1})
	wantCode(t, "restore by another tenant", err, agentfiles.CodeNotFound)
	// The other tenant's own file at the same path has its own history.
	e.write(other, proj, "/secret", "mine")
	if _, err := e.svc.Rename(other, fileio.RenameRequest{Project: proj, From: "/secret", To: "/dir/x", Overwrite: false}); err != nil {
		t.Errorf("the other tenant's rename onto a path only the owner has: %v", err)
	}
	if got := e.read(owner, proj, "/secret") + e.read(owner, proj, "/dir/x"); got != "s1s2x" {
		t.Errorf("the owner's files changed: %q", got)
	}
	if vs := e.versionsOf(owner, "/secret"); len(vs) != 2 {
		t.Errorf("the owner's versions: %q", vs)
	}
}

// testWriteSHA256: every write mode and Restore answer the new content's sha256, the one Edit
// and Versions report, and ExpectedSHA256 makes a write fail with CONFLICT, changing nothing,
// when the file changed or is gone.
func testWriteSHA256(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	sum := func(s string) string { return fileio.SHA256Hex([]byte(s)) }
	steps := []struct {
		name    string
		req     fileio.WriteRequest
		content string // the file after the step
		code    agentfiles.Code
	}{
		{"create (APPEND)", fileio.WriteRequest{Content: "one\n"}, "one\n", agentfiles.Code{}},
		{"APPEND", fileio.WriteRequest{Content: "two\n"}, "one\ntwo\n", agentfiles.Code{}},
		{"OVERWRITE", fileio.WriteRequest{Content: "ONE", Mode: fileio.ModeOverwrite}, "ONE\ntwo\n", agentfiles.Code{}},
		{"TRUNCATE", fileio.WriteRequest{Content: "three\n", Mode: fileio.ModeTruncate}, "three\n", agentfiles.Code{}},
		{"APPEND expecting the current sha", fileio.WriteRequest{Content: "four\n", ExpectedSHA256: sum("three\n")}, "three\nfour\n", agentfiles.Code{}},
		{"TRUNCATE expecting an old sha", fileio.WriteRequest{Content: "lost\n", Mode: fileio.ModeTruncate, ExpectedSHA256: sum("three\n")}, "three\nfour\n", fileio.CodeConflict},
		{"APPEND expecting an old sha", fileio.WriteRequest{Content: "lost\n", ExpectedSHA256: sum("one\n")}, "three\nfour\n", fileio.CodeConflict},
		{"TRUNCATE expecting the current sha, upper case", fileio.WriteRequest{Content: "five\n", Mode: fileio.ModeTruncate,
			ExpectedSHA256: strings.ToUpper(sum("three\nfour\n"))}, "five\n", agentfiles.Code{}},
		{"malformed expected_sha256", fileio.WriteRequest{Content: "x", ExpectedSHA256: "abc"}, "five\n", agentfiles.CodeInvalidArgument},
	}
	for _, st := range steps {
		st.req.Project, st.req.Path = proj, "/s.md"
		res, err := e.svc.Write(ctx, st.req)
		if agentfiles.ErrorCode(err) != st.code {
			t.Fatalf("%s: %v, want code %v", st.name, err, st.code)
		}
		if err == nil && res.SHA256 != sum(st.content) {
			t.Errorf("%s: sha256 %q, want that of %q", st.name, res.SHA256, st.content)
		}
		if st.code == fileio.CodeConflict && !strings.Contains(err.Error(), "read it again") {
			t.Errorf("%s: the conflict does not say to read the file again: %v", st.name, err)
		}
		if got := e.read(ctx, proj, "/s.md"); got != st.content {
			t.Errorf("%s: the file holds %q, want %q", st.name, got, st.content)
		}
	}
	vs, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/s.md"})
	if err != nil || len(vs) < 2 || vs[0].SHA256 != sum("five\n") {
		t.Fatalf("Versions = %+v, %v; want the current sha256 first", vs, err)
	}
	res, err := e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/s.md", Version: vs[1].Version})
	if err != nil || res.SHA256 != vs[1].SHA256 {
		t.Errorf("Restore = %+v, %v; want sha256 %s", res, err, vs[1].SHA256)
	}
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/gone.md", Content: "x", ExpectedSHA256: sum("x")}); agentfiles.ErrorCode(err) != fileio.CodeConflict {
		t.Errorf("a write expecting a sha of a missing file: %v, want CONFLICT", err)
	}
	testMutationsExpectSHA256(t, e, ctx)
}

// testMutationsExpectSHA256: Restore, Rename and Delete take ExpectedSHA256 as Write does: a
// stale or malformed hash refuses the call and changes nothing; the current one lets it
// through, and Rename answers the moved file's sha256.
func testMutationsExpectSHA256(t *testing.T, e *env, ctx context.Context) {
	sum := func(s string) string { return fileio.SHA256Hex([]byte(s)) }
	e.write(ctx, proj, "/m.md", "first\n")
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/m.md", Content: "second\n", Mode: fileio.ModeTruncate}); err != nil {
		t.Fatal(err)
	}
	stale, current := sum("first\n"), sum("second\n")
	calls := []struct {
		name string
		call func(expected string) error
	}{
		{"restore", func(h string) error {
			_, err := e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/m.md", Version: 1, ExpectedSHA256: h})
			return err
		}},
		{"rename", func(h string) error {
			_, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/m.md", To: "/n.md", ExpectedSHA256: h})
			return err
		}},
		{"delete", func(h string) error {
			return e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/m.md", ExpectedSHA256: h})
		}},
	}
	for _, c := range calls {
		for _, bad := range []struct {
			hash string
			code agentfiles.Code
		}{{stale, fileio.CodeConflict}, {"abc", agentfiles.CodeInvalidArgument}} {
			if err := c.call(bad.hash); agentfiles.ErrorCode(err) != bad.code {
				t.Errorf("%s expecting %q: %v, want %v", c.name, bad.hash, err, bad.code)
			}
			if got := e.read(ctx, proj, "/m.md"); got != "second\n" {
				t.Fatalf("%s expecting %q changed the file to %q", c.name, bad.hash, got)
			}
		}
	}
	// The current hash lets each through: restore (content back to "first"), rename, delete.
	if _, err := e.svc.Restore(ctx, fileio.RestoreRequest{Project: proj, Path: "/m.md", Version: 1, ExpectedSHA256: current}); err != nil {
		t.Fatalf("restore with the current sha256: %v", err)
	}
	res, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/m.md", To: "/n.md", ExpectedSHA256: stale})
	if err != nil || res.SHA256 != stale || res.Files != 1 {
		t.Fatalf("rename with the current sha256 = %+v, %v; want 1 file with sha256 %s", res, err, stale)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/n.md", ExpectedSHA256: strings.ToUpper(stale)}); err != nil {
		t.Fatalf("delete with the current sha256: %v", err)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/n.md", ExpectedSHA256: stale}); agentfiles.ErrorCode(err) != fileio.CodeConflict {
		t.Errorf("delete of a file that is gone, expecting a sha256: %v, want CONFLICT", err)
	}
}
