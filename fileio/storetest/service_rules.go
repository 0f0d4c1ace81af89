package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const proj = "proj"

var ignoreTimes = cmpopts.IgnoreFields(fileio.FileEntry{}, "CreatedAt", "UpdatedAt")

// exerciseService runs every rule of the Service's file operations on fresh stores.
func exerciseService(t *testing.T, newStore func(t *testing.T) driver.Store) {
	exerciseServiceReads(t, newStore)
	exerciseServiceWrites(t, newStore)
}

// exerciseServiceReads runs the rules of the operations that only read (their fixtures are
// written through the Service, whose write paths exerciseServiceWrites covers).
func exerciseServiceReads(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Stat", func(t *testing.T) { testStat(t, newEnv(t, newStore)) })
	t.Run("Read", func(t *testing.T) { testRead(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxReadBytes = 16 })) })
	t.Run("ReadUTF8", func(t *testing.T) { testReadUTF8(t, newEnv(t, newStore)) })
	t.Run("List", func(t *testing.T) { testList(t, newEnv(t, newStore)) })
	t.Run("ListLimit", func(t *testing.T) {
		testListLimit(t, newEnv(t, newStore, func(c *fileio.Config) { c.ListLimitDefault, c.ListLimitMax = 3, 5 }))
	})
	t.Run("ListCursor", func(t *testing.T) { testListCursor(t, newEnv(t, newStore)) })
	t.Run("Unauthenticated", func(t *testing.T) { testUnauthenticated(t, newEnv(t, newStore)) })
	t.Run("RateLimit", func(t *testing.T) { testRateLimit(t, newStore) })
}

// exerciseServiceWrites runs the rules of the operations that write: the part of the Service
// suite that the store's optional write interfaces change, run again over WithoutOptional.
func exerciseServiceWrites(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("WriteModes", func(t *testing.T) { testWriteModes(t, newEnv(t, newStore)) })
	t.Run("WriteConflicts", func(t *testing.T) { testWriteConflicts(t, newEnv(t, newStore)) })
	t.Run("WriteArguments", func(t *testing.T) { testWriteArguments(t, newEnv(t, newStore)) })
	t.Run("Limits", func(t *testing.T) { testLimits(t, newStore) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, newEnv(t, newStore)) })
	t.Run("RootWipe", func(t *testing.T) { testRootWipe(t, newStore) })
	t.Run("PathRules", func(t *testing.T) { testPathRules(t, newEnv(t, newStore)) })
	t.Run("RealWorldPaths", func(t *testing.T) { testRealWorldPaths(t, newStore) })
	t.Run("OutboxFromService", func(t *testing.T) { testOutboxFromService(t, newStore) })
	t.Run("CredentialSealer", func(t *testing.T) { testSealer(t, newStore) })
	t.Run("FailedWritesLeaveNothing", func(t *testing.T) {
		testFailedWrites(t, newEnv(t, newStore, func(c *fileio.Config) { c.MaxFileBytes = 10 }))
	})
}

func testStat(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	root, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: ""})
	if err != nil || !root.Exists || root.Type != fileio.TypeDirectory || !root.UpdatedAt.IsZero() {
		t.Errorf("stat of the empty root = %+v, %v; want an existing directory with zero times", root, err)
	}
	missing, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/nope"})
	if diff := cmp.Diff(fileio.StatResult{}, missing); err != nil || diff != "" {
		t.Errorf("stat of a missing path: err %v, diff %s", err, diff)
	}
	w1 := e.write(ctx, proj, "/d/one.txt", "12345")
	w2 := e.write(ctx, proj, "/d/sub/two.txt", "abc")
	f, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/d/one.txt"})
	want := fileio.StatResult{Exists: true, Type: fileio.TypeFile, SizeBytes: 5, CreatedAt: w1.UpdatedAt, UpdatedAt: w1.UpdatedAt}
	if diff := cmp.Diff(want, f); err != nil || diff != "" {
		t.Errorf("stat of a new file: err %v (-want +got):\n%s", err, diff)
	}
	w3 := e.write(ctx, proj, "/d/one.txt", "678")
	f, _ = e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/d/one.txt"})
	if !f.CreatedAt.Equal(w1.UpdatedAt) || !f.UpdatedAt.Equal(w3.UpdatedAt) || !w3.UpdatedAt.After(w1.UpdatedAt) || f.SizeBytes != 8 {
		t.Errorf("after append: %+v; want created %v kept, updated %v later, size 8", f, w1.UpdatedAt, w3.UpdatedAt)
	}
	newest := w3.UpdatedAt
	if w2.UpdatedAt.After(newest) {
		newest = w2.UpdatedAt
	}
	d, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/d"})
	want = fileio.StatResult{Exists: true, Type: fileio.TypeDirectory, UpdatedAt: newest}
	if diff := cmp.Diff(want, d); err != nil || diff != "" {
		t.Errorf("stat of a directory: err %v (-want +got):\n%s", err, diff)
	}
	sub, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/d/sub"})
	if !sub.Exists || sub.Type != fileio.TypeDirectory || !sub.UpdatedAt.Equal(w2.UpdatedAt) || !sub.CreatedAt.IsZero() || sub.SizeBytes != 0 {
		t.Errorf("stat of an implicit directory: %+v", sub)
	}
	root, _ = e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: ""})
	if !root.UpdatedAt.Equal(newest) {
		t.Errorf("root updated_at %v, want the newest file's %v", root.UpdatedAt, newest)
	}
	// A prefix that is not a directory boundary is not a directory.
	if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/d/on"}); s.Exists {
		t.Errorf("/d/on exists: %+v", s)
	}
}

