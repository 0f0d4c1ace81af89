package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/google/go-cmp/cmp"
)

// ExerciseCheckpoints runs the checkpoint, rewind and change-feed suite against stores made by
// newStore (which must return an empty store on every call): model-based rewinds and change
// lists, rewinds seen whole by concurrent readers, a feed followed while another goroutine
// writes, pinned versions, and the argument errors.
func ExerciseCheckpoints(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Basics", func(t *testing.T) { testCheckpointBasics(t, newEnv(t, newStore)) })
	t.Run("RewindModel", func(t *testing.T) {
		e := newEnv(t, newStore)
		for seed := int64(1); seed <= 6; seed++ {
			t.Run(fmt.Sprint(seed), func(t *testing.T) { testRewindModel(t, e.store, seed) })
		}
	})
	t.Run("RewindModelFileByFile", func(t *testing.T) {
		// The same model, with the WriteTx's BulkWriter hidden: Rewind writes with Put.
		e := newEnv(t, func(t *testing.T) driver.Store { return withoutBulkWriter(newStore(t)) })
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprint(seed), func(t *testing.T) { testRewindModel(t, e.store, seed) })
		}
	})
	t.Run("RewindManyFiles", func(t *testing.T) { testRewindManyFiles(t, newEnv(t, newStore)) })
	t.Run("RewindDirectory", func(t *testing.T) { testRewindDirectory(t, newEnv(t, newStore)) })
	t.Run("RewindSeenWhole", func(t *testing.T) { testRewindSeenWhole(t, newEnv(t, newStore)) })
	t.Run("FeedFollowedWhileWriting", func(t *testing.T) {
		s := newStore(t)
		FollowFeedWhileWriting(t, s, s)
	})
	t.Run("Pinning", func(t *testing.T) { testPinning(t, newStore) })
	t.Run("EventsArguments", func(t *testing.T) { testEventsArguments(t, newEnv(t, newStore)) })
	t.Run("EventsWaiters", func(t *testing.T) {
		testEventsWaiters(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxFeedWaits = 2 }))
	})
}

func testCheckpointBasics(t *testing.T, e *env) {
	ctx, scope := newTenant("cp")
	p := scope.Project
	first, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: "empty"})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	if diff := cmp.Diff(driver.Checkpoint{ID: "1", Label: "empty", Position: 0}, first.Checkpoint, ignoreCreatedAt); diff != "" {
		t.Errorf("first checkpoint (-want +got):\n%s", diff)
	}
	e.write(ctx, p, "/a.txt", "a\n")
	second, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	if second.ID != "2" || second.Position != 1 {
		t.Errorf("second checkpoint = %+v, want id 2 at position 1", second)
	}
	// The answer says what the checkpoint pins: the file's 2 bytes, which it keeps once the
	// file changes.
	wantPins := fileio.CheckpointResult{Checkpoint: second.Checkpoint, PinsFiles: 1, PinsBytes: 2,
		ProjectBytes: 2 + driver.EventBytes("/a.txt"), QuotaBytes: fileio.DefaultMaxProjectBytes, Note: second.Note}
	if diff := cmp.Diff(wantPins, second); diff != "" {
		t.Errorf("what the second checkpoint pins (-want +got):\n%s", diff)
	}
	wantMessage(t, "the second checkpoint's note", errors.New(second.Note), "(1 files, 2 bytes)", "file_checkpoint_delete")
	e.write(ctx, p, "/a.txt", "b\n")
	third, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil || third.PinnedVersions != 1 || third.PinnedBytes != 2 {
		t.Errorf("a checkpoint after the pinned file changed: %+v, %v; want one pinned version of 2 bytes", third, err)
	}
	for i := 0; i < fileio.CheckpointPageSize; i++ {
		if _, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: fmt.Sprint("n", i)}); err != nil {
			t.Fatalf("Checkpoint %d: %v", i, err)
		}
	}
	var ids []string
	cursor := ""
	for pages := 0; pages < 5; pages++ {
		list, err := e.svc.Checkpoints(ctx, fileio.CheckpointsRequest{Project: p, Cursor: cursor})
		if err != nil {
			t.Fatalf("Checkpoints: %v", err)
		}
		for _, c := range list.Checkpoints {
			ids = append(ids, c.ID)
		}
		if cursor = list.NextCursor; cursor == "" {
			break
		}
	}
	if len(ids) != fileio.CheckpointPageSize+3 || ids[0] != "1" || ids[len(ids)-1] != fmt.Sprint(fileio.CheckpointPageSize+3) {
		t.Errorf("listed %d checkpoints (%v…), want 1..%d", len(ids), ids[:min(3, len(ids))], fileio.CheckpointPageSize+3)
	}
	if err := e.svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: p, Checkpoint: "1"}); err != nil {
		t.Fatalf("DeleteCheckpoint: %v", err)
	}
	wantCode(t, "delete again", e.svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: p, Checkpoint: "1"}), agentfiles.CodeNotFound)
	wantCode(t, "bad id", e.svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: p, Checkpoint: "cp-1"}), agentfiles.CodeInvalidArgument)
	_, err = e.svc.Changes(ctx, fileio.ChangesRequest{Project: p, Since: "1"})
	wantCode(t, "changes since a deleted checkpoint", err, agentfiles.CodeNotFound)
	_, err = e.svc.Checkpoints(ctx, fileio.CheckpointsRequest{Project: p, Cursor: "garbage"})
	wantCode(t, "bad cursor", err, agentfiles.CodeInvalidArgument)
	_, err = e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: "line\nbreak"})
	wantCode(t, "label with a newline", err, agentfiles.CodeInvalidArgument)

	other, _ := newTenant("cp")
	list, err := e.svc.Checkpoints(other, fileio.CheckpointsRequest{Project: p, Cursor: ""})
	if err != nil || len(list.Checkpoints) != 0 {
		t.Errorf("another tenant's checkpoints = %v, %v; want none", list.Checkpoints, err)
	}

	off := NewService(t, e.store, func(c *fileio.Config) { c.HistoryVersions = 0 })
	_, err = off.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	wantCode(t, "checkpoint without history", err, agentfiles.CodeInvalidArgument)
	wantMessage(t, "checkpoint without history", err, "history_versions")
}

