package memorytools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/adapters/memorytools"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
)

func memoryTools(t *testing.T) []adapters.Tool {
	t.Helper()
	mem, err := memorytool.New(storetest.NewService(t, memstore.New(memstore.Options{})), memorytool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return memorytools.Tools(mem)
}

// TestOverMCP drives every command through the official SDK's MCP client: results are the
// memory tool's texts as they are, errors carry its error texts, and the binding's log shows
// neither file contents nor the key.
func TestOverMCP(t *testing.T) {
	const apiKey, secret = "sk-memory-KEY-123", "CONFIDENTIAL-MEMORY"
	var logs bytes.Buffer
	ac := agentfiles.NewAuthContext(apiKey, "mcp-user")
	cs := adapterstest.Connect(t, memoryTools(t), mcpsdk.Options{Auth: &ac, Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if diff := cmp.Diff([]string{"memory"}, mcptest.ToolNames(t, cs)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	listing := "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n"
	steps := []struct {
		args    map[string]any
		want    string
		errCode string // "" for a result
	}{
		{map[string]any{"command": "view", "path": "/memories"}, listing + "0B\t/memories", ""},
		{map[string]any{"command": "create", "path": "/memories/todo.md", "file_text": "- " + secret + "\n- milk\n- milk\n"}, "File created successfully at: /memories/todo.md", ""},
		{map[string]any{"command": "create", "path": "/memories/todo.md", "file_text": "x"}, "Error: File /memories/todo.md already exists", "ALREADY_EXISTS"},
		{map[string]any{"command": "view", "path": "/memories"}, listing + "36B\t/memories\n36B\t/memories/todo.md", ""},
		{map[string]any{"command": "view", "path": "/memories/todo.md", "view_range": []int{2, -1}}, "Here's the content of /memories/todo.md with line numbers:\n     2\t- milk\n     3\t- milk", ""},
		{map[string]any{"command": "view", "path": "/memories/missing.md"}, "The path /memories/missing.md does not exist. Please provide a valid path.", "NOT_FOUND"},
		{map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "- milk", "new_str": "- eggs"}, "No replacement was performed. Multiple occurrences of old_str `- milk` in lines: 2, 3. Please ensure it is unique", "AMBIGUOUS_MATCH"},
		{map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "- tea", "new_str": "- eggs"}, "No replacement was performed, old_str `- tea` did not appear verbatim in /memories/todo.md.", "NO_MATCH"},
		{map[string]any{"command": "str_replace", "path": "/memories/missing.md", "old_str": "a", "new_str": "b"}, "Error: The path /memories/missing.md does not exist. Please provide a valid path.", "NOT_FOUND"},
		{map[string]any{"command": "str_replace", "path": "/memories/todo.md", "old_str": "- milk\n- milk", "new_str": "- milk\n- eggs"}, "The memory file has been edited. Here is a snippet of /memories/todo.md with line numbers:\n" +
			"     1\t- " + secret + "\n     2\t- milk\n     3\t- eggs", ""},
		{map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 0, "insert_text": "# Todo"}, "The file /memories/todo.md has been edited.", ""},
		{map[string]any{"command": "insert", "path": "/memories/todo.md", "insert_line": 9, "insert_text": "x"}, "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]", "INVALID_ARGUMENT"},
		{map[string]any{"command": "insert", "path": "/memories/missing.md", "insert_line": 0, "insert_text": "x"}, "Error: The path /memories/missing.md does not exist", "NOT_FOUND"},
		{map[string]any{"command": "view", "path": "/memories/todo.md"}, "Here's the content of /memories/todo.md with line numbers:\n     1\t# Todo\n     2\t- " + secret + "\n     3\t- milk\n     4\t- eggs", ""},
		{map[string]any{"command": "rename", "old_path": "/memories/todo.md", "new_path": "/memories/done/todo.md"}, "Successfully renamed /memories/todo.md to /memories/done/todo.md", ""},
		{map[string]any{"command": "rename", "old_path": "/memories/todo.md", "new_path": "/memories/x.md"}, "Error: The path /memories/todo.md does not exist", "NOT_FOUND"},
		{map[string]any{"command": "create", "path": "/memories/other.md", "file_text": "o"}, "File created successfully at: /memories/other.md", ""},
		{map[string]any{"command": "rename", "old_path": "/memories/other.md", "new_path": "/memories/done/todo.md"}, "Error: The destination /memories/done/todo.md already exists", "ALREADY_EXISTS"},
		{map[string]any{"command": "delete", "path": "/memories/done"}, "Successfully deleted /memories/done", ""},
		{map[string]any{"command": "delete", "path": "/memories/done"}, "Error: The path /memories/done does not exist", "NOT_FOUND"},
		{map[string]any{"command": "view", "path": "/memories/../etc/passwd"}, `Error: The path /memories/../etc/passwd would escape /memories: "." and ".." are not allowed; write the full path, such as /memories/notes.md`, "INVALID_PATH"},
		{map[string]any{"command": "view", "path": "/memories/%2e%2e/x"}, `Error: The path "/memories/%2e%2e/x" would escape /memories: "\" and %-escapes are not allowed; use a path below /memories such as /memories/notes.md`, "INVALID_PATH"},
		{map[string]any{"command": "view", "path": "/memories"}, listing + "1B\t/memories\n1B\t/memories/other.md", ""},
	}
	for _, s := range steps {
		res, text := mcptest.CallTool(t, cs, "memory", s.args)
		got, code := text, ""
		if res.IsError {
			var te adapters.ToolError
			if err := json.Unmarshal([]byte(text), &te); err != nil {
				t.Fatalf("%v: error text is not a ToolError: %q", s.args, text)
			}
			got, code = te.Message, te.Code
		} else {
			var out memorytools.Output
			mcptest.Decode(t, res, &out)
			if out.Result != text {
				t.Errorf("%v: structured result %q differs from the text %q", s.args, out.Result, text)
			}
		}
		if diff := cmp.Diff(s.want, got); diff != "" || code != s.errCode {
			t.Errorf("%v: code %q, want %q; text (-want +got):\n%s", s.args, code, s.errCode, diff)
		}
	}
	if strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), apiKey) {
		t.Errorf("binding logs contain content or the key:\n%s", logs.String())
	}
}

