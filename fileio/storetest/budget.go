package storetest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
)

// exerciseBudgets checks that every call stays within its budget (see the fileio package
// documentation, Budgets) whatever the store: edits with long old_str, many edits, growth
// by replace_all, diffs of large changes, renames of large directories, and the atomic
// "new path must not exist" of RenameExclusive.
func exerciseBudgets(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("EditLongOldStr", func(t *testing.T) { testEditLongOldStr(t, newEnv(t, newStore)) })
	t.Run("EditCount", func(t *testing.T) { testEditCount(t, newEnv(t, newStore)) })
	t.Run("EditGrowth", func(t *testing.T) { testEditGrowth(t, newEnv(t, newStore)) })
	t.Run("EditDiffMemory", func(t *testing.T) { testEditDiffMemory(t, newEnv(t, newStore)) })
	t.Run("EditDiffBytes", func(t *testing.T) {
		testEditDiffBytes(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxDiffBytes = 1024 }))
	})
	t.Run("ReadLineNumbers", func(t *testing.T) {
		testReadLineNumbers(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxReadBytes = 64 }))
	})
	t.Run("ReadDefault", func(t *testing.T) {
		testReadDefault(t, newEnv(t, newStore, func(c *fileio.Config) { c.ReadDefaultLines, c.ReadDefaultBytes, c.MaxReadBytes = 3, 20, 64 }))
	})
	t.Run("PurgeHistory", func(t *testing.T) {
		testPurgeHistory(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxProjectBytes, c.MaxFileBytes = purgeHistoryQuota, 1000 }))
	})
	t.Run("EditWork", func(t *testing.T) {
		testEditWork(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxEditWorkBytes = 1000 }))
	})
	t.Run("TenantCallSlots", func(t *testing.T) {
		testTenantCallSlots(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxConcurrentCalls, c.LockTimeout = 1, time.Minute }))
	})
	t.Run("RenameCap", func(t *testing.T) {
		testRenameCap(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxRenameFiles = 3 }))
	})
	t.Run("RenameExclusive", func(t *testing.T) { testRenameExclusive(t, newEnv(t, newStore)) })
	t.Run("RenameExclusiveRace", func(t *testing.T) { testRenameExclusiveRace(t, newEnv(t, newStore)) })
}

// testEditLongOldStr: an old_str whose naive search costs the file's size times its length
// (a million "a" searched for 20,000 "a" and a "b") is found, or not, in linear time: the
// store's search is bounded, the Service's is linear.
func testEditLongOldStr(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	long := strings.Repeat("a", 20000)
	e.write(ctx, proj, "/h.txt", strings.Repeat("a", 1_000_000)+"\n"+long+"b\n")
	tests := []struct {
		name   string
		old    string
		code   agentfiles.Code
		size   int64
		hunkAt string
	}{
		{"no match", long + "c", fileio.CodeNoMatch, 0, ""},
		{"one match at the end", long + "b", noError, 1_000_000 + 1 + 2, "@@ -1,2 +1,2 @@"},
	}
	for _, tc := range tests {
		res, err := e.edit(ctx, fileio.EditRequest{Path: "/h.txt", DryRun: true, Edits: []fileio.Edit{{OldStr: tc.old, NewStr: "x"}}})
		wantCode(t, tc.name, err, tc.code)
		if err == nil && (res.SizeBytes != tc.size || !strings.Contains(res.Diff, tc.hunkAt)) {
			t.Errorf("%s: size %d, diff starts %.80q", tc.name, res.SizeBytes, res.Diff)
		}
	}
}

// testEditCount: one call carries at most Config.MaxEditsPerCall edits, and the error says so.
func testEditCount(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", "a\n")
	max := fileio.DefaultMaxEditsPerCall
	many := func(n int) []fileio.Edit {
		edits := make([]fileio.Edit, n)
		for i := range edits {
			edits[i] = fileio.Edit{OldStr: "a", NewStr: "a", ReplaceAll: true}
		}
		return edits
	}
	_, err := e.edit(ctx, fileio.EditRequest{Path: "/f", Edits: many(max)})
	wantCode(t, fmt.Sprintf("%d edits", max), err, noError)
	_, err = e.edit(ctx, fileio.EditRequest{Path: "/f", Edits: many(max + 1)})
	wantCode(t, fmt.Sprintf("%d edits", max+1), err, agentfiles.CodeInvalidArgument)
	wantMessage(t, "too many edits", err, fmt.Sprintf("the maximum is %d", max), "several file_edit calls")
}