func testRead(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f.txt", "0123456789")
	e.write(ctx, proj, "/dir/x", "x")
	e.write(ctx, proj, "/big", strings.Repeat("b", 40))
	tests := []struct {
		name           string
		path           string
		offset, length int64
		want           fileio.ReadResult
		code           agentfiles.Code
	}{
		{name: "whole file", path: "/f.txt", offset: 0, length: -1,
			want: fileio.ReadResult{Content: "0123456789", ContentEncoding: "utf-8", ReadBytes: 10, FileSizeBytes: 10, NextOffsetBytes: 10}},
		{name: "offset and length", path: "/f.txt", offset: 2, length: 3,
			want: fileio.ReadResult{Content: "234", ContentEncoding: "utf-8", OffsetBytes: 2, ReadBytes: 3, FileSizeBytes: 10, NextOffsetBytes: 5}},
		{name: "length past EOF", path: "/f.txt", offset: 8, length: 50,
			want: fileio.ReadResult{Content: "89", ContentEncoding: "utf-8", OffsetBytes: 8, ReadBytes: 2, FileSizeBytes: 10, NextOffsetBytes: 10}},
		{name: "offset at EOF", path: "/f.txt", offset: 10, length: -1,
			want: fileio.ReadResult{ContentEncoding: "utf-8", OffsetBytes: 10, FileSizeBytes: 10, NextOffsetBytes: 10}},
		{name: "offset past EOF is empty", path: "/f.txt", offset: 99, length: 5,
			want: fileio.ReadResult{ContentEncoding: "utf-8", OffsetBytes: 99, FileSizeBytes: 10, NextOffsetBytes: 99}},
		{name: "zero length", path: "/f.txt", offset: 3, length: 0,
			want: fileio.ReadResult{ContentEncoding: "utf-8", OffsetBytes: 3, FileSizeBytes: 10, NextOffsetBytes: 3}},
		{name: "clamped to max read", path: "/big", offset: 0, length: -1,
			want: fileio.ReadResult{Content: strings.Repeat("b", 16), ContentEncoding: "utf-8", ReadBytes: 16, FileSizeBytes: 40, NextOffsetBytes: 16, Truncated: true}},
		{name: "negative offset", path: "/f.txt", offset: -1, length: 1, code: fileio.CodeInvalidOffset},
		{name: "length below -1", path: "/f.txt", offset: 0, length: -2, code: agentfiles.CodeInvalidArgument},
		{name: "missing file", path: "/nope", length: -1, code: agentfiles.CodeNotFound},
		{name: "directory", path: "/dir", length: -1, code: agentfiles.CodeIsDirectory},
		{name: "root", path: "", length: -1, code: agentfiles.CodeIsDirectory},
		{name: "below a file", path: "/f.txt/x", length: -1, code: agentfiles.CodeNotFound},
	}
	for _, tc := range tests {
		got, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: tc.path, OffsetBytes: tc.offset, LengthBytes: new(int64(tc.length))})
		wantCode(t, tc.name, err, tc.code)
		if got.Truncated && !strings.Contains(got.Note, "offset=16") {
			t.Errorf("%s: note %q does not say where to continue", tc.name, got.Note)
		}
		got.Note = ""
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func testReadUTF8(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	// a=0, é=1..2, 日=3..5, 😀=6..9, z=10
	e.write(ctx, proj, "/u.txt", "aé日😀z")
	_, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/u.txt", OffsetBytes: 2, LengthBytes: new(int64(-1))})
	wantCode(t, "offset inside é", err, fileio.CodeInvalidOffset)
	wantMessage(t, "offset inside é", err, "nearest valid offsets are 1 and 3")
	_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/u.txt", OffsetBytes: 8, LengthBytes: new(int64(1))})
	wantMessage(t, "offset inside 😀", err, "6 and 10")

	got, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/u.txt", OffsetBytes: 1, LengthBytes: new(int64(4))}) // would end inside 日
	if err != nil || got.Content != "é" || !got.Truncated || got.NextOffsetBytes != 3 {
		t.Errorf("read ending inside a character = %+v, %v; want \"é\" truncated, next 3", got, err)
	}
	_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/u.txt", OffsetBytes: 6, LengthBytes: new(int64(2))}) // shorter than 😀
	wantCode(t, "length shorter than the character", err, fileio.CodeInvalidOffset)
	wantMessage(t, "length shorter than the character", err, "at least 4 bytes")
	got, _ = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/u.txt", OffsetBytes: 3, LengthBytes: new(int64(7))})
	if got.Content != "日😀" || got.Truncated {
		t.Errorf("read on boundaries = %+v", got)
	}
}