var ignoreCreatedAt = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".CreatedAt" }, cmp.Ignore())

// projectFiles reads every file of scope in one read transaction.
func projectFiles(t testing.TB, s driver.Store, scope driver.Scope) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		infos, err := tx.List(ctx, "", 0)
		if err != nil {
			return err
		}
		for _, fi := range infos {
			f, err := tx.Get(ctx, fi.Path)
			if err != nil {
				return err
			}
			out[fi.Path] = string(f.Content)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the project: %v", err)
	}
	return out
}

// differing returns the paths whose content (or existence) differs between a and b, sorted.
func differing(a, b map[string]string) []string {
	var out []string
	for p, c := range a {
		if d, ok := b[p]; !ok || d != c {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// allChanges pages through Changes.
func allChanges(t testing.TB, svc *fileio.Service, ctx context.Context, project, since, path string) []fileio.FileChange {
	t.Helper()
	var out []fileio.FileChange
	cursor := ""
	for range 1000 {
		res, err := svc.Changes(ctx, fileio.ChangesRequest{Project: project, Since: since, Path: path, Cursor: cursor})
		if err != nil {
			t.Fatalf("Changes: %v", err)
		}
		out = append(out, res.Changes...)
		if cursor = res.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatalf("Changes did not end")
	return nil
}

// changedPaths flattens changes to the paths they touch (both ends of a rename), sorted.
func changedPaths(changes []fileio.FileChange) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path)
		if c.Kind == fileio.FileRenamed {
			out = append(out, c.From)
		}
	}
	slices.Sort(out)
	return out
}

// checkChanges checks that changes list exactly the paths that differ between then and now,
// each with the right kind.
func checkChanges(t testing.TB, changes []fileio.FileChange, then, now map[string]string) {
	t.Helper()
	if diff := cmp.Diff(differing(then, now), changedPaths(changes)); diff != "" {
		t.Errorf("changed paths (-differing +listed):\n%s", diff)
	}
	for _, c := range changes {
		before, was := then[c.Path]
		after, is := now[c.Path]
		var ok bool
		switch c.Kind {
		case fileio.FileAdded:
			ok = !was && is
		case fileio.FileDeleted:
			ok = was && !is
		case fileio.FileModified:
			ok = was && is && before != after && strings.HasPrefix(c.Diff, "--- a"+c.Path+"\n")
		case fileio.FileRenamed:
			from, fromWas := then[c.From]
			_, fromIs := now[c.From]
			ok = !was && is && fromWas && !fromIs && from == after
		}
		if !ok {
			t.Errorf("change %+v does not match the files (then %q, %v; now %q, %v)", c, before, was, after, is)
		}
	}
}

// modelOp is one random change through the Service.
func modelOp(ctx context.Context, svc *fileio.Service, project string, rng *rand.Rand, step int) {
	dirs := []string{"/a", "/a/b", "/c"}
	path := func() string { return fmt.Sprintf("%s/f%d.txt", dirs[rng.Intn(len(dirs))], rng.Intn(5)) }
	p := path()
	// Errors are expected (a missing file, an occupied name): the test compares states, not
	// the outcome of each call.
	switch rng.Intn(6) {
	case 0, 1:
		svc.Write(ctx, fileio.WriteRequest{Project: project, Path: p, Mode: fileio.ModeTruncate,
			Content: fmt.Sprintf("line one\nstep %d\nline three\n", step)})
	case 2:
		svc.Edit(ctx, fileio.EditRequest{Project: project, Path: p, Edits: []fileio.Edit{{OldStr: "line one", NewStr: fmt.Sprint("edited ", step)}}})
	case 3:
		svc.Rename(ctx, fileio.RenameRequest{Project: project, From: p, To: path(), Overwrite: rng.Intn(2) == 0})
	case 4:
		svc.Delete(ctx, fileio.DeleteRequest{Project: project, Path: p, Recursive: false})
	case 5:
		if vs, err := svc.Versions(ctx, fileio.VersionsRequest{Project: project, Path: p}); err == nil && len(vs) > 1 {
			svc.Restore(ctx, fileio.RestoreRequest{Project: project, Path: p, Version: vs[len(vs)-1].Version})
		}
	}
}

// testRewindModel: random writes, edits, renames, deletes and restores after a checkpoint;
// Changes lists exactly the files that differ, and a rewind makes the project byte-identical
// to the checkpoint; a checkpoint taken before the rewind undoes it.
func testRewindModel(t *testing.T, store driver.Store, seed int64) {
	svc := NewService(t, store, func(c *fileio.Config) { c.HistoryVersions = 3 })
	ctx, scope := newTenant("model")
	p := scope.Project
	rng := rand.New(rand.NewSource(seed))
	for step := range 15 {
		modelOp(ctx, svc, p, rng, step)
	}
	cp, err := svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: "turn start"})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	then := projectFiles(t, store, scope)
	for step := range 40 {
		modelOp(ctx, svc, p, rng, 100+step)
	}
	now := projectFiles(t, store, scope)
	changes := allChanges(t, svc, ctx, p, cp.ID, "")
	checkChanges(t, changes, then, now)

	dry, err := svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID, DryRun: true})
	if err != nil {
		t.Fatalf("Rewind dry run: %v", err)
	}
	if diff := cmp.Diff(differing(then, now), changedPaths(dry.Changes)); diff != "" || !dry.DryRun {
		t.Errorf("dry run (-differing +listed):\n%s", diff)
	}
	if diff := cmp.Diff(now, projectFiles(t, store, scope)); diff != "" {
		t.Errorf("a dry run changed the project (-before +after):\n%s", diff)
	}
	undo, err := svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: "before the rewind"})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	res, err := svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID})
	if err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	if res.Total != len(dry.Changes) {
		t.Errorf("rewind changed %d files, the dry run listed %d", res.Total, len(dry.Changes))
	}
	if diff := cmp.Diff(then, projectFiles(t, store, scope)); diff != "" {
		t.Errorf("after the rewind (-checkpoint +now):\n%s", diff)
	}
	if left := allChanges(t, svc, ctx, p, cp.ID, ""); len(left) != 0 {
		t.Errorf("changes since the checkpoint after the rewind: %+v", left)
	}
	if _, err := svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: undo.ID}); err != nil {
		t.Fatalf("Rewind to the checkpoint before the rewind: %v", err)
	}
	if diff := cmp.Diff(now, projectFiles(t, store, scope)); diff != "" {
		t.Errorf("after undoing the rewind (-before the rewind +now):\n%s", diff)
	}
}

