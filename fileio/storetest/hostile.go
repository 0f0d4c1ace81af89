package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// testHostileGlobs replays globs that once took a server down: "{,}" repeated (refused before
// any matching), and globstars that backtracked exponentially against a deep path (answered
// exactly; the matcher's step bound is tested in package fileio).
func testHostileGlobs(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	deep := "/" + strings.Repeat("d/", 59) + "file"
	e.writeFixture(ctx, proj, map[string]string{deep: "needle\n", "/top.txt": "needle\n"})
	braces := strings.Repeat("{,}", 300)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"file_glob", func() error {
			_, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Pattern: braces})
			return err
		}},
		{"file_grep glob", func() error {
			_, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: "needle", Glob: braces})
			return err
		}},
	} {
		err := tc.call()
		if code := agentfiles.ErrorCode(err); code != agentfiles.CodeInvalidPattern || !strings.Contains(err.Error(), "one group") {
			t.Errorf("%s with %q: error %v (code %q), want INVALID_PATTERN saying how to write it", tc.name, "{,}×300", err, code)
		}
	}
	globstars := strings.Repeat("**/*/", 7)
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{globstars + "zz", []string{}},
		{globstars + "file", []string{deep}},
	} {
		res, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Pattern: tc.pattern})
		if err != nil {
			t.Fatalf("Glob(%q): %v", tc.pattern, err)
		}
		if diff := cmp.Diff(tc.want, res.Paths); diff != "" {
			t.Errorf("Glob(%q) paths (-want +got):\n%s", tc.pattern, diff)
		}
		g, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: "needle", Glob: tc.pattern, OutputMode: fileio.GrepFilesWithMatches})
		if err != nil {
			t.Fatalf("Grep glob %q: %v", tc.pattern, err)
		}
		if diff := cmp.Diff(tc.want, g.Files); diff != "" {
			t.Errorf("Grep glob %q files (-want +got):\n%s", tc.pattern, diff)
		}
	}
}

// testHostilePatterns replays patterns whose work inside one file once escaped the budgets.
// The costly expression, which spends the grep's whole time budget three times, runs when
// costly is set.
func testHostilePatterns(t *testing.T, newStore func(t *testing.T) driver.Store, costly bool) {
	t.Run("long ignore-case literal", func(t *testing.T) {
		// O(content × literal) before: a 4,000-byte literal over a 4 MiB file of its first letter.
		e := newEnv(t, newStore)
		ctx, scope := newTenant(proj)
		line := strings.Repeat("a", 64<<10-1) + "\n"
		body := strings.Repeat(line, 63)
		lit := strings.Repeat("a", 3999) + "b"
		e.writeLarge(scope, "/miss.txt", body+line)
		e.writeLarge(scope, "/hit.txt", body+strings.Repeat("A", 64<<10-2)+"B\n")
		res, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: lit, FixedStrings: true, IgnoreCase: true,
			OutputMode: fileio.GrepCount})
		if err != nil {
			t.Fatalf("Grep: %v", err)
		}
		if diff := cmp.Diff([]fileio.GrepFileCount{{Path: "/hit.txt", Count: 1}}, res.Counts); diff != "" || res.Truncated {
			t.Errorf("counts (-want +got):\n%s (truncated %v, note %q)", diff, res.Truncated, res.Note)
		}
		if res.ScannedBytes < 4<<20 {
			t.Errorf("scanned_bytes %d: the file searched (4 MiB) was not counted", res.ScannedBytes)
		}
	})
	if costly {
		t.Run("costly expression over a large file", func(t *testing.T) {
			// `.{1000}` over 6 MiB ran 35 s, untruncated. A budget of one second is a small part of
			// that work: content mode stops part way with a line cursor that moves on, count mode
			// (which needs whole files) is refused as TIMEOUT. On a loaded machine the store's own
			// statements may use up the budget first: a TIMEOUT is then the bounded answer too.
			e := newEnv(t, newStore, func(c *fileio.Config) { c.GrepTimeout = time.Second })
			ctx, scope := newTenant(proj)
			size := 6 << 20
			e.writeLarge(scope, "/big.txt", strings.Repeat(strings.Repeat("x", 999)+"\n", size/1000))
			req := fileio.GrepRequest{Project: proj, Pattern: ".{1000}"}
			seen := map[string]bool{}
			for range 2 {
				res, err := e.svc.Grep(ctx, req)
				if code := agentfiles.ErrorCode(err); code == agentfiles.CodeTimeout {
					t.Logf("Grep: %v", err)
					break
				} else if err != nil {
					t.Fatalf("Grep: %v", err)
				}
				if !res.Truncated || res.NextCursor == "" || seen[res.NextCursor] || res.ScannedBytes >= int64(size) {
					t.Fatalf("answer %+v: want truncated part way with a new cursor", res)
				}
				seen[res.NextCursor] = true
				req.Cursor = res.NextCursor
			}
			_, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: ".{1000}", OutputMode: fileio.GrepCount})
			if code := agentfiles.ErrorCode(err); code != agentfiles.CodeTimeout {
				t.Errorf("count mode: error %v (code %q), want TIMEOUT", err, code)
			}
		})
	}
	t.Run("answer cap as sent", func(t *testing.T) {
		// One match with 20+20 context lines of 4,096 control characters: 983 KB of JSON before.
		e := newEnv(t, newStore)
		ctx, _ := newTenant(proj)
		ctl := strings.Repeat(strings.Repeat("\x01", 4096)+"\n", 20)
		e.writeFixture(ctx, proj, map[string]string{"/ctl.txt": ctl + "the match\n" + ctl})
		res, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: "the match", Context: 20})
		if err != nil {
			t.Fatalf("Grep: %v", err)
		}
		if len(res.Matches) != 1 || res.Matches[0].LineNumber != 21 || res.Matches[0].Line != "the match" {
			t.Fatalf("matches %+v, want the one match at line 21", res.Matches)
		}
		if m := res.Matches[0]; len(m.Before)+len(m.After) >= 40 || !strings.Contains(res.Note, "cut") {
			t.Errorf("context %d+%d lines, note %q: want the context cut and said so", len(m.Before), len(m.After), res.Note)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if limit := fileio.DefaultGrepMaxAnswerBytes + 1024; len(b) > limit {
			t.Errorf("answer is %d bytes of JSON, more than the cap and its envelope (%d)", len(b), limit)
		}
	})
}