func testWriteModes(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	type step struct {
		req     fileio.WriteRequest
		code    agentfiles.Code
		content string // file content afterwards
		written int64
	}
	p := "/m.txt"
	steps := []step{
		{req: fileio.WriteRequest{Content: "hello"}, content: "hello", written: 5},
		{req: fileio.WriteRequest{Content: " world", OffsetBytes: 2, Mode: fileio.ModeAppend}, content: "hello world", written: 6},
		{req: fileio.WriteRequest{Content: "J", OffsetBytes: 0, Mode: fileio.ModeOverwrite}, content: "Jello world", written: 1},
		{req: fileio.WriteRequest{Content: "!", OffsetBytes: 11, Mode: fileio.ModeOverwrite}, content: "Jello world!", written: 1},
		{req: fileio.WriteRequest{Content: "WORLD!!", OffsetBytes: 6, Mode: fileio.ModeOverwrite}, content: "Jello WORLD!!", written: 7},
		{req: fileio.WriteRequest{Content: "x", OffsetBytes: 14, Mode: fileio.ModeOverwrite}, code: fileio.CodeInvalidOffset, content: "Jello WORLD!!"},
		{req: fileio.WriteRequest{Content: "x", OffsetBytes: -1, Mode: fileio.ModeOverwrite}, code: fileio.CodeInvalidOffset, content: "Jello WORLD!!"},
		{req: fileio.WriteRequest{Content: "new", OffsetBytes: 1, Mode: fileio.ModeTruncate}, code: fileio.CodeInvalidOffset, content: "Jello WORLD!!"},
		{req: fileio.WriteRequest{Content: "new", Mode: fileio.ModeTruncate}, content: "new", written: 3},
		{req: fileio.WriteRequest{Content: "", Mode: fileio.ModeTruncate}, content: "", written: 0},
		{req: fileio.WriteRequest{Content: "é日", Mode: "overwrite"}, content: "é日", written: 5},
		{req: fileio.WriteRequest{Content: "x", OffsetBytes: 1, Mode: fileio.ModeOverwrite}, code: fileio.CodeInvalidOffset, content: "é日"},
		{req: fileio.WriteRequest{Content: "xx", OffsetBytes: 0, Mode: fileio.ModeOverwrite}, content: "xx日", written: 2},
		{req: fileio.WriteRequest{Content: "abc", OffsetBytes: 0, Mode: fileio.ModeOverwrite}, code: fileio.CodeInvalidOffset, content: "xx日"},
		{req: fileio.WriteRequest{Content: "yyy", OffsetBytes: 2, Mode: fileio.ModeOverwrite}, content: "xxyyy", written: 3},
	}
	for i, s := range steps {
		s.req.Project, s.req.Path = proj, p
		res, err := e.svc.Write(ctx, s.req)
		wantCode(t, "step "+string(rune('A'+i)), err, s.code)
		if err == nil && res.BytesWritten != s.written {
			t.Errorf("step %c: bytes_written %d, want %d", 'A'+i, res.BytesWritten, s.written)
		}
		if got := e.read(ctx, proj, p); got != s.content {
			t.Errorf("step %c (%+v): content %q, want %q", 'A'+i, s.req, got, s.content)
		}
	}
	res, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/new/deep/file.md", Content: "x", Mode: fileio.ModeOverwrite})
	if err != nil || !res.Created || res.FileSizeBytes != 1 {
		t.Errorf("OVERWRITE at 0 creates a missing file: %+v, %v", res, err)
	}
	for _, dir := range []string{"/new", "/new/deep"} {
		if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: dir}); !s.Exists || s.Type != fileio.TypeDirectory {
			t.Errorf("implicit parent %s: %+v", dir, s)
		}
	}
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/new/deep/file.md", Content: "y", Exclusive: true})
	wantCode(t, "exclusive write on an existing file", err, agentfiles.CodeAlreadyExists)
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/excl", Content: "y", Exclusive: true}); err != nil {
		t.Errorf("exclusive write of a new file: %v", err)
	}
}