// withoutBulkWriter hides the driver.BulkWriter of s's WriteTx (and every optional interface
// but the checkpoint and feed ones Rewind needs).
func withoutBulkWriter(s driver.Store) driver.Store {
	return hidingStore{Store: s, wrap: func(tx driver.WriteTx) driver.WriteTx {
		return feedOnlyTx{WriteTx: tx, FeedReader: tx.(driver.FeedReader), CheckpointWriter: tx.(driver.CheckpointWriter)}
	}}
}

type feedOnlyTx struct {
	driver.WriteTx
	driver.FeedReader
	driver.CheckpointWriter
}

// testRewindManyFiles rewinds more files than one batch holds: modified, deleted, added and
// renamed files all come back to the checkpoint, whatever batch they fall in.
func testRewindManyFiles(t *testing.T, e *env) {
	ctx, scope := newTenant("many")
	p := scope.Project
	entries := make([]ArchiveEntry, 700)
	for i := range entries {
		entries[i] = ArchiveEntry{Name: fmt.Sprintf("d%d/f%03d.md", i%7, i), Content: strings.Repeat(fmt.Sprintf("line %d\n", i), 1+i%13)}
	}
	if _, err := e.svc.Import(ctx, fileio.ImportRequest{Project: p, Archive: bytes.NewReader(BuildArchive(t, archive.Tar, entries))}); err != nil {
		t.Fatalf("Import: %v", err)
	}
	cp, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	then := projectFiles(t, e.store, scope)
	for i := range entries {
		entries[i].Content += "changed\n"
	}
	entries = append(entries, ArchiveEntry{Name: "new.md", Content: "added\n"})
	if _, err := e.svc.Import(ctx, fileio.ImportRequest{Project: p, Archive: bytes.NewReader(BuildArchive(t, archive.Tar, entries))}); err != nil {
		t.Fatalf("Import: %v", err)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: p, Path: "/d3", Recursive: true}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: p, From: "/d4/f004.md", To: "/moved.md"}); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	res, err := e.svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID})
	if err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	// 699 modified, /d4/f004.md deleted (its content changed before it moved, so the move is
	// not a rename), /moved.md and /new.md added.
	if res.Total != 702 {
		t.Errorf("rewind changed %d files, want 702", res.Total)
	}
	if diff := cmp.Diff(then, projectFiles(t, e.store, scope)); diff != "" {
		t.Errorf("after the rewind (-checkpoint +now):\n%s", diff)
	}
}