// testEditGrowth: a replace_all that would make the file larger than max_file_bytes is refused
// before the new content is built (a 110-byte request must not allocate gigabytes).
func testEditGrowth(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", strings.Repeat("a", 100_000))
	big := strings.Repeat("b", 200_000) // 100,000 × 200,000 bytes = 20 GB if built
	_, err := e.edit(ctx, fileio.EditRequest{Path: "/f", DryRun: true, Edits: []fileio.Edit{{OldStr: "a", NewStr: big, ReplaceAll: true}}})
	wantCode(t, "replace_all past max_file_bytes", err, fileio.CodeQuotaExceeded)
	wantMessage(t, "replace_all past max_file_bytes", err, "100000 occurrences", "maximum file size")
}

// testEditDiffMemory: the diff of a replace_all that changes all of 2,100 lines (a 4,200-line
// edit script) needs memory linear in the lines.
func testEditDiffMemory(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/x", strings.Repeat("x\n", 2100))
	req := fileio.EditRequest{Path: "/x", DryRun: true, Edits: []fileio.Edit{{OldStr: "x", NewStr: "y", ReplaceAll: true}}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := e.edit(ctx, req)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("the edit allocated %d MiB; want at most 32 (the quadratic diff took ~140)", got>>20)
	}
	if n := strings.Count(res.Diff, "\n+y"); n != 2100 {
		t.Errorf("%d inserted lines in the diff, want 2100", n)
	}
}