func testWriteConflicts(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/a/b/c.txt", "c")
	e.write(ctx, proj, "/file", "f")
	tests := []struct {
		path string
		code agentfiles.Code
		arg  string
	}{
		{"/a", agentfiles.CodeIsDirectory, "/a"},
		{"/a/b", agentfiles.CodeIsDirectory, "/a/b"},
		{"/file/x", fileio.CodeNotDirectory, "/file"},
		{"/file/x/y", fileio.CodeNotDirectory, "/file"},
		{"/a/b/c.txt/d", fileio.CodeNotDirectory, "/a/b/c.txt"},
		{"", agentfiles.CodeIsDirectory, ""},
		{"/a/b2", noError, ""},
		{"/a-b", noError, ""},
		{"/file2", noError, ""},
	}
	for _, tc := range tests {
		_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: tc.path, Content: "z"})
		wantCode(t, "write "+tc.path, err, tc.code)
		var fe *agentfiles.Error
		if tc.code != noError && errors.As(err, &fe) && fe.Arg != tc.arg {
			t.Errorf("write %s: error names %q, want %q", tc.path, fe.Arg, tc.arg)
		}
	}
	if got := e.read(ctx, proj, "/a/b/c.txt"); got != "c" {
		t.Errorf("conflicting writes changed /a/b/c.txt: %q", got)
	}
}

func testWriteArguments(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	tests := []struct {
		name string
		req  fileio.WriteRequest
		code agentfiles.Code
	}{
		{"utf-8 spelled out", fileio.WriteRequest{Content: "x", ContentEncoding: "utf-8"}, noError},
		{"UTF8 any case", fileio.WriteRequest{Content: "x", ContentEncoding: "UTF8"}, noError},
		{"other encoding", fileio.WriteRequest{Content: "x", ContentEncoding: "base64"}, agentfiles.CodeInvalidArgument},
		{"invalid UTF-8", fileio.WriteRequest{Content: "ok\xc3("}, agentfiles.CodeInvalidArgument},
		{"unknown mode", fileio.WriteRequest{Content: "x", Mode: "INSERT"}, agentfiles.CodeInvalidArgument},
		{"lower-case mode", fileio.WriteRequest{Content: "x", Mode: "append"}, noError},
		{"append ignores a negative offset", fileio.WriteRequest{Content: "x", OffsetBytes: -5}, noError},
	}
	for _, tc := range tests {
		tc.req.Project, tc.req.Path = proj, "/args.txt"
		_, err := e.svc.Write(ctx, tc.req)
		wantCode(t, tc.name, err, tc.code)
	}
	if got := e.read(ctx, proj, "/args.txt"); got != "xxxx" {
		t.Errorf("content after the valid writes %q, want xxxx", got)
	}
}

// testLimits: the payload, file and project limits, exactly at their bounds. The project's
// quota counts its change-feed events too (driver.EventBytes, one per change); every path here
// has the same length, so each change costs ev.
func testLimits(t *testing.T, newStore func(t *testing.T) driver.Store) {
	ev := driver.EventBytes("/f1")
	quota := 2000 + 4*ev // 2000 bytes of files and four changes
	e := newEnv(t, newStore, func(c *fileio.Config) {
		c.MaxPayloadBytes, c.MaxFileBytes, c.MaxProjectBytes = 800, 1200, quota
		c.HistoryVersions = 0 // exact active-file quotas; history.go tests quotas with history
	})
	ctx, _ := newTenant(proj)
	x := func(n int) string { return strings.Repeat("x", n) }
	_, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/p1", Content: x(801)})
	wantCode(t, "payload over the limit", err, agentfiles.CodePayloadTooLarge)
	wantMessage(t, "payload over the limit", err, "801 bytes", "maximum per write is 800")
	e.write(ctx, proj, "/f1", x(800))
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f1", Content: x(401)})
	wantCode(t, "file over the limit", err, fileio.CodeQuotaExceeded)
	e.write(ctx, proj, "/f1", x(400)) // exactly 1200
	e.write(ctx, proj, "/f2", x(800)) // 2000 bytes of files, three changes
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f3", Content: "1"})
	wantCode(t, "project over the quota", err, fileio.CodeQuotaExceeded)
	wantMessage(t, "project over the quota", err, fmt.Sprintf("quota of %d", quota), "change-feed events")
	e.write(ctx, proj, "/f3", "") // exactly at the quota: an empty file and its change
	// A delete is never refused, though its change takes the project over the quota by ev.
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/f3"}); err != nil {
		t.Fatalf("a delete at the quota: %v", err)
	}
	// Over the quota, a write that shrinks the project is allowed (by 200 - ev, to quota + 2 ev
	// - 200), one that does not is not.
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f2", Content: x(600), Mode: fileio.ModeTruncate}); err != nil {
		t.Errorf("a write that shrinks the project over its quota: %v", err)
	}
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/f2", Content: x(600), Mode: fileio.ModeTruncate})
	wantCode(t, "a write of the same size over the quota (its change grows the project)", err, fileio.CodeQuotaExceeded)
	// Quotas are per project and per tenant.
	e.write(ctx, "other", "/f", x(800))
	other, _ := newTenant(proj)
	e.write(other, proj, "/f", x(800))
	// Deleting frees quota: 1800 + 6 ev before, 600 + 7 ev after, so 800 more bytes fit.
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/f1", Recursive: false}); err != nil {
		t.Fatal(err)
	}
	e.write(ctx, proj, "/f4", x(800))
}