// testRewindDirectory: a rewind of one directory leaves the rest of the project as it is.
func testRewindDirectory(t *testing.T, e *env) {
	ctx, scope := newTenant("dir")
	p := scope.Project
	e.write(ctx, p, "/docs/a.md", "a0\n")
	e.write(ctx, p, "/src/main.go", "m0\n")
	cp, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	e.write(ctx, p, "/docs/a.md", "a1\n")
	e.write(ctx, p, "/docs/new.md", "n\n")
	e.write(ctx, p, "/src/main.go", "m1\n")
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: p, From: "/docs/a.md", To: "/docs/b.md", Overwrite: false}); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	changes := allChanges(t, e.svc, ctx, p, cp.ID, "/docs")
	if diff := cmp.Diff([]string{"/docs/a.md", "/docs/b.md", "/docs/new.md"}, changedPaths(changes)); diff != "" {
		t.Errorf("changes below /docs (-want +got):\n%s", diff)
	}
	if _, err := e.svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID, Path: "/docs"}); err != nil {
		t.Fatalf("Rewind /docs: %v", err)
	}
	want2 := map[string]string{"/docs/a.md": "a0\n", "/src/main.go": "m0\nm1\n"}
	if diff := cmp.Diff(want2, projectFiles(t, e.store, scope)); diff != "" {
		t.Errorf("after rewinding /docs (-want +got):\n%s", diff)
	}
	// A pure rename is listed as one renamed change with no diff.
	cp2, _ := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if _, err := e.svc.Rename(ctx, fileio.RenameRequest{Project: p, From: "/src/main.go", To: "/src/app.go", Overwrite: false}); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	got := allChanges(t, e.svc, ctx, p, cp2.ID, "")
	if diff := cmp.Diff([]fileio.FileChange{{Path: "/src/app.go", Kind: fileio.FileRenamed, From: "/src/main.go"}}, got); diff != "" {
		t.Errorf("changes after a rename (-want +got):\n%s", diff)
	}
}