// testEditDiffBytes: a diff longer than max_diff_bytes is cut, and the result says so.
func testEditDiffBytes(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/x", strings.Repeat("x\n", 2100))
	res, err := e.edit(ctx, fileio.EditRequest{Path: "/x", DryRun: true, Edits: []fileio.Edit{{OldStr: "x", NewStr: "y", ReplaceAll: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diff) > 1024 || !res.DiffTruncated || !strings.Contains(res.DiffNote, "file_read") {
		t.Errorf("diff of %d bytes, truncated %v, note %q; want at most 1024 bytes, cut, with a note", len(res.Diff), res.DiffTruncated, res.DiffNote)
	}
	res, err = e.edit(ctx, fileio.EditRequest{Path: "/x", DryRun: true, Edits: []fileio.Edit{{OldStr: "x\n", NewStr: "y\n", ReplaceAll: true}, {OldStr: "y\ny\n", NewStr: "x\nx\n", ReplaceAll: true}}})
	if err != nil || res.Diff != "" || res.DiffTruncated || res.DiffNote != "" {
		t.Errorf("an edit that changes nothing: diff %q, truncated %v, note %q, %v", res.Diff, res.DiffTruncated, res.DiffNote, err)
	}
}

// testRenameCap: a directory of more than max_rename_files files is not moved, and the error
// says what to do; one within the cap is.
func testRenameCap(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for i := range 4 {
		e.write(ctx, proj, fmt.Sprintf("/big/f%d", i), "x")
	}
	e.write(ctx, proj, "/small/a", "x")
	_, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/big", To: "/moved", Overwrite: false})
	wantCode(t, "rename of 4 files", err, agentfiles.CodeInvalidArgument)
	wantMessage(t, "rename of 4 files", err, "at most 3", "subdirectories")
	if st, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/moved"}); st.Exists {
		t.Error("a refused rename moved files")
	}
	if res, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/small", To: "/moved", Overwrite: false}); err != nil || res.Files != 1 {
		t.Errorf("rename within the cap: %+v, %v", res, err)
	}
}

// testRenameExclusive: RenameExclusive moves only onto nothing.
func testRenameExclusive(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/src/a", "a")
	e.write(ctx, proj, "/file", "f")
	e.write(ctx, proj, "/dir/b", "b")
	tests := []struct {
		from, to string
		code     agentfiles.Code
	}{
		{"/src", "/dir", agentfiles.CodeAlreadyExists}, // Rename would merge
		{"/src", "/file", agentfiles.CodeAlreadyExists},
		{"/file", "/dir", agentfiles.CodeAlreadyExists},
		{"/src/a", "/src/a/b", agentfiles.CodeInvalidArgument},
		{"/src", "/new/src", noError},
	}
	for _, tc := range tests {
		_, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: tc.from, To: tc.to, Exclusive: true})
		wantCode(t, tc.from+" → "+tc.to, err, tc.code)
	}
	_, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: "/file", To: "/file/x", Exclusive: true})
	wantMessage(t, "a file below itself", err, "the destination lies inside the path being moved")
	list, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 3, Limit: 0})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, en := range list.Entries {
		if en.Type == fileio.TypeFile {
			paths = append(paths, en.Path)
		}
	}
	if diff := cmp.Diff([]string{"/dir/b", "/file", "/new/src/a"}, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// testRenameExclusiveRace: a directory created at the destination while RenameExclusive runs
// either makes it fail or is created after the move: the moved files never merge into a
// directory that existed before them.
func testRenameExclusiveRace(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for round := range 20 {
		src, dst := fmt.Sprintf("/src%d", round), fmt.Sprintf("/dst%d", round)
		e.write(ctx, proj, src+"/a", "a")
		var renameErr, writeErr error
		inParallel(2, func(g int) {
			if g == 0 {
				_, renameErr = e.svc.Rename(ctx, fileio.RenameRequest{Project: proj, From: src, To: dst, Exclusive: true})
			} else {
				_, writeErr = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: dst + "/b", Content: "b"})
			}
		})
		if writeErr != nil {
			t.Fatalf("round %d: write: %v", round, writeErr)
		}
		if renameErr != nil {
			wantCode(t, "rename onto a directory being created", renameErr, agentfiles.CodeAlreadyExists)
			continue
		}
		a, errA := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: dst + "/a"})
		b, errB := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: dst + "/b"})
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if b.CreatedAt.Before(a.CreatedAt) {
			t.Errorf("round %d: the rename succeeded into %s, which existed before it (%s created %v, moved file %v)",
				round, dst, dst+"/b", b.CreatedAt, a.CreatedAt)
		}
	}
}

// testReadLineNumbers: the line-number prefixes count against max_read_bytes, so a file of
// empty lines does not come back eight times larger than the limit.
func testReadLineNumbers(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/n", strings.Repeat("\n", 100))
	e.write(ctx, proj, "/long", strings.Repeat("y", 100))
	tests := []struct {
		path      string
		start     int
		endLine   int
		next      int64
		truncated bool
	}{
		// Each numbered empty line is 8 bytes: "     1\t\n".
		{"/n", 1, 8, 8, true},
		{"/n", 95, 100, 100, false},
		{"/long", 1, 1, 64 - 7, true},
	}
	for _, tc := range tests {
		res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: tc.path, StartLine: tc.start, LineNumbers: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) > 64 {
			t.Errorf("%s from %d: %d bytes of content, over max_read_bytes 64", tc.path, tc.start, len(res.Content))
		}
		got := []any{res.EndLine, res.NextOffsetBytes, res.Truncated}
		if diff := cmp.Diff([]any{tc.endLine, tc.next, tc.truncated}, got); diff != "" {
			t.Errorf("%s from %d (-want +got):\n%s", tc.path, tc.start, diff)
		}
	}
}

// purgeHistoryQuota is testPurgeHistory's quota: it holds its files and kept versions and the
// events of its changes, but not a 200-byte file more before the purge.
var purgeHistoryQuota = 1000 + 6*driver.EventBytes("/d/a")

