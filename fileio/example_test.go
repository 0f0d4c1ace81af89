package fileio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func ExampleService() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{}) // DefaultConfig
	if err != nil {
		panic(err)
	}
	// Adapters authenticate the caller and put the identity into the context.
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))

	w, _ := svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- buy milk\n"})
	fmt.Println("written:", w.BytesWritten, "created:", w.Created)
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/notes/todo.md", Content: "- call Bob\n"}) // APPEND

	r, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/notes/todo.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	fmt.Printf("read: %q\n", r.Content)

	l, _ := svc.List(ctx, fileio.ListRequest{Project: "demo", Path: "", Depth: 2, Limit: 0})
	for _, e := range l.Entries {
		fmt.Println(e.Type, e.Path, e.SizeBytes)
	}

	_, err = svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/missing.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	fmt.Println(agentfiles.ErrorCode(err), errors.Is(err, agentfiles.ErrNotFound))
	// Output:
	// written: 11 created: true
	// read: "- buy milk\n- call Bob\n"
	// DIRECTORY /notes 0
	// FILE /notes/todo.md 22
	// NOT_FOUND true
}

func ExampleService_List() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		panic(err)
	}
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, p := range []string{"/a.md", "/b.md", "/c.md", "/d/e.md"} {
		svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: p, Content: "x"})
	}
	// Two entries a page: follow NextCursor while the answer is truncated.
	req := fileio.ListRequest{Project: "demo", Depth: 1, Limit: 2}
	for {
		page, err := svc.List(ctx, req)
		if err != nil {
			panic(err)
		}
		for _, e := range page.Entries {
			fmt.Println(e.Type, e.Path)
		}
		if !page.Truncated {
			break
		}
		req.Cursor = page.NextCursor
	}
	// Output:
	// FILE /a.md
	// FILE /b.md
	// FILE /c.md
	// DIRECTORY /d
}

func ExampleService_Edit() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/todo.md", Content: "- buy milk\n- call Bob\n"})

	// Replace one line; the result carries the new sha256 for the next optimistic edit.
	res, _ := svc.Edit(ctx, fileio.EditRequest{Project: "demo", Path: "/todo.md",
		Edits: []fileio.Edit{{OldStr: "- buy milk", NewStr: "- buy oat milk"}}})
	fmt.Print(res.Diff)
	// Insert after line 2, only if nobody changed the file meanwhile.
	res, _ = svc.Edit(ctx, fileio.EditRequest{Project: "demo", Path: "/todo.md", ExpectedSHA256: res.SHA256,
		Insert: true, InsertLine: 2, InsertText: "- water plants"})
	fmt.Println(res.SizeBytes)
	// An old_str that occurs twice must be made unique, or replaced everywhere.
	_, err := svc.Edit(ctx, fileio.EditRequest{Project: "demo", Path: "/todo.md", Edits: []fileio.Edit{{OldStr: "- ", NewStr: "* "}}})
	fmt.Println(err)
	// Output:
	// --- a/todo.md
	// +++ b/todo.md
	// @@ -1,2 +1,2 @@
	// -- buy milk
	// +- buy oat milk
	//  - call Bob
	// 41
	// AMBIGUOUS_MATCH: old_str occurs 3 times, at lines 1, 2, 3; add surrounding lines to make it unique, or set replace_all (edits[0].old_str)
}

func ExampleService_Rename() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/drafts/a.md", Content: "a"})
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/drafts/b.md", Content: "b"})

	res, _ := svc.Rename(ctx, fileio.RenameRequest{Project: "demo", From: "/drafts", To: "/final", Overwrite: false})
	fmt.Println("moved", res.Files)
	_, err := svc.Rename(ctx, fileio.RenameRequest{Project: "demo", From: "/final/a.md", To: "/final/b.md", Overwrite: false})
	fmt.Println(agentfiles.ErrorCode(err))
	l, _ := svc.List(ctx, fileio.ListRequest{Project: "demo", Path: "/final", Depth: 1, Limit: 0})
	for _, e := range l.Entries {
		fmt.Println(e.Path)
	}
	// Output:
	// moved 2
	// ALREADY_EXISTS
	// /final/a.md
	// /final/b.md
}

func ExampleService_Read() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/log.txt", Content: "one\ntwo\nthree\nfour\n"})

	// The last two lines, numbered as the memory tool's view shows them.
	r, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/log.txt", StartLine: -2, LineNumbers: true})
	fmt.Print(r.Content)
	fmt.Println(r.StartLine, r.EndLine, r.TotalLines)
	// Output:
	//      3	three
	//      4	four
	// 3 4 4
}