// testRewindSeenWhole: readers that read the whole project in one transaction while a rewind
// of every file runs see every file at the checkpoint or every file after it, never a mix.
func testRewindSeenWhole(t *testing.T, e *env) {
	ctx, scope := newTenant("whole")
	p := scope.Project
	const files = 60
	for i := range files {
		e.write(ctx, p, fmt.Sprintf("/d/f%02d.txt", i), "before\n")
	}
	cp, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	for i := range files {
		e.write(ctx, p, fmt.Sprintf("/d/f%02d.txt", i), "after\n")
	}
	var done atomic.Bool
	var mixed atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				seen := map[string]int{}
				for _, c := range projectFiles(t, e.store, scope) {
					seen[c]++
				}
				if len(seen) != 1 {
					mixed.Add(1)
				}
			}
		}()
	}
	_, err = e.svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID})
	done.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	if n := mixed.Load(); n > 0 {
		t.Errorf("%d reads saw the project half rewound", n)
	}
	for path, c := range projectFiles(t, e.store, scope) {
		if c != "before\n" {
			t.Errorf("%s = %q after the rewind", path, c)
		}
	}
}

// FollowFeedWhileWriting writes, renames and deletes files through a Service over writer while
// a follower reads the change feed through a Service over reader (the same store, or another
// instance of it over the same database), long-polling with wait_ms, and checks that the
// follower sees every change once, in order: positions 1, 2, 3, … without gaps, and the events
// replayed give the project's final files (path and SHA-256).
func FollowFeedWhileWriting(t *testing.T, writer, reader driver.Store) {
	ctx, scope := newTenant("feed")
	p := scope.Project
	wsvc, rsvc := NewService(t, writer), NewService(t, reader)
	const writers, steps = 3, 40
	var wrote sync.WaitGroup
	var writing atomic.Bool
	writing.Store(true)
	for g := range writers {
		wrote.Add(1)
		go func() {
			defer wrote.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for s := range steps {
				path := fmt.Sprintf("/w%d/f%d.txt", g, rng.Intn(6))
				switch rng.Intn(4) {
				case 0, 1:
					wsvc.Write(ctx, fileio.WriteRequest{Project: p, Path: path, Mode: fileio.ModeTruncate, Content: fmt.Sprintf("%d %d\n", g, s)})
				case 2:
					wsvc.Rename(ctx, fileio.RenameRequest{Project: p, From: path, To: fmt.Sprintf("/w%d/f%d.txt", g, rng.Intn(6)), Overwrite: true})
				case 3:
					wsvc.Delete(ctx, fileio.DeleteRequest{Project: p, Path: path, Recursive: false})
				}
			}
		}()
	}
	go func() { wrote.Wait(); writing.Store(false) }()

	var events []driver.Event
	after := int64(0)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		stillWriting := writing.Load()
		res, err := rsvc.Events(ctx, fileio.EventsRequest{Project: p, After: after, Limit: 7, Wait: 200 * time.Millisecond})
		if err != nil {
			t.Fatalf("Events after %d: %v", after, err)
		}
		events = append(events, res.Events...)
		after = res.NextAfter
		if !stillWriting && !res.Truncated && len(res.Events) == 0 {
			break
		}
	}
	for i, e := range events {
		if e.Position != int64(i+1) {
			t.Fatalf("event %d has position %d: the feed skipped or repeated a change", i+1, e.Position)
		}
	}
	replayed := map[string]string{}
	for _, e := range events {
		if e.Kind == driver.ChangeDeleted {
			delete(replayed, e.Path)
		} else {
			replayed[e.Path] = e.SHA256
		}
	}
	final := map[string]string{}
	for path, c := range projectFiles(t, writer, scope) {
		final[path] = fileio.SHA256Hex([]byte(c))
	}
	if diff := cmp.Diff(final, replayed); diff != "" {
		t.Errorf("the feed replayed does not give the project (-project +replayed):\n%s", diff)
	}
	if len(events) < writers {
		t.Errorf("only %d events", len(events))
	}
}

