package fileiotools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

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
	// {"bytes_written":11,"created":true,"size_bytes":11}
	// {"content":"buy milk\n","content_encoding":"utf-8","next_offset_bytes":11,"offset_bytes":2,"read_bytes":9,"size_bytes":11,"truncated":false}
	// NOT_DIRECTORY false /notes/todo.md is a file, so it cannot contain /notes/todo.md/x; choose another path (/notes/todo.md)
	// {"diff":"--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1 +1 @@\n-- buy milk\n+- buy oat milk\n","dry_run":false,"sha256":"181c6c8bb45be6c8f90f5d916c9c419af53214c05485d44a86a70de1155009fe","size_bytes":15}
	// {"content":"     1\t- buy oat milk\n","content_encoding":"utf-8","end_line":1,"next_offset_bytes":15,"offset_bytes":0,"read_bytes":15,"size_bytes":15,"start_line":1,"total_lines":1,"truncated":false}
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
	// {"output_mode":"content","truncated":false,"limit":100,"scanned_files":1,"scanned_bytes":38,"matches":[{"path":"/docs/plan.md","line_number":2,"line":"TODO: write tests","after":["done: parser"]}]}
	// {"output_mode":"files_with_matches","truncated":false,"limit":100,"scanned_files":2,"scanned_bytes":82,"files":["/docs/plan.md","/src/main.go"]}
	// {"paths":["/src/main.go"],"truncated":false,"limit":256}
	// INVALID_ARGUMENT pattern is not a valid Go RE2 regular expression: error parsing regexp: missing closing ): `func (main`; escape special characters with \ or set fixed_strings to search for the text as is (pattern)
}