// testPurgeHistory: the kept versions of deleted files hold quota; QUOTA_EXCEEDED says so, and
// PurgeHistory gives the space back, for a path and what is below it only.
func testPurgeHistory(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	x := strings.Repeat("x", 300)
	e.write(ctx, proj, "/d/a", x)
	for _, next := range []string{"y", "z"} {
		if _, err := e.edit(ctx, fileio.EditRequest{Path: "/d/a", Edits: []fileio.Edit{{OldStr: x[:1], NewStr: next, ReplaceAll: true}}}); err != nil {
			t.Fatal(err)
		}
		x = strings.Repeat(next, 300)
	}
	e.write(ctx, proj, "/dx", "12345")
	e.write(ctx, proj, "/dx", "6")
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/d", Recursive: true}); err != nil {
		t.Fatal(err)
	}
	// Files: /dx, 6 bytes; kept: /d/a 3 × 300, /dx 5; six changes of /d/a and /dx.
	events := 4*driver.EventBytes("/d/a") + 2*driver.EventBytes("/dx")
	_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/b", Content: strings.Repeat("b", 200)})
	wantCode(t, "a write into a project full of kept versions", err, fileio.CodeQuotaExceeded)
	wantMessage(t, "a write into a project full of kept versions", err, "holds 6 in files", "905 in kept versions",
		fmt.Sprintf("%d in change-feed events", events), fmt.Sprintf("adds %d", 200+driver.EventBytes("/b")), "file_purge_history")
	tests := []struct {
		path string
		want fileio.PurgeHistoryResult
	}{
		{"/d", fileio.PurgeHistoryResult{Versions: 3, BytesFreed: 900}},
		{"/d", fileio.PurgeHistoryResult{}},
		{"", fileio.PurgeHistoryResult{Versions: 1, BytesFreed: 5}},
	}
	for _, tc := range tests {
		got, err := e.svc.PurgeHistory(ctx, fileio.PurgeHistoryRequest{Project: proj, Path: tc.path})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("PurgeHistory(%q) (-want +got):\n%s", tc.path, diff)
		}
	}
	if _, err := e.svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: "/d/a"}); agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
		t.Errorf("versions of the purged deleted file: %v, want NOT_FOUND", err)
	}
	if got := e.read(ctx, proj, "/dx"); got != "123456" {
		t.Errorf("the active file changed: %q", got)
	}
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/b", Content: strings.Repeat("b", 200)}); err != nil {
		t.Errorf("the write after the purge: %v", err)
	}
}

// testEditWork: the edits of one call scan at most max_edit_work_bytes of text together.
func testEditWork(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", strings.Repeat("ab", 150)) // 300 bytes: three edits fit in 1000
	swap := func(n int) []fileio.Edit {
		edits := make([]fileio.Edit, n)
		for i := range edits {
			edits[i] = fileio.Edit{OldStr: "a", NewStr: "c", ReplaceAll: true}
			if i%2 == 1 {
				edits[i] = fileio.Edit{OldStr: "c", NewStr: "a", ReplaceAll: true}
			}
		}
		return edits
	}
	_, err := e.edit(ctx, fileio.EditRequest{Path: "/f", DryRun: true, Edits: swap(3)})
	wantCode(t, "3 edits of 300 bytes", err, noError)
	_, err = e.edit(ctx, fileio.EditRequest{Path: "/f", DryRun: true, Edits: swap(4)})
	wantCode(t, "4 edits of 300 bytes", err, agentfiles.CodeInvalidArgument)
	wantMessage(t, "4 edits of 300 bytes", err, "past 1000 bytes", "at most 3 edits")
}