// TestSchema: the input schema is exactly the memory tool's input, and the MCP client sees it.
func TestSchema(t *testing.T) {
	ac := agentfiles.NewAuthContext("k", "u")
	cs := adapterstest.Connect(t, memoryTools(t), mcpsdk.Options{Auth: &ac})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Tools[0].InputSchema)
	var schema struct {
		Properties map[string]struct {
			Type     any   `json:"type"`
			Enum     []any `json:"enum"`
			MinItems *int  `json:"minItems"`
			MaxItems *int  `json:"maxItems"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	types := map[string]any{}
	for name, p := range schema.Properties {
		types[name] = p.Type
	}
	want := map[string]any{
		"command": "string", "path": "string", "view_range": "array", "file_text": "string", "old_str": "string",
		"new_str": "string", "insert_line": "integer", "insert_text": "string", "old_path": "string", "new_path": "string",
	}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("property types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"command"}, schema.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"view", "create", "str_replace", "insert", "delete", "rename"}, schema.Properties["command"].Enum); diff != "" {
		t.Errorf("command enum (-want +got):\n%s", diff)
	}
	if vr := schema.Properties["view_range"]; vr.MinItems == nil || *vr.MinItems != 2 || vr.MaxItems == nil || *vr.MaxItems != 2 {
		t.Errorf("view_range is not two items: %s", b)
	}
	// The schema is enforced: an unknown command or a view_range of three is refused before the
	// tool runs.
	for _, args := range []map[string]any{
		{"command": "list", "path": "/memories"},
		{"command": "view", "path": "/memories/a.md", "view_range": []int{1, 2, 3}},
		{"command": "view", "path": "/memories", "extra": true},
	} {
		r, text := mcptest.CallTool(t, cs, "memory", args)
		if !r.IsError || !strings.Contains(text, "INVALID_ARGUMENT") {
			t.Errorf("%v: %s, want INVALID_ARGUMENT", args, text)
		}
	}
}

// TestIdentity: without an identity the tool refuses; each tenant sees only its memories.
func TestIdentity(t *testing.T) {
	tools := memoryTools(t)
	tool, _ := adapters.Find(tools, "memory")
	_, err := tool.Call(context.Background(), json.RawMessage(`{"command":"view","path":"/memories"}`))
	if te, _ := adapters.ErrorOf(err); te.Code != "PERMISSION_DENIED" {
		t.Errorf("without identity: %v", err)
	}
	a, b := agentfiles.NewAuthContext("key-a", "a"), agentfiles.NewAuthContext("key-b", "b")
	csA := adapterstest.Connect(t, tools, mcpsdk.Options{Auth: &a})
	csB := adapterstest.Connect(t, tools, mcpsdk.Options{Auth: &b})
	mcptest.CallTool(t, csA, "memory", map[string]any{"command": "create", "path": "/memories/a.md", "file_text": "mine"})
	if _, text := mcptest.CallTool(t, csB, "memory", map[string]any{"command": "view", "path": "/memories/a.md"}); !strings.Contains(text, "does not exist") {
		t.Errorf("tenant b sees tenant a's memory: %s", text)
	}
}
