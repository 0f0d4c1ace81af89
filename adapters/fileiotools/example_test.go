package fileiotools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func ExampleTools() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tools := fileiotools.Tools(svc)
	for _, t := range tools {
		fmt.Println(t.Name)
	}

	// The bindings authenticate the caller and put the identity into the context.
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	call := func(name, args string) {
		tool, _ := adapters.Find(tools, name)
		out, err := tool.Call(ctx, json.RawMessage(args))
		if err != nil {
			// Errors reach the agent as a code and a message that says what to do next.
			te, _ := adapters.ErrorOf(err)
			fmt.Println(te.Code, te.Retryable, te.Message)
			return
		}
		var fields map[string]any
		b, _ := json.Marshal(out)
		json.Unmarshal(b, &fields)
		delete(fields, "updated_at") // the only field that changes from run to run
		b, _ = json.Marshal(fields)
		fmt.Println(string(b))
	}
	call("file_write", `{"project": "demo", "path": "/notes/todo.md", "content": "- buy milk\n"}`)
	call("file_read", `{"project": "demo", "path": "/notes/todo.md", "offset": 2}`)
	call("file_write", `{"project": "demo", "path": "/notes/todo.md/x", "content": "x"}`)
	call("file_edit", `{"project": "demo", "path": "/notes/todo.md", "edits": [{"old_str": "milk", "new_str": "oat milk"}]}`)
	call("file_read", `{"project": "demo", "path": "/notes/todo.md", "start_line": 1, "line_numbers": true}`)
	call("file_rename", `{"project": "demo", "from": "/notes", "to": "/done"}`)
	// Output:
	// file_stat
	// file_read
	// file_write
	// file_delete
	// file_list
	// file_edit
	// file_rename
	// file_versions
	// file_restore
	// file_purge_history
	// file_grep
	// file_glob
	// file_import
	// file_export
	// file_apply_patch
	// file_read_many
	// file_checkpoint
	// file_checkpoints
	// file_checkpoint_delete
	// file_events
	// file_changes
	// file_rewind
	// file_shell
	// {"bytes_written":11,"created":true,"sha256":"c08a755ff142ea0922552f6d2d492ba1337ba1869feb7b8e51816829560b65d5","size_bytes":11}
	// {"content":"buy milk\n","content_encoding":"utf-8","next_offset":11,"offset":2,"read_bytes":9,"size_bytes":11,"truncated":false}
	// NOT_DIRECTORY false /notes/todo.md is a file, so it cannot contain /notes/todo.md/x; choose another path (/notes/todo.md)
	// {"diff":"--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1 +1 @@\n-- buy milk\n+- buy oat milk\n","dry_run":false,"sha256":"181c6c8bb45be6c8f90f5d916c9c419af53214c05485d44a86a70de1155009fe","size_bytes":15}
	// {"content":"     1\t- buy oat milk\n","content_encoding":"utf-8","end_line":1,"next_offset":15,"offset":0,"read_bytes":15,"size_bytes":15,"start_line":1,"total_lines":1,"truncated":false}
	// {"files":1,"from":"/notes","to":"/done"}
}

// file_grep finds lines the way ripgrep does, file_glob finds files by path; both page with
// cursors when a limit cuts the answer.
func ExampleTools_grep() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tools := fileiotools.Tools(svc)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	call := func(name, args string) {
		tool, _ := adapters.Find(tools, name)
		out, err := tool.Call(ctx, json.RawMessage(args))
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			fmt.Println(te.Code, te.Message)
			return
		}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
	}
	write, _ := adapters.Find(tools, "file_write")
	write.Call(ctx, json.RawMessage(`{"project": "demo", "path": "/docs/plan.md", "content": "# Plan\nTODO: write tests\ndone: parser\n"}`))
	write.Call(ctx, json.RawMessage(`{"project": "demo", "path": "/src/main.go", "content": "package main\n\n// TODO: flags\nfunc main() {}\n"}`))
	call("file_grep", `{"project": "demo", "pattern": "TODO", "glob": "*.md", "after_context": 1}`)
	call("file_grep", `{"project": "demo", "pattern": "todo", "ignore_case": true, "output_mode": "files_with_matches"}`)
	call("file_glob", `{"project": "demo", "pattern": "**/*.go"}`)
	call("file_grep", `{"project": "demo", "pattern": "func (main"}`)
	// Output:
	// {"output_mode":"content","truncated":false,"limit":100,"scanned_files":1,"scanned_bytes":44,"matches":[{"path":"/docs/plan.md","line_number":2,"line":"TODO: write tests","after":["done: parser"]}]}
	// {"output_mode":"files_with_matches","truncated":false,"limit":100,"scanned_files":2,"scanned_bytes":88,"files":["/docs/plan.md","/src/main.go"]}
	// {"paths":["/src/main.go"],"truncated":false,"limit":256}
	// INVALID_PATTERN pattern is not a valid Go RE2 regular expression: error parsing regexp: missing closing ): `func (main`; escape special characters with \ or set fixed_strings to search for the text as is (pattern)
}