// testTenantCallSlots: with max_concurrent_calls 1, a tenant whose call is busy (waiting for a
// project lock) cannot start another until it ends, while another tenant's calls go on.
func testTenantCallSlots(t *testing.T, e *env) {
	ctxA, scopeA := newTenant(proj)
	ctxB, _ := newTenant(proj)
	e.write(ctxA, "other", "/a", "a")
	e.write(ctxB, proj, "/b", "b")
	held := holdLock(t, e.store, scopeA, nil)
	busy := make(chan error, 1)
	go func() {
		_, err := e.svc.Write(ctxA, fileio.WriteRequest{Project: proj, Path: "/w", Content: "w"}) // waits for the lock
		busy <- err
	}()
	// Another call of A waits for A's slot; its deadline ends the wait.
	poll.Eventually(t, 10*time.Second, "a second call of A to wait for A's busy slot until its deadline", func() bool {
		short, cancel := context.WithTimeout(ctxA, 50*time.Millisecond)
		defer cancel()
		_, err := e.svc.Read(short, fileio.ReadRequest{Project: "other", Path: "/a", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
		return agentfiles.ErrorCode(err) == agentfiles.CodeTimeout
	})
	// Grep and Glob hold a slot too: while A's is taken, they wait for it until their deadline.
	for name, call := range map[string]func(context.Context) error{
		"Grep": func(ctx context.Context) error {
			_, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: "other", Pattern: "a"})
			return err
		},
		"Glob": func(ctx context.Context) error {
			_, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: "other", Pattern: "*"})
			return err
		},
	} {
		short, cancel := context.WithTimeout(ctxA, 50*time.Millisecond)
		if err := call(short); agentfiles.ErrorCode(err) != agentfiles.CodeTimeout {
			t.Errorf("%s of A while A's slot is busy: %v, want TIMEOUT", name, err)
		}
		cancel()
	}
	if got := e.read(ctxB, proj, "/b"); got != "b" {
		t.Errorf("tenant B's read while A is busy: %q", got)
	}
	if res, err := e.svc.Grep(ctxB, fileio.GrepRequest{Project: proj, Pattern: "b"}); err != nil || len(res.Matches) != 1 {
		t.Errorf("tenant B's grep while A is busy: %+v, %v", res, err)
	}
	held.Release(t)
	if err := receive(t, busy, "A's write"); err != nil {
		t.Fatal(err)
	}
	if got := e.read(ctxA, "other", "/a"); got != "a" {
		t.Errorf("A's read once its call ended: %q", got)
	}
}

// testReadDefault: a read that names no end returns at most read_default_lines lines and
// read_default_bytes bytes, cut at a line boundary (a longer first line at a character
// boundary), with truncated and the continuation; a length or an end_line reads past it.
func testReadDefault(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", "l1\nl2\nl3\nl4\nl5\n")
	e.write(ctx, proj, "/w", "aaaaaaaaa\nbbbbbbbbb\ncccc\n")
	e.write(ctx, proj, "/one", strings.Repeat("é", 25))
	toEOF := int64(fileio.ReadToEOF)
	type got struct {
		Content   string
		Next      int64
		Truncated bool
		EndLine   int
		Continue  bool // the note names the continuation
	}
	tests := []struct {
		name string
		req  fileio.ReadRequest
		want got
		cont string
	}{
		{"no length: three lines", fileio.ReadRequest{Path: "/f"}, got{"l1\nl2\nl3\n", 9, true, 0, true}, "offset=9"},
		{"no length from the continuation", fileio.ReadRequest{Path: "/f", OffsetBytes: 9}, got{"l4\nl5\n", 15, false, 0, false}, ""},
		{"length -1 reads to the end", fileio.ReadRequest{Path: "/f", LengthBytes: &toEOF}, got{"l1\nl2\nl3\nl4\nl5\n", 15, false, 0, false}, ""},
		{"start_line without end_line", fileio.ReadRequest{Path: "/f", StartLine: 2}, got{"l2\nl3\nl4\n", 12, true, 4, true}, "start_line=5"},
		{"start_line and end_line", fileio.ReadRequest{Path: "/f", StartLine: 2, EndLine: 5}, got{"l2\nl3\nl4\nl5\n", 15, false, 5, false}, ""},
		{"the byte bound, at a line boundary", fileio.ReadRequest{Path: "/w"}, got{"aaaaaaaaa\nbbbbbbbbb\n", 20, true, 0, true}, "offset=20"},
		{"one long line, at a character boundary", fileio.ReadRequest{Path: "/one"}, got{strings.Repeat("é", 10), 20, true, 0, true}, "offset=20"},
	}
	for _, tc := range tests {
		tc.req.Project = proj
		res, err := e.svc.Read(ctx, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		g := got{res.Content, res.NextOffsetBytes, res.Truncated, res.EndLine, tc.cont != "" && strings.Contains(res.Note, tc.cont)}
		if diff := cmp.Diff(tc.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s\nnote: %s", tc.name, diff, res.Note)
		}
	}
}