func ExampleService_Restore() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{}) // keeps 10 versions
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/plan.md", Content: "good plan"})
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/plan.md", Content: "bad plan", Mode: fileio.ModeTruncate})
	svc.Delete(ctx, fileio.DeleteRequest{Project: "demo", Path: "/plan.md", Recursive: false})

	vs, _ := svc.Versions(ctx, fileio.VersionsRequest{Project: "demo", Path: "/plan.md"})
	for _, v := range vs {
		fmt.Println(v.Version, v.SizeBytes, v.Current, v.Deleted)
	}
	old, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/plan.md", Version: 1})
	fmt.Println(old.Content)
	svc.Restore(ctx, fileio.RestoreRequest{Project: "demo", Path: "/plan.md", Version: 1}) // the deleted file comes back, as version 3
	r, _ := svc.Read(ctx, fileio.ReadRequest{Project: "demo", Path: "/plan.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))})
	fmt.Println(r.Content)
	// Output:
	// 2 8 false true
	// 1 9 false false
	// good plan
	// good plan
}

func ExampleService_PurgeHistory() {
	cfg := fileio.DefaultConfig()
	cfg.MaxProjectBytes, cfg.MaxFileBytes = 1300, 1000
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{Config: cfg})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, text := range []string{"first draft ", "second draft"} {
		svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/draft.md", Content: strings.Repeat(text, 400/len(text)), Mode: fileio.ModeTruncate})
	}
	svc.Delete(ctx, fileio.DeleteRequest{Project: "demo", Path: "/draft.md", Recursive: false})

	// No files are left, but the two kept versions still hold 792 bytes, and the three
	// changes' events 411 (each 128 bytes and its path's, for at least a day).
	note := strings.Repeat("a note. ", 100/8)
	_, err := svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/new.md", Content: note})
	fmt.Println(err)

	res, _ := svc.PurgeHistory(ctx, fileio.PurgeHistoryRequest{Project: "demo", Path: ""}) // "" : every path of the project
	fmt.Println(res.Versions, res.BytesFreed)
	_, err = svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/new.md", Content: note})
	fmt.Println(err)
	// Output:
	// QUOTA_EXCEEDED: the project would hold 1434 bytes, over its quota of 1300 (max_project_bytes): it holds 0 in files, 792 in kept versions of earlier content (see file_versions) and 411 in change-feed events (128 bytes each and its path, kept 7 days after the change and while a checkpoint older than it exists), and this change adds 231 (its content, the versions it keeps, its events). Drop kept versions with file_purge_history (path "" for the whole project), or delete files you no longer need, then retry
	// 2 792
	// <nil>
}

func ExampleService_Grep() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/docs/plan.md", Content: "# Plan\nTODO: tests\r\nlater\n"})
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/src/main.go", Content: "// todo: flags\nfunc main() {}\n"})

	// Lines as ripgrep finds them: a "\r" before "\n" is part of the line.
	res, _ := svc.Grep(ctx, fileio.GrepRequest{Project: "demo", Pattern: `TODO: \w+`, AfterContext: 1})
	for _, m := range res.Matches {
		fmt.Printf("%s:%d:%q after %q\n", m.Path, m.LineNumber, m.Line, m.After)
	}
	// Files only, case-insensitively, one per page: follow the cursor.
	req := fileio.GrepRequest{Project: "demo", Pattern: "todo", IgnoreCase: true, OutputMode: fileio.GrepFilesWithMatches, Limit: 1}
	for {
		res, _ := svc.Grep(ctx, req)
		fmt.Println(res.Files, res.Truncated)
		if !res.Truncated {
			break
		}
		req.Cursor = res.NextCursor
	}
	// Output:
	// /docs/plan.md:2:"TODO: tests\r" after ["later"]
	// [/docs/plan.md] true
	// [/src/main.go] false
}

func ExampleService_Glob() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, p := range []string{"/README.md", "/docs/a.md", "/docs/deep/b.md", "/docs/c.txt", "/.env"} {
		svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: p, Content: "x"})
	}
	for _, pattern := range []string{"*.md", "**/*.md", "docs/*.{md,txt}", ".*"} {
		res, _ := svc.Glob(ctx, fileio.GlobRequest{Project: "demo", Pattern: pattern})
		fmt.Println(pattern, res.Paths)
	}
	// Output:
	// *.md [/README.md]
	// **/*.md [/README.md /docs/a.md /docs/deep/b.md]
	// docs/*.{md,txt} [/docs/a.md /docs/c.txt]
	// .* [/.env]
}

// ExampleService_Import copies a directory from one project to another through an archive:
// Export writes a tar.gz, Import reads it back (the format is detected from the bytes).
func ExampleService_Import() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/site/notes/meeting notes.md", Content: "agenda\n"})
	svc.Write(ctx, fileio.WriteRequest{Project: "demo", Path: "/site/caf\u00e9.md", Content: "cr\u00e8me\n"})

	var tgz bytes.Buffer
	exp, _ := svc.Export(ctx, fileio.ExportRequest{Project: "demo", Path: "/site", Format: "tar.gz"}, &tgz)
	fmt.Println("exported:", exp.Files, "files,", exp.Bytes, "bytes")

	res, err := svc.Import(ctx, fileio.ImportRequest{Project: "copy", Path: "/imported", Archive: &tgz})
	fmt.Println("imported:", res.Format, res.Files, "files, created", res.Created, err)
	r, _ := svc.Read(ctx, fileio.ReadRequest{Project: "copy", Path: "/imported/cafe\u0301.md", OffsetBytes: 0, LengthBytes: new(int64(fileio.ReadToEOF))}) // the NFD spelling names the same file
	fmt.Printf("%q\n", r.Content)
	// Output:
	// exported: 2 files, 14 bytes
	// imported: tar.gz 2 files, created 2 <nil>
	// "crème\n"
}

// A project is an io/fs.FS at one snapshot: hand it to fs.WalkDir, template.ParseFS or
// http.FileServerFS.
func ExampleService_FS() {
	svc, _ := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, p := range []string{"/README.md", "/docs/guide.md", "/docs/api/index.md"} {
		svc.Write(ctx, fileio.WriteRequest{Project: "site", Path: p, Content: "# " + p + "\n"})
	}
	fsys, err := svc.FS(ctx, "site")
	if err != nil {
		fmt.Println(err)
		return
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		fmt.Println(p, d.IsDir())
		return err
	})
	data, _ := fs.ReadFile(fsys, "docs/guide.md")
	fmt.Printf("%q\n", data)
	// Output:
	// . true
	// README.md false
	// docs true
	// docs/api true
	// docs/api/index.md false
	// docs/guide.md false
	// "# /docs/guide.md\n"
}