// file_checkpoint before an agent's turn; file_changes shows what the turn did, file_events
// follows each change as it is committed, file_rewind undoes the turn.
func ExampleTools_checkpoint() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tools := fileiotools.Tools(svc)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	call := func(name, args string) {
		tool, _ := adapters.Find(tools, name)
		out, err := tool.Call(ctx, json.RawMessage(args))
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			fmt.Println(te.Code, te.Message)
			return
		}
		var fields map[string]any
		b, _ := json.Marshal(out)
		json.Unmarshal(b, &fields)
		delete(fields, "created_at") // changes from run to run
		events, _ := fields["events"].([]any)
		for _, e := range events {
			delete(e.(map[string]any), "at")
		}
		b, _ = json.Marshal(fields)
		fmt.Println(string(b))
	}
	write, _ := adapters.Find(tools, "file_write")
	write.Call(ctx, json.RawMessage(`{"project": "demo", "path": "/plan.md", "content": "step 1\n"}`))
	call("file_checkpoint", `{"project": "demo", "label": "before turn 2"}`)
	write.Call(ctx, json.RawMessage(`{"project": "demo", "path": "/plan.md", "content": "step 2\n"}`))
	write.Call(ctx, json.RawMessage(`{"project": "demo", "path": "/notes.md", "content": "hi\n", "mode": "TRUNCATE"}`))
	call("file_events", `{"project": "demo", "after": 1}`)
	call("file_changes", `{"project": "demo", "since": "1"}`)
	call("file_rewind", `{"project": "demo", "checkpoint": "1"}`)
	// Output:
	// {"checkpoint":"1","label":"before turn 2","note":"this checkpoint keeps the content the project's files have now (1 files, 7 bytes): a version of them that a later change replaces or deletes stays while the checkpoint exists, and counts toward the project's quota. The project holds 143 of its 104857600 bytes; checkpoints already keep replaced versions (0, 0 bytes). file_checkpoint_delete frees what only this checkpoint keeps","pinned_bytes":0,"pinned_versions":0,"pins_bytes":7,"pins_files":1,"position":1,"project_bytes":143,"quota_bytes":104857600}
	// {"events":[{"kind":"modified","path":"/plan.md","position":2,"sha256":"d26ce1f6dc3fe079724fe9bab06f233e0c792e4728a4e6d1d5d932c81e0e8792","size_bytes":14,"version":2},{"kind":"created","path":"/notes.md","position":3,"sha256":"98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4","size_bytes":3,"version":1}],"next_after":3,"truncated":false}
	// {"changes":[{"diff":"--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1 @@\n+hi\n","kind":"added","path":"/notes.md"},{"diff":"--- a/plan.md\n+++ b/plan.md\n@@ -1 +1,2 @@\n step 1\n+step 2\n","kind":"modified","path":"/plan.md"}],"truncated":false}
	// {"changes":[{"kind":"added","path":"/notes.md"},{"kind":"modified","path":"/plan.md"}],"total":2,"truncated":false}
}

// file_apply_patch applies a multi-file patch in OpenAI's apply_patch format (or a unified
// diff, or the Responses API's operations) in one transaction; file_read_many reads several
// files in one call, each with its sha256 or its own error.
func ExampleTools_applyPatch() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tools := fileiotools.Tools(svc)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	call := func(name string, args any) any {
		tool, _ := adapters.Find(tools, name)
		raw, _ := json.Marshal(args)
		out, err := tool.Call(ctx, raw)
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			fmt.Println(te.Code, te.Message)
		}
		return out
	}
	call("file_write", map[string]any{"project": "demo", "path": "/src/app.py", "content": "def main():\r\n    print(\"hi\")\r\n"})
	res := call("file_apply_patch", map[string]any{"project": "demo", "patch": `*** Begin Patch
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")
*** Add File: README.md
+# App
*** End Patch`}).(fileio.ApplyPatchResult)
	for _, f := range res.Files {
		fmt.Println(f.Operation, f.Path, f.SizeBytes, f.Chunks)
	}
	fmt.Print(strings.ReplaceAll(res.Files[0].Diff, "\r", `\r`)) // the file keeps its CRLF line endings
	many := call("file_read_many", map[string]any{"project": "demo", "paths": []string{"src/app.py", "README.md", "gone.txt"}}).(fileio.ReadManyResult)
	for _, f := range many.Files {
		if f.Error != nil {
			fmt.Println(f.Path, f.Error.Code)
			continue
		}
		fmt.Printf("%s %q\n", f.Path, f.Content)
	}
	call("file_apply_patch", map[string]any{"project": "demo", "patch": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    print(\"bye\")\n+    pass\n*** End Patch"})
	// Output:
	// update /src/app.py 33 [{1 2 exact}]
	// add /README.md 6 []
	// --- a/src/app.py
	// +++ b/src/app.py
	// @@ -1,2 +1,2 @@
	//  def main():\r
	// -    print("hi")\r
	// +    print("hello")\r
	// /README.md "# App\n"
	// /gone.txt NOT_FOUND
	// /src/app.py "def main():\r\n    print(\"hello\")\r\n"
	// NO_MATCH /src/app.py: chunk 1 of 1 (patch line 3) does not apply: these lines are not in the file, even ignoring whitespace at the ends of lines and Unicode dashes, quotes and spaces:
	//   "    print(\"bye\")"
	// Read the file again and resend the patch with the chunk's context and removed lines copied from it; nothing was changed. (/src/app.py)
}
