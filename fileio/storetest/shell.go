package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/shell"
	"github.com/google/go-cmp/cmp"
)

// ExerciseShell runs the snapshot, io/fs and file_shell suite against stores made by newStore:
// a project as an fs.FS passes testing/fstest.TestFS; a snapshot's reads refuse a change made
// after it; Commit writes all or nothing and refuses a conflicting change; a shell command is
// one step for checkpoints, rewind and the change feed; concurrent commands appending to one
// file lose nothing (each retried on CONFLICT); readers never see half a command.
func ExerciseShell(t *testing.T, newStore func(t *testing.T) driver.Store) {
	// One store for the suite: every test works as tenants of its own.
	e := newEnv(t, newStore)
	t.Run("FS", func(t *testing.T) { testProjectFS(t, e) })
	t.Run("SnapshotReads", func(t *testing.T) { testSnapshotReads(t, e) })
	t.Run("SnapshotCommit", func(t *testing.T) { testSnapshotCommit(t, e) })
	t.Run("ShellOneStep", func(t *testing.T) { testShellOneStep(t, e) })
	t.Run("ShellConcurrentAppends", func(t *testing.T) { testShellConcurrentAppends(t, e) })
	t.Run("ShellSeenWhole", func(t *testing.T) { testShellSeenWhole(t, e) })
}

// fsFixture is a project with nested directories and names a shell would quote.
var fsFixture = map[string]string{
	"/README.md":             "# demo\n",
	"/docs/guide.md":         "guide\n",
	"/docs/deep/a/b/c.txt":   "deep\n",
	"/src/main.go":           "package main\n",
	"/src/util/strings.go":   "package util\n",
	"/notes/meeting 1.txt":   "with a space\n",
	"/notes/café.md":         "accented\n",
	"/empty.txt":             "",
	"/.hidden/config.yaml":   "a: 1\n",
	"/docs/deep/a/sibling":   "s\n",
	"/src/util/strings_test": "t\n",
}

func testProjectFS(t *testing.T, e *env) {
	ctx, scope := newTenant("fs")
	e.writeFixture(ctx, scope.Project, fsFixture)
	fsys, err := e.svc.FS(ctx, scope.Project)
	if err != nil {
		t.Fatalf("FS: %v", err)
	}
	var want []string
	for p := range fsFixture {
		want = append(want, strings.TrimPrefix(p, "/"))
	}
	slices.Sort(want)
	if err := fstest.TestFS(fsys, want...); err != nil {
		t.Fatalf("fstest.TestFS: %v", err)
	}
	var walked []string
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			walked = append(walked, p)
		}
		return err
	}); err != nil {
		t.Fatalf("WalkDir: %v", err)
	}
	if diff := cmp.Diff(want, walked); diff != "" {
		t.Errorf("WalkDir (-want +got):\n%s", diff)
	}
	srv := httptest.NewServer(http.FileServerFS(fsys))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "guide\n" {
		t.Errorf("http.FileServerFS served %q", body)
	}
	if _, err := fsys.Open("missing.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := fsys.Open("../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../etc/passwd) = %v, want fs.ErrInvalid", err)
	}
	// Another tenant sees nothing of it.
	other, _ := newTenant(scope.Project)
	ofs, err := e.svc.FS(other, scope.Project)
	if err != nil {
		t.Fatal(err)
	}
	if entries, err := ofs.ReadDir("."); err != nil || len(entries) != 0 {
		t.Errorf("another tenant lists %v, %v", entries, err)
	}
}

func testSnapshotReads(t *testing.T, e *env) {
	ctx, scope := newTenant("snap")
	p := scope.Project
	e.writeFixture(ctx, p, map[string]string{"/a.txt": "a1\n", "/b.txt": "b1\n", "/dir/c.txt": "c1\n", "/other/d.txt": "d1\n"})
	sn, err := e.svc.Snapshot(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sn.ReadFile(ctx, "/a.txt"); err != nil || string(got) != "a1\n" {
		t.Fatalf("ReadFile(/a.txt) = %q, %v", got, err)
	}
	e.write(ctx, p, "/b.txt", "b2\n")
	e.write(ctx, p, "/dir/new.txt", "n\n")
	if _, err := sn.ReadFile(ctx, "/b.txt"); !errors.Is(err, fileio.ErrConflict) {
		t.Errorf("reading a file changed after the snapshot: %v, want CONFLICT", err)
	}
	if _, err := sn.ReadDir(ctx, "/dir"); !errors.Is(err, fileio.ErrConflict) {
		t.Errorf("listing a directory changed after the snapshot: %v, want CONFLICT", err)
	}
	if got, err := sn.ReadFile(ctx, "/other/d.txt"); err != nil || string(got) != "d1\n" {
		t.Errorf("an unchanged file: %q, %v", got, err)
	}
	if got, err := sn.ReadFile(ctx, "/a.txt"); err != nil || string(got) != "a1\n" {
		t.Errorf("a file read before: %q, %v", got, err)
	}
	if _, err := sn.ReadFile(ctx, "/missing"); !errors.Is(err, fs.ErrNotExist) || agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
		t.Errorf("missing file: %v, want NOT_FOUND and fs.ErrNotExist", err)
	}
	if _, err := sn.ReadFile(ctx, "/other"); agentfiles.ErrorCode(err) != agentfiles.CodeIsDirectory {
		t.Errorf("reading a directory: %v, want IS_DIRECTORY", err)
	}
}