// testPinning: a version a checkpoint needs outlives the history's count limit and
// file_purge_history until the checkpoint is deleted, and quota messages say so.
func testPinning(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore, func(c *fileio.Config) { c.HistoryVersions = 1; c.MaxProjectBytes = 4000; c.MaxFileBytes = 4000 })
	ctx, scope := newTenant("pin")
	p := scope.Project
	e.write(ctx, p, "/f.txt", "at the checkpoint\n")
	cp, err := e.svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	for i := range 4 {
		e.write(ctx, p, "/f.txt", fmt.Sprintf("later %d\n", i))
	}
	res, err := e.svc.PurgeHistory(ctx, fileio.PurgeHistoryRequest{Project: p, Path: ""})
	if err != nil {
		t.Fatalf("PurgeHistory: %v", err)
	}
	if res.PinnedVersions != 1 || res.PinnedBytes != int64(len("at the checkpoint\n")) {
		t.Errorf("PurgeHistory = %+v, want one pinned version of %d bytes", res, len("at the checkpoint\n"))
	}
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: p, Path: "/big.txt", Mode: fileio.ModeTruncate, Content: strings.Repeat("x", 4000)})
	wantCode(t, "write over the quota", err, fileio.CodeQuotaExceeded)
	wantMessage(t, "write over the quota", err, "pinned by checkpoints", "file_checkpoint_delete")
	if _, err := e.svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID}); err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	if got := e.read(ctx, p, "/f.txt"); got != "at the checkpoint\n" {
		t.Errorf("after the rewind /f.txt = %q", got)
	}
	if err := e.svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: p, Checkpoint: cp.ID}); err != nil {
		t.Fatalf("DeleteCheckpoint: %v", err)
	}
	res, err = e.svc.PurgeHistory(ctx, fileio.PurgeHistoryRequest{Project: p, Path: ""})
	if err != nil || res.PinnedVersions != 0 || res.Versions == 0 {
		t.Errorf("PurgeHistory after deleting the checkpoint = %+v, %v; want versions dropped, none pinned", res, err)
	}
}

func testEventsArguments(t *testing.T, e *env) {
	ctx, scope := newTenant("args")
	p := scope.Project
	e.write(ctx, p, "/a/x.txt", "1\n")
	e.write(ctx, p, "/b/y.txt", "2\n")
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: p, Path: "/a/x.txt", Recursive: false}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	res, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, Path: "/a"})
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	var got []string
	for _, ev := range res.Events {
		got = append(got, fmt.Sprint(ev.Position, " ", ev.Kind, " ", ev.Path, " ", ev.SHA256 != ""))
	}
	if diff := cmp.Diff([]string{"1 created /a/x.txt true", "3 deleted /a/x.txt false"}, got); diff != "" || res.NextAfter != 3 {
		t.Errorf("events below /a (next_after %d; -want +got):\n%s", res.NextAfter, diff)
	}
	for _, tc := range []struct {
		name string
		req  fileio.EventsRequest
	}{
		{"after beyond the head", fileio.EventsRequest{Project: p, After: 4}},
		{"negative after", fileio.EventsRequest{Project: p, After: -1}},
		{"limit too large", fileio.EventsRequest{Project: p, Limit: fileio.MaxEventsLimit + 1}},
		{"negative wait", fileio.EventsRequest{Project: p, Wait: -time.Second}},
	} {
		_, err := e.svc.Events(ctx, tc.req)
		wantCode(t, tc.name, err, agentfiles.CodeInvalidArgument)
	}
	// A long poll returns the change that wakes it.
	woke := make(chan fileio.EventsResult, 1)
	go func() {
		res, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: 3, Wait: 20 * time.Second})
		if err != nil {
			t.Errorf("long poll: %v", err)
		}
		woke <- res
	}()
	e.write(ctx, p, "/c.txt", "3\n")
	if res := <-woke; len(res.Events) != 1 || res.Events[0].Path != "/c.txt" || res.NextAfter != 4 {
		t.Errorf("long poll = %+v, want the write of /c.txt at 4", res)
	}
}