func testDelete(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for _, p := range []string{"/a/x", "/a/y/z", "/a-b", "/a.c", "/ab", "/keep"} {
		e.write(ctx, proj, p, p)
	}
	wantCode(t, "missing", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/nope", Recursive: false}), agentfiles.CodeNotFound)
	wantCode(t, "missing, recursive", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/nope", Recursive: true}), agentfiles.CodeNotFound)
	wantCode(t, "non-empty directory", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a", Recursive: false}), fileio.CodeNotEmpty)
	wantCode(t, "root", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "", Recursive: false}), agentfiles.CodePermissionDenied)
	wantCode(t, "root, recursive", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "", Recursive: true}), agentfiles.CodePermissionDenied)
	wantCode(t, "file", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a.c", Recursive: false}), noError)
	wantCode(t, "file, recursive flag ignored", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/ab", Recursive: true}), noError)
	wantCode(t, "directory, recursive", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a", Recursive: true}), noError)
	got, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 5, Limit: 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []fileio.FileEntry{
		{Name: "a-b", Path: "/a-b", Type: fileio.TypeFile, SizeBytes: 4},
		{Name: "keep", Path: "/keep", Type: fileio.TypeFile, SizeBytes: 5},
	}
	if diff := cmp.Diff(want, got.Entries, ignoreTimes); diff != "" {
		t.Errorf("after deletes (-want +got):\n%s", diff)
	}
	wantCode(t, "deleted again", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a", Recursive: true}), agentfiles.CodeNotFound)
	if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/a/y"}); s.Exists {
		t.Errorf("/a/y still exists")
	}
	// The root survives deleting everything below it.
	e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a-b", Recursive: false})
	e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/keep", Recursive: false})
	if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: ""}); !s.Exists {
		t.Errorf("root does not exist after deleting every file")
	}
}

func testRootWipe(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore, func(c *fileio.Config) { c.AllowRootWipe = true })
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/a/b", "1")
	e.write(ctx, proj, "/c", "2")
	e.write(ctx, "kept", "/c", "3")
	wantCode(t, "root wipe without recursive", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "", Recursive: false}), fileio.CodeNotEmpty)
	wantCode(t, "root wipe", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "", Recursive: true}), noError)
	got, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 9, Limit: 0})
	if err != nil || len(got.Entries) != 0 {
		t.Errorf("after root wipe: %+v, %v", got, err)
	}
	if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: ""}); !s.Exists {
		t.Errorf("root does not exist after a wipe")
	}
	wantCode(t, "wipe of an empty root", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "", Recursive: true}), noError)
	if e.read(ctx, "kept", "/c") != "3" {
		t.Errorf("root wipe reached another project")
	}
}