func testSnapshotCommit(t *testing.T, e *env) {
	ctx, scope := newTenant("commit")
	p := scope.Project
	e.writeFixture(ctx, p, map[string]string{"/a.txt": "a\n", "/b.txt": "b\n", "/d/x.txt": "x\n"})
	commit := func(changes ...fileio.SnapshotChange) (fileio.CommitResult, error) {
		sn, err := e.svc.Snapshot(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return sn.Commit(ctx, changes)
	}
	res, err := commit(
		fileio.SnapshotChange{Path: "/new/n.txt", Content: []byte("n\n")},
		fileio.SnapshotChange{Path: "/a.txt", Content: []byte("a2\n")},
		fileio.SnapshotChange{Path: "/b.txt", Content: []byte("b\n")}, // unchanged: left out
		fileio.SnapshotChange{Path: "/d/x.txt", Delete: true},
		fileio.SnapshotChange{Path: "/nothing", Delete: true}, // nothing there: left out
	)
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	want := []fileio.CommittedFile{
		{Path: "/a.txt", Kind: "modified", SHA256: fileio.SHA256Hex([]byte("a2\n")), SizeBytes: 3},
		{Path: "/d/x.txt", Kind: "deleted"},
		{Path: "/new/n.txt", Kind: "created", SHA256: fileio.SHA256Hex([]byte("n\n")), SizeBytes: 2},
	}
	if diff := cmp.Diff(want, res.Files); diff != "" {
		t.Errorf("Commit (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name    string
		changes []fileio.SnapshotChange
		code    agentfiles.Code
	}{
		{"below a file", []fileio.SnapshotChange{{Path: "/a.txt/x", Content: []byte("x")}}, fileio.CodeNotDirectory},
		{"at a directory", []fileio.SnapshotChange{{Path: "/new", Content: []byte("x")}}, agentfiles.CodeIsDirectory},
		{"not UTF-8", []fileio.SnapshotChange{{Path: "/bin.dat", Content: []byte{0xff, 0xfe}}}, agentfiles.CodeInvalidArgument},
		{"the root", []fileio.SnapshotChange{{Path: "/", Content: []byte("x")}}, agentfiles.CodeIsDirectory},
		{"twice", []fileio.SnapshotChange{{Path: "/t", Content: []byte("1")}, {Path: "/t", Content: []byte("2")}}, agentfiles.CodeInvalidArgument},
		{"bad path", []fileio.SnapshotChange{{Path: "/a/../b", Content: []byte("1")}}, fileio.CodeInvalidPath},
	} {
		if _, err := commit(tt.changes...); agentfiles.ErrorCode(err) != tt.code {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
		}
	}
	// A file and the directory it replaces, in one commit.
	if _, err := commit(fileio.SnapshotChange{Path: "/new/n.txt", Delete: true}, fileio.SnapshotChange{Path: "/new", Content: []byte("now a file\n")}); err != nil {
		t.Errorf("replacing a directory by a file: %v", err)
	}
	// Conflicts: what the snapshot read changed; an unrelated change is no conflict.
	sn, _ := e.svc.Snapshot(ctx, p)
	if _, err := sn.ReadFile(ctx, "/a.txt"); err != nil {
		t.Fatal(err)
	}
	e.write(ctx, p, "/unrelated.txt", "u\n")
	if _, err := sn.Commit(ctx, []fileio.SnapshotChange{{Path: "/out.txt", Content: []byte("o\n")}}); err != nil {
		t.Errorf("commit after an unrelated change: %v", err)
	}
	sn, _ = e.svc.Snapshot(ctx, p)
	if _, err := sn.ReadFile(ctx, "/a.txt"); err != nil {
		t.Fatal(err)
	}
	e.write(ctx, p, "/a.txt", "a3\n")
	if _, err := sn.Commit(ctx, []fileio.SnapshotChange{{Path: "/out.txt", Content: []byte("o2\n")}}); !errors.Is(err, fileio.ErrConflict) {
		t.Errorf("commit after a change of a file read: %v, want CONFLICT", err)
	}
	if got := e.read(ctx, p, "/out.txt"); got != "o\n" {
		t.Errorf("a refused commit wrote /out.txt: %q", got)
	}
	// Quota: a commit that would pass max_project_bytes writes nothing.
	small := newEnv(t, func(t *testing.T) driver.Store { return e.store }, func(c *fileio.Config) { c.MaxProjectBytes = 64; c.MaxFileBytes = 64 })
	sctx, sscope := newTenant("quota")
	sn, _ = small.svc.Snapshot(sctx, sscope.Project)
	_, err = sn.Commit(sctx, []fileio.SnapshotChange{{Path: "/a", Content: []byte(strings.Repeat("a", 40))}, {Path: "/b", Content: []byte(strings.Repeat("b", 40))}})
	if agentfiles.ErrorCode(err) != fileio.CodeQuotaExceeded {
		t.Errorf("over the project quota: %v, want QUOTA_EXCEEDED", err)
	}
}

func testShellOneStep(t *testing.T, e *env) {
	ctx, scope := newTenant("step")
	p := scope.Project
	e.writeFixture(ctx, p, map[string]string{"/old.txt": "old\n", "/keep.txt": "1\n"})
	sh := shell.New(e.svc, shell.Options{})
	cp, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sh.Run(ctx, shell.Request{Project: p, Command: "echo a > /x.txt; echo b > /d/y.txt || echo no dir >&2; " +
		"echo 2 >> keep.txt; : > /old.txt; echo $(( 1 + 1 ))"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := shell.Result{Stdout: "2\n", Stderr: "bash: /d/y.txt: No such file or directory\nno dir\n",
		Created: []string{"/x.txt"}, Modified: []string{"/keep.txt", "/old.txt"}, Deleted: []string{}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	ev, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: cp.Position})
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range ev.Events {
		if ev.Position != cp.Position+int64(i)+1 {
			t.Errorf("event %d at position %d: the command's events are not consecutive", i, ev.Position)
		}
	}
	if _, err := e.svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID}); err != nil {
		t.Fatal(err)
	}
	for path, content := range map[string]string{"/old.txt": "old\n", "/keep.txt": "1\n"} {
		if got := e.read(ctx, p, path); got != content {
			t.Errorf("after rewind %s = %q, want %q", path, got, content)
		}
	}
	// A command of another tenant on the same project name sees and changes nothing of it.
	other, _ := newTenant(p)
	res, err = sh.Run(other, shell.Request{Project: p, Command: "cat /keep.txt; echo x > /keep.txt; [ -e /old.txt ] && echo seen"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stdout, "1") || strings.Contains(res.Stdout, "seen") {
		t.Errorf("another tenant read the project: %+v", res)
	}
	if got := e.read(ctx, p, "/keep.txt"); got != "1\n" {
		t.Errorf("another tenant's command changed /keep.txt to %q", got)
	}
}

// runRetrying runs req until it does not fail with CONFLICT or RESOURCE_BUSY.
func runRetrying(t *testing.T, sh *shell.Shell, ctx context.Context, req shell.Request) shell.Result {
	for try := 0; ; try++ {
		res, err := sh.Run(ctx, req)
		code := agentfiles.ErrorCode(err)
		if err == nil {
			return res
		}
		if (code != fileio.CodeConflict && code != agentfiles.CodeResourceBusy) || try > 200 {
			t.Errorf("Run(%q): %v", req.Command, err)
			return res
		}
	}
}

func testShellConcurrentAppends(t *testing.T, e *env) {
	ctx, scope := newTenant("appends")
	p := scope.Project
	sh := shell.New(e.svc, shell.Options{MaxConcurrent: 8})
	const workers, each = 6, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				runRetrying(t, sh, ctx, shell.Request{Project: p, Command: fmt.Sprintf("echo w%d-%d >> /log.txt; echo done", w, i)})
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(e.read(ctx, p, "/log.txt"), "\n"), "\n")
	slices.Sort(lines)
	var want []string
	for w := range workers {
		for i := range each {
			want = append(want, fmt.Sprintf("w%d-%d", w, i))
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("appends (-want +got):\n%s", diff)
	}
}

func testShellSeenWhole(t *testing.T, e *env) {
	ctx, scope := newTenant("whole")
	p := scope.Project
	e.writeFixture(ctx, p, map[string]string{"/a": "0\n", "/b": "0\n"})
	sh := shell.New(e.svc, shell.Options{})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for range 15 {
			runRetrying(t, sh, ctx, shell.Request{Project: p, Command: "read n < /a; n=$((n+1)); echo $n > /a; echo $n > /b"})
		}
	})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				res, err := e.svc.ReadMany(ctx, fileio.ReadManyRequest{Project: p, Paths: []string{"/a", "/b"}})
				if err != nil {
					t.Errorf("ReadMany: %v", err)
					return
				}
				if len(res.Files) == 2 && res.Files[0].Content != res.Files[1].Content {
					t.Errorf("a reader saw half a command: /a %q, /b %q", res.Files[0].Content, res.Files[1].Content)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := e.read(ctx, p, "/b"); got != "15\n" {
		t.Errorf("/b = %q after 15 commands", got)
	}
}