// testEventsWaiters: at most MaxFeedWaits long polls of one tenant wait at once (issue 41:
// each wakes on every write of any tenant); a further one is RESOURCE_BUSY, while another
// tenant's long poll still waits, and the waiting ones get the change that wakes them.
func testEventsWaiters(t *testing.T, e *env) {
	ctx, scope := newTenant("waiters")
	p := scope.Project
	e.write(ctx, p, "/a.txt", "1\n")
	woke := make(chan fileio.EventsResult, 2)
	for range 2 {
		go func() {
			for {
				res, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: 1, Wait: 20 * time.Second})
				if agentfiles.ErrorCode(err) == agentfiles.CodeResourceBusy {
					continue // a probe below held the slot for a moment
				}
				if err != nil {
					t.Errorf("long poll: %v", err)
				}
				woke <- res
				return
			}
		}()
	}
	var third error
	poll.Eventually(t, 10*time.Second, "a third long poll refused while two wait", func() bool {
		_, third = e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: 1, Wait: 20 * time.Millisecond})
		return agentfiles.ErrorCode(third) == agentfiles.CodeResourceBusy
	})
	if !strings.Contains(third.Error(), "already has 2 file_events calls waiting") {
		t.Errorf("the third long poll: %v; want the bound named", third)
	}
	if res, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: 0}); err != nil || len(res.Events) != 1 {
		t.Errorf("a call without wait_ms while two wait: %+v, %v", res, err)
	}
	otherCtx, other := newTenant("waiters")
	e.write(otherCtx, other.Project, "/b.txt", "2\n")
	if _, err := e.svc.Events(otherCtx, fileio.EventsRequest{Project: other.Project, After: 1, Wait: 20 * time.Millisecond}); err != nil {
		t.Errorf("another tenant's long poll while the first one's two wait: %v", err)
	}
	e.write(ctx, p, "/c.txt", "3\n")
	for range 2 {
		if res := <-woke; len(res.Events) != 1 || res.Events[0].Path != "/c.txt" {
			t.Errorf("a waiting long poll = %+v, want the write of /c.txt", res)
		}
	}
	if _, err := e.svc.Events(ctx, fileio.EventsRequest{Project: p, After: 2, Wait: 20 * time.Millisecond}); err != nil {
		t.Errorf("a long poll after the others returned: %v", err)
	}
}

// PinnedVersionsOutliveRetention checks that a version a checkpoint needs stays past the
// history's retention, through purge (the store's removal of expired versions: pgstore.Purge;
// nil for a store that removes them as it writes), until the checkpoint is deleted.
func PinnedVersionsOutliveRetention(t *testing.T, store driver.Store, purge func(t *testing.T)) {
	const retention = time.Millisecond
	svc := NewService(t, store, func(c *fileio.Config) { c.HistoryRetention = retention })
	ctx, scope := newTenant("retention")
	p := scope.Project
	put := func(path, content string) {
		t.Helper()
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: p, Path: path, Content: content, Mode: fileio.ModeTruncate}); err != nil {
			t.Fatalf("Write %s: %v", path, err)
		}
	}
	expire := func() { // let every kept version's retention run out, then remove the expired ones
		t.Helper()
		time.Sleep(5 * retention)
		put("/tick.txt", time.Now().String())
		if purge != nil {
			purge(t)
		}
	}
	put("/f.txt", "at the checkpoint\n")
	cp, err := svc.Checkpoint(ctx, fileio.CheckpointRequest{Project: p, Label: ""})
	if err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	put("/f.txt", "later\n")
	expire()
	if _, err := svc.Rewind(ctx, fileio.RewindRequest{Project: p, Checkpoint: cp.ID}); err != nil {
		t.Fatalf("Rewind after the retention ran out: %v", err)
	}
	if got := projectFiles(t, store, scope)["/f.txt"]; got != "at the checkpoint\n" {
		t.Errorf("after the rewind /f.txt = %q", got)
	}
	if err := svc.DeleteCheckpoint(ctx, fileio.DeleteCheckpointRequest{Project: p, Checkpoint: cp.ID}); err != nil {
		t.Fatalf("DeleteCheckpoint: %v", err)
	}
	expire()
	var kept int64
	err = store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		kept, err = tx.(driver.HistorySizer).KeptBytes(ctx)
		return err
	})
	if err != nil || kept != 0 {
		t.Errorf("kept bytes once the checkpoint is gone and the retention ran out = %d, %v; want 0", kept, err)
	}
}