func testList(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	empty, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: 0})
	if err != nil || empty.Entries == nil || len(empty.Entries) != 0 || empty.Truncated {
		t.Errorf("list of an empty root = %+v, %v; want an empty, non-nil list", empty, err)
	}
	ws := map[string]fileio.WriteResult{}
	for _, p := range []string{"/a/x.txt", "/a/sub/deep/z", "/a-b", "/a.c", "/b", "/a/sub/y"} {
		ws[p] = e.write(ctx, proj, p, strings.Repeat("x", len(p)))
	}
	f := func(p string) fileio.FileEntry {
		return fileio.FileEntry{Name: p[strings.LastIndex(p, "/")+1:], Path: p, Type: fileio.TypeFile, SizeBytes: int64(len(p))}
	}
	d := func(p string) fileio.FileEntry {
		return fileio.FileEntry{Name: p[strings.LastIndex(p, "/")+1:], Path: p, Type: fileio.TypeDirectory}
	}
	tests := []struct {
		path  string
		depth int
		want  []fileio.FileEntry
		code  agentfiles.Code
	}{
		{path: "", depth: 1, want: []fileio.FileEntry{d("/a"), f("/a-b"), f("/a.c"), f("/b")}},
		{path: "/", depth: 1, want: []fileio.FileEntry{d("/a"), f("/a-b"), f("/a.c"), f("/b")}},
		{path: "", depth: 0, want: []fileio.FileEntry{{Type: fileio.TypeDirectory}}},
		{path: "/a", depth: 0, want: []fileio.FileEntry{d("/a")}},
		{path: "/a/x.txt", depth: 0, want: []fileio.FileEntry{f("/a/x.txt")}},
		{path: "/a", depth: 1, want: []fileio.FileEntry{d("/a/sub"), f("/a/x.txt")}},
		{path: "/a", depth: 2, want: []fileio.FileEntry{d("/a/sub"), d("/a/sub/deep"), f("/a/sub/y"), f("/a/x.txt")}},
		{path: "", depth: 9, want: []fileio.FileEntry{d("/a"), f("/a-b"), f("/a.c"), d("/a/sub"), d("/a/sub/deep"), f("/a/sub/deep/z"), f("/a/sub/y"), f("/a/x.txt"), f("/b")}},
		{path: "/a/x.txt", depth: 1, code: fileio.CodeNotDirectory},
		{path: "/nope", depth: 1, code: agentfiles.CodeNotFound},
		{path: "/nope", depth: 0, code: agentfiles.CodeNotFound},
		{path: "/a/x", depth: 1, code: agentfiles.CodeNotFound},
		{path: "/a", depth: -1, code: agentfiles.CodeInvalidArgument},
	}
	for _, tc := range tests {
		got, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: tc.path, Depth: tc.depth, Limit: 0})
		wantCode(t, "list "+tc.path, err, tc.code)
		if err != nil {
			continue
		}
		if diff := cmp.Diff(tc.want, got.Entries, ignoreTimes); diff != "" {
			t.Errorf("list %q depth %d (-want +got):\n%s", tc.path, tc.depth, diff)
		}
	}
	// Times: files carry theirs; directories have a zero CreatedAt and their newest descendant's UpdatedAt.
	got, _ := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "/a", Depth: 1, Limit: 0})
	newestSub := ws["/a/sub/y"].UpdatedAt
	if ws["/a/sub/deep/z"].UpdatedAt.After(newestSub) {
		newestSub = ws["/a/sub/deep/z"].UpdatedAt
	}
	if sub := got.Entries[0]; !sub.CreatedAt.IsZero() || !sub.UpdatedAt.Equal(newestSub) {
		t.Errorf("directory entry times %+v, want zero created and updated %v", sub, newestSub)
	}
	if x := got.Entries[1]; !x.CreatedAt.Equal(ws["/a/x.txt"].UpdatedAt) || !x.UpdatedAt.Equal(ws["/a/x.txt"].UpdatedAt) {
		t.Errorf("file entry times %+v, want %v", x, ws["/a/x.txt"].UpdatedAt)
	}
}

func testListLimit(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for _, p := range []string{"/1", "/2", "/3", "/4", "/5", "/6", "/7"} {
		e.write(ctx, proj, p, "x")
	}
	tests := []struct {
		limit, wantLimit, wantN int
		clamped, hasMore        bool
	}{
		{limit: 0, wantLimit: 3, wantN: 3, hasMore: true},
		{limit: 2, wantLimit: 2, wantN: 2, hasMore: true},
		{limit: 5, wantLimit: 5, wantN: 5, hasMore: true},
		{limit: 1000, wantLimit: 5, wantN: 5, clamped: true, hasMore: true},
	}
	for _, tc := range tests {
		got, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if got.Limit != tc.wantLimit || len(got.Entries) != tc.wantN || got.LimitClamped != tc.clamped || got.Truncated != tc.hasMore || (got.Truncated && got.Note == "") {
			t.Errorf("limit %d: got limit %d, %d entries, clamped %v, truncated %v, note %q", tc.limit, got.Limit, len(got.Entries), got.LimitClamped, got.Truncated, got.Note)
		}
		if got.Entries[0].Path != "/1" {
			t.Errorf("limit %d: the first entries are not the first by path: %v", tc.limit, got.Entries)
		}
	}
	e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/6", Recursive: false})
	e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/7", Recursive: false})
	if got, _ := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: 5}); got.Truncated || len(got.Entries) != 5 {
		t.Errorf("exactly limit entries: truncated %v, %d entries", got.Truncated, len(got.Entries))
	}
	_, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: -1})
	wantCode(t, "negative limit", err, agentfiles.CodeInvalidArgument)
}