// testSlowReaderLock replays a slow reader, a write behind it and a 6-byte read: the read must
// not queue behind the waiting write (it completes while the slow reader still holds the
// project), and the write either commits or fails retryably with RESOURCE_BUSY, changing
// nothing.
func testSlowReaderLock(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore, func(c *fileio.Config) { c.LockTimeout = 300 * time.Millisecond })
	ctx, scope := newTenant(proj)
	e.writeFixture(ctx, proj, map[string]string{"/small.txt": "6bytes", "/w.txt": "before"})
	holding, release := make(chan struct{}), make(chan struct{})
	readerDone := make(chan error, 1)
	go func() {
		readerDone <- e.store.View(ctx, scope, func(tx driver.ReadTx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	writeDone := make(chan error, 1)
	go func() {
		_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/w.txt", Content: "after", Mode: fileio.ModeTruncate})
		writeDone <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the write reach the lock; the check below holds either way
	readCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	res, err := e.svc.Read(readCtx, fileio.ReadRequest{Project: proj, Path: "/small.txt", OffsetBytes: 0, LengthBytes: new(int64(100))})
	cancel()
	close(release)
	if err != nil || res.Content != "6bytes" {
		t.Fatalf("6-byte read while a slow reader holds the project and a write waits: %+v, %v", res, err)
	}
	if err := <-readerDone; err != nil {
		t.Fatalf("slow reader: %v", err)
	}
	werr := <-writeDone
	want := "after"
	if werr != nil {
		if code := agentfiles.ErrorCode(werr); code != agentfiles.CodeResourceBusy {
			t.Fatalf("write behind a slow reader: %v (code %q), want success or RESOURCE_BUSY", werr, code)
		}
		want = "before"
	}
	got, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/w.txt", OffsetBytes: 0, LengthBytes: new(int64(100))})
	if err != nil || got.Content != want {
		t.Errorf("after the write (error %v): content %q, %v; want %q", werr, got.Content, err, want)
	}
}

// writeLarge writes content (megabytes, more than a Service call takes) to path in scope with
// one Put of the store: a fixture, not the write path under test.
func (e *env) writeLarge(scope driver.Scope, path, content string) {
	e.t.Helper()
	putContents(e.t, e.store, scope, map[string]string{path: content})
}