// testListCursor follows next_cursor to the end, at every depth and page size, and expects
// every entry of the whole listing exactly once, in order.
func testListCursor(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for _, p := range []string{"/a/b/c.txt", "/a/b.txt", "/a/b/d/e.txt", "/a/x", "/b", "/c/1", "/c/2", "/c/3/4"} {
		e.write(ctx, proj, p, "x")
	}
	for _, depth := range []int{0, 1, 2, 5} {
		for _, path := range []string{"", "/a", "/c"} {
			all, err := e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: path, Depth: depth, Limit: 1000})
			if err != nil || all.Truncated {
				t.Fatalf("depth %d path %q: whole listing: truncated %v, %v", depth, path, all.Truncated, err)
			}
			for limit := 1; limit <= 3; limit++ {
				var got []fileio.FileEntry
				req := fileio.ListRequest{Project: proj, Path: path, Depth: depth, Limit: limit}
				for pages := 0; ; pages++ {
					res, err := e.svc.List(ctx, req)
					if err != nil || pages > len(all.Entries) {
						t.Fatalf("depth %d path %q limit %d page %d: %v", depth, path, limit, pages, err)
					}
					got = append(got, res.Entries...)
					if res.Truncated != (res.NextCursor != "") {
						t.Fatalf("depth %d path %q limit %d: truncated %v with next_cursor %q", depth, path, limit, res.Truncated, res.NextCursor)
					}
					if !res.Truncated {
						break
					}
					req.Cursor = res.NextCursor
				}
				if diff := cmp.Diff(all.Entries, got); diff != "" {
					t.Errorf("depth %d path %q limit %d: pages differ from the whole listing (-want +got):\n%s", depth, path, limit, diff)
				}
			}
		}
	}
	other := fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: 1}
	first, err := e.svc.List(ctx, other)
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	for name, req := range map[string]fileio.ListRequest{
		"cursor of another path":  {Project: proj, Path: "/a", Depth: 1, Cursor: first.NextCursor},
		"cursor of another depth": {Project: proj, Depth: 2, Cursor: first.NextCursor},
		"made-up cursor":          {Project: proj, Depth: 1, Cursor: "x"},
	} {
		_, err := e.svc.List(ctx, req)
		wantCode(t, name, err, agentfiles.CodeInvalidArgument)
	}
}

func testPathRules(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	for _, rule := range PathRules {
		for _, p := range rule.Invalid {
			_, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: p})
			wantCode(t, rule.Rule+": stat "+p, err, fileio.CodeInvalidPath)
			_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "x"})
			wantCode(t, rule.Rule+": write "+p, err, fileio.CodeInvalidPath)
			_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: p, OffsetBytes: 0, LengthBytes: new(int64(-1))})
			wantCode(t, rule.Rule+": read "+p, err, fileio.CodeInvalidPath)
			wantCode(t, rule.Rule+": delete "+p, e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: p, Recursive: true}), fileio.CodeInvalidPath)
			if p != "/" {
				_, err = e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: p, Depth: 1, Limit: 0})
				wantCode(t, rule.Rule+": list "+p, err, fileio.CodeInvalidPath)
			}
		}
		for _, p := range rule.Valid {
			if p == "" {
				continue
			}
			if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "x"}); err != nil {
				t.Errorf("%s: write %q: %v", rule.Rule, p, err)
			}
			if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: p, Recursive: false}); err != nil {
				t.Errorf("%s: delete %q: %v", rule.Rule, p, err)
			}
		}
	}
	for _, p := range []string{"", strings.Repeat("p", fileio.MaxProjectBytes+1), "a\x00b", "\xff"} {
		_, err := e.svc.Stat(ctx, fileio.StatRequest{Project: p, Path: "/x"})
		wantCode(t, "project "+p, err, fileio.CodeInvalidPath)
	}
	if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: strings.Repeat("p", fileio.MaxProjectBytes), Path: "/x", Content: "x"}); err != nil {
		t.Errorf("128-byte project: %v", err)
	}
}

func testUnauthenticated(t *testing.T, e *env) {
	ctx := context.Background()
	_, err := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/x"})
	wantCode(t, "stat", err, agentfiles.CodePermissionDenied)
	_, err = e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/x", OffsetBytes: 0, LengthBytes: new(int64(-1))})
	wantCode(t, "read", err, agentfiles.CodePermissionDenied)
	_, err = e.svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/x", Content: "x"})
	wantCode(t, "write", err, agentfiles.CodePermissionDenied)
	wantCode(t, "delete", e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/x", Recursive: false}), agentfiles.CodePermissionDenied)
	_, err = e.svc.List(ctx, fileio.ListRequest{Project: proj, Path: "", Depth: 1, Limit: 0})
	wantCode(t, "list", err, agentfiles.CodePermissionDenied)
	_, err = e.svc.Stat(agentfiles.WithAuth(ctx, agentfiles.AuthContext{UserIdentity: "no hash"}), fileio.StatRequest{Project: proj, Path: "/x"})
	wantCode(t, "identity without a key hash", err, agentfiles.CodePermissionDenied)
	if n := pending(t, e.store); n != 0 {
		t.Errorf("unauthenticated calls enqueued %d jobs", n)
	}
}

func testRateLimit(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore, func(c *fileio.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 0.001, 3 })
	a, _ := newTenant(proj)
	b, _ := newTenant(proj)
	for i := 0; i < 3; i++ {
		if _, err := e.svc.Stat(a, fileio.StatRequest{Project: proj, Path: "/x"}); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	_, err := e.svc.Write(a, fileio.WriteRequest{Project: proj, Path: "/x", Content: "x"})
	wantCode(t, "call over the burst", err, agentfiles.CodeRateLimited)
	wantMessage(t, "call over the burst", err, "retry after")
	_, err = e.svc.List(a, fileio.ListRequest{Project: "other-project", Path: "", Depth: 1, Limit: 0})
	wantCode(t, "the limit is per tenant, not per project", err, agentfiles.CodeRateLimited)
	if _, err := e.svc.Stat(b, fileio.StatRequest{Project: proj, Path: "/x"}); err != nil {
		t.Errorf("another tenant is limited too: %v", err)
	}
	if n := pending(t, e.store); n != 0 {
		t.Errorf("a rate-limited write enqueued a job")
	}
}

func testOutboxFromService(t *testing.T, newStore func(t *testing.T) driver.Store) {
	e := newEnv(t, newStore)
	ctx, scope := newTenant(proj)
	w := e.write(ctx, proj, "/a/one", "1")
	e.write(ctx, proj, "/a/two", "2")
	if n := pending(t, e.store); n != 2 {
		t.Fatalf("pending after two writes: %d", n)
	}
	jobs, err := e.store.ClaimJobs(context.Background(), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Path != "/a/one" || jobs[0].Op != driver.JobUpsert || jobs[0].Scope != scope || !jobs[0].FileUpdatedAt.Equal(w.UpdatedAt) {
		t.Fatalf("jobs after writes: %+v", jobs)
	}
	for _, j := range jobs {
		e.store.CompleteJob(context.Background(), j)
	}
	if err := e.svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/a", Recursive: true}); err != nil {
		t.Fatal(err)
	}
	jobs, _ = e.store.ClaimJobs(context.Background(), 10, 0)
	if len(jobs) != 2 || jobs[0].Op != driver.JobDelete || jobs[1].Op != driver.JobDelete {
		t.Errorf("jobs after a recursive delete: %+v", jobs)
	}
}

type sealer struct{ calls atomic.Int32 }

func (s *sealer) Seal(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, path string) (string, error) {
	if ac.APIKey == "" || scope.Tenant != ac.TenantID() {
		return "", errors.New("sealer got no key or a wrong scope")
	}
	s.calls.Add(1)
	return "ref:" + scope.Project + ":" + path, nil
}

func testSealer(t *testing.T, newStore func(t *testing.T) driver.Store) {
	store := newStore(t)
	cs := &sealer{}
	svc, err := fileio.NewService(store, fileio.Options{Config: testConfig(), CredentialSealer: cs})
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := newTenant(proj)
	if _, err := svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: "/s", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	jobs, _ := store.ClaimJobs(context.Background(), 1, 0)
	if len(jobs) != 1 || jobs[0].CredentialRef != "ref:"+proj+":/s" {
		t.Errorf("job %+v, want the sealed reference", jobs)
	}
	if n := cs.calls.Load(); n != 1 {
		t.Errorf("sealer called %d times for one write, want 1", n)
	}
}

func testFailedWrites(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.write(ctx, proj, "/f", "123")
	for _, j := range mustClaim(t, e.store) {
		e.store.CompleteJob(context.Background(), j)
	}
	bad := []fileio.WriteRequest{
		{Project: proj, Path: "/f", Content: "12345678", Mode: fileio.ModeAppend}, // file quota
		{Project: proj, Path: "/f/x", Content: "1"},                               // NOT_DIRECTORY
		{Project: proj, Path: "/f", Content: "1", OffsetBytes: 9, Mode: fileio.ModeOverwrite},
		{Project: proj, Path: "/g", Content: "\xff"},
	}
	for _, req := range bad {
		if _, err := e.svc.Write(ctx, req); err == nil {
			t.Errorf("write %+v succeeded", req)
		}
	}
	if got := e.read(ctx, proj, "/f"); got != "123" {
		t.Errorf("failed writes changed the file: %q", got)
	}
	if n := pending(t, e.store); n != 0 {
		t.Errorf("failed writes enqueued %d jobs", n)
	}
	if s, _ := e.svc.Stat(ctx, fileio.StatRequest{Project: proj, Path: "/g"}); s.Exists {
		t.Errorf("a failed write created /g")
	}
}

func mustClaim(t testing.TB, s driver.Store) []driver.Job {
	t.Helper()
	jobs, err := s.ClaimJobs(context.Background(), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
