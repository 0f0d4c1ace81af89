package fileiotools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
)

func fileioTools(t *testing.T) []adapters.Tool {
	t.Helper()
	return fileiotools.Tools(storetest.NewService(t, memstore.New(memstore.Options{})))
}

func TestToolsDirect(t *testing.T) {
	tools := fileioTools(t)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice"))
	run := func(name, args string) (map[string]any, string) {
		t.Helper()
		out, err := adapterstest.CallContext(ctx, t, tools, name, args)
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			return nil, te.Code
		}
		return out, ""
	}
	if _, code := run("file_write", `{"project":"p","path":"/a/b.txt","content":"héllo"}`); code != "" {
		t.Fatal(code)
	}
	steps := []struct {
		name, args string
		want       map[string]any // subset of the result
		code       string
	}{
		{"file_write", `{"project":"p","path":"/a/b.txt","content":" world"}`, map[string]any{"bytes_written": 6.0, "size_bytes": 12.0}, ""},
		{"file_write", `{"project":"p","path":"/a/b.txt","content":"J","offset":0,"mode":"OVERWRITE"}`, map[string]any{"bytes_written": 1.0}, ""},
		{"file_write", `{"project":"p","path":"/a/b.txt","content":"x","offset":1,"mode":"TRUNCATE"}`, nil, "INVALID_OFFSET"},
		{"file_write", `{"project":"p","path":"/a/b.txt","content":"x","content_encoding":"base64"}`, nil, "INVALID_ARGUMENT"},
		{"file_write", `{"project":"p","path":"/a/b.txt"}`, nil, "INVALID_ARGUMENT"}, // content is required
		{"file_read", `{"project":"p","path":"/a/b.txt"}`, map[string]any{"content": "Jéllo world", "content_encoding": "utf-8"}, ""},
		{"file_read", `{"project":"p","path":"/a/b.txt","offset":1,"length":2}`, map[string]any{"content": "é"}, ""},
		{"file_read", `{"project":"p","path":"/a/b.txt","offset":2}`, nil, "INVALID_OFFSET"},
		{"file_read", `{"project":"p","path":"/a/b.txt","offset":100}`, map[string]any{"content": ""}, ""},
		{"file_read", `{"project":"p","path":"/nope"}`, nil, "NOT_FOUND"},
		{"file_stat", `{"project":"p","path":"/a"}`, map[string]any{"exists": true, "type": "DIRECTORY", "size_bytes": 0.0}, ""},
		{"file_stat", `{"project":"p","path":"/zz"}`, map[string]any{"exists": false}, ""},
		{"file_stat", `{"project":"p","path":"no-slash"}`, nil, "INVALID_PATH"},
		{"file_list", `{"project":"p"}`, map[string]any{"truncated": false, "limit": 256.0}, ""},
		{"file_list", `{"project":"p","path":"/","depth":2,"limit":5000}`, map[string]any{"limit": 1024.0, "limit_clamped": true}, ""},
		{"file_list", `{"project":"p","path":"/a","depth":0}`, nil, ""},
		{"file_delete", `{"project":"p","path":"/a"}`, nil, "NOT_EMPTY"},
		{"file_delete", `{"project":"p","path":""}`, nil, "PERMISSION_DENIED"},
		{"file_delete", `{"project":"p","path":"/a","recursive":true}`, map[string]any{"deleted": true, "path": "/a"}, ""},
		{"file_delete", `{"project":"p","path":"/a","recursive":true}`, nil, "NOT_FOUND"},
		{"file_stat", `{"project":"p","path":"/a","extra":1}`, nil, "INVALID_ARGUMENT"},
	}
	for _, s := range steps {
		got, code := run(s.name, s.args)
		if code != s.code {
			t.Errorf("%s %s: code %q, want %q", s.name, s.args, code, s.code)
			continue
		}
		for k, v := range s.want {
			if diff := cmp.Diff(v, got[k]); diff != "" {
				t.Errorf("%s %s: %s (-want +got):\n%s", s.name, s.args, k, diff)
			}
		}
	}
	// file_list of the root with the default depth 1 shows the directory entry.
	tools2 := fileioTools(t)
	list, _ := adapters.Find(tools2, "file_list")
	w, _ := adapters.Find(tools2, "file_write")
	w.Handler(ctx, json.RawMessage(`{"project":"p","path":"/d/e/f","content":"x"}`))
	out, err := list.Handler(ctx, json.RawMessage(`{"project":"p","path":"/"}`))
	if err != nil {
		t.Fatal(err)
	}
	entries := out.(fileio.ListResult).Entries
	if len(entries) != 1 || entries[0].Path != "/d" || entries[0].Type != fileio.TypeDirectory {
		t.Errorf("file_list of '/' = %+v", entries)
	}
	// Without an identity every tool refuses.
	for _, tool := range tools {
		args := `{"project":"p","path":"/x"}`
		switch tool.Name {
		case "file_write":
			args = `{"project":"p","path":"/x","content":"x"}`
		case "file_rename":
			args = `{"project":"p","from":"/x","to":"/y"}`
		case "file_restore":
			args = `{"project":"p","path":"/x","version":1}`
		case "file_grep", "file_glob":
			args = `{"project":"p","pattern":"x"}`
		case "file_import":
			args = `{"project":"p","archive":"` + base64.StdEncoding.EncodeToString(storetest.BuildArchive(t, archive.Tar, []storetest.ArchiveEntry{{Name: "a", Content: "a"}})) + `"}`
		case "file_apply_patch":
			args = `{"project":"p","patch":"*** Begin Patch\n*** Delete File: x\n*** End Patch"}`
		case "file_read_many":
			args = `{"project":"p","paths":["/x"]}`
		case "file_checkpoint", "file_checkpoints":
			args = `{"project":"p"}`
		case "file_checkpoint_delete", "file_rewind":
			args = `{"project":"p","checkpoint":"1"}`
		case "file_changes":
			args = `{"project":"p","since":"1"}`
		case "file_shell":
			args = `{"project":"p","command":"ls"}`
		}
		_, err := tool.Handler(context.Background(), json.RawMessage(args))
		if te, _ := adapters.ErrorOf(err); te.Code != "PERMISSION_DENIED" {
			t.Errorf("%s without identity: %v", tool.Name, err)
		}
	}
}

func TestAnnotations(t *testing.T) {
	got := map[string]adapters.Annotations{}
	for _, tool := range fileioTools(t) {
		got[tool.Name] = tool.Annotations
		if tool.InputSchema.Properties["project"] == nil || tool.Description == "" {
			t.Errorf("%s: no project parameter or description", tool.Name)
		}
	}
	want := map[string]adapters.Annotations{
		"file_stat":          {ReadOnly: true, Idempotent: true},
		"file_read":          {ReadOnly: true, Idempotent: true},
		"file_list":          {ReadOnly: true, Idempotent: true},
		"file_write":         {Destructive: true},
		"file_delete":        {Destructive: true, Idempotent: true},
		"file_edit":          {Destructive: true},
		"file_rename":        {Destructive: true},
		"file_versions":      {ReadOnly: true, Idempotent: true},
		"file_restore":       {Destructive: true},
		"file_purge_history": {Destructive: true, Idempotent: true},
		"file_grep":          {ReadOnly: true, Idempotent: true},
		"file_glob":          {ReadOnly: true, Idempotent: true},
		"file_import":        {Destructive: true},
		"file_export":        {ReadOnly: true, Idempotent: true},
		"file_apply_patch":   {Destructive: true},
		"file_read_many":     {ReadOnly: true, Idempotent: true},

		"file_checkpoint":        {},
		"file_checkpoints":       {ReadOnly: true, Idempotent: true},
		"file_checkpoint_delete": {Destructive: true, Idempotent: true},
		"file_events":            {ReadOnly: true, Idempotent: true},
		"file_changes":           {ReadOnly: true, Idempotent: true},
		"file_rewind":            {Destructive: true, Idempotent: true},
		"file_shell":             {Destructive: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

// TestToolsOverMCP drives the tools with the SDK client over the in-memory transport and
// checks that the binding's log never shows written content or the API key.
func TestToolsOverMCP(t *testing.T) {
	const apiKey, secret = "sk-mcp-APIKEY-987", "CONFIDENTIAL-PAYLOAD"
	var logs bytes.Buffer
	ac := agentfiles.NewAuthContext(apiKey, "mcp-user")
	cs := adapterstest.Connect(t, fileioTools(t), mcpsdk.Options{Auth: &ac, Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if names := mcptest.ToolNames(t, cs); len(names) != 23 {
		t.Fatalf("tools: %v", names)
	}
	mcptest.Script(t, cs, []mcptest.Exchange{
		{Tool: "file_write", Args: map[string]any{"project": "p", "path": "/s.md", "content": secret}, Want: `"bytes_written":20`},
		{Tool: "file_read", Args: map[string]any{"project": "p", "path": "/s.md"}, Want: secret},
		{Tool: "file_list", Args: map[string]any{"project": "p", "path": "/"}, Want: `"/s.md"`},
		{Tool: "file_stat", Args: map[string]any{"project": "p", "path": "/s.md"}, Want: `"FILE"`},
		{Tool: "file_write", Args: map[string]any{"project": "p", "path": "/s.md/x", "content": secret}, Want: "NOT_DIRECTORY", IsError: true},
		{Tool: "file_edit", Args: map[string]any{"project": "p", "path": "/s.md", "edits": []any{map[string]any{"old_str": "PAYLOAD", "new_str": "PAYLOAD!"}}}, Want: `+` + secret + `!`},
		{Tool: "file_edit", Args: map[string]any{"project": "p", "path": "/s.md", "insert_line": 1, "insert_text": secret}, Want: `"size_bytes":43`},
		{Tool: "file_read", Args: map[string]any{"project": "p", "path": "/s.md", "start_line": -1, "line_numbers": true}, Want: `2\t` + secret},
		{Tool: "file_grep", Args: map[string]any{"project": "p", "pattern": "PAYLOAD!$", "context": 1}, Want: `"line_number":1`},
		{Tool: "file_grep", Args: map[string]any{"project": "p", "pattern": "confidential", "ignore_case": true, "output_mode": "count"}, Want: `"count":2`},
		{Tool: "file_versions", Args: map[string]any{"project": "p", "path": "/s.md"}, Want: `"version":3`},
		{Tool: "file_read", Args: map[string]any{"project": "p", "path": "/s.md", "version": 1}, Want: `"content":"` + secret + `"`},
		{Tool: "file_restore", Args: map[string]any{"project": "p", "path": "/s.md", "version": 1}, Want: `"restored_version":1`},
		{Tool: "file_glob", Args: map[string]any{"project": "p", "pattern": "*.md"}, Want: `"/s.md"`},
		{Tool: "file_apply_patch", Args: map[string]any{"project": "p", "patch": "*** Begin Patch\n*** Add File: n/x.md\n+" + secret + "\n*** End Patch"}, Want: `"operation":"add"`},
		{Tool: "file_apply_patch", Args: map[string]any{"project": "p", "operations": []any{map[string]any{"type": "update_file", "path": "n/x.md", "diff": "@@\n-" + secret + "\n+done\n"}}}, Want: `"pass":"exact"`},
		{Tool: "file_apply_patch", Args: map[string]any{"project": "p", "patch": "*** Begin Patch\n*** Add File: n/x.md\n+again\n*** End Patch"}, Want: "ALREADY_EXISTS", IsError: true},
		{Tool: "file_read_many", Args: map[string]any{"project": "p", "paths": []any{"n/x.md", "nope"}}, Want: `"code":"NOT_FOUND"`},
		{Tool: "file_shell", Args: map[string]any{"project": "p", "command": "echo " + secret + " > /sh.md; read l < /sh.md; echo \"[$l]\""}, Want: `"stdout":"[` + secret + `]\n"`},
		{Tool: "file_shell", Args: map[string]any{"project": "p", "command": []any{"bash", "-lc", "cd n && pwd"}}, Want: `"stdout":"/n\n"`},
		{Tool: "file_shell", Args: map[string]any{"project": "p", "command": "python3 -c 1"}, Want: `"exit_code":127`},
		{Tool: "file_shell", Args: map[string]any{"project": "p", "command": "if then"}, Want: "INVALID_ARGUMENT", IsError: true},
		{Tool: "file_delete", Args: map[string]any{"project": "p", "path": "/n", "recursive": true}, Want: `"deleted":true`},
		{Tool: "file_grep", Args: map[string]any{"project": "p", "pattern": "("}, Want: "INVALID_PATTERN", IsError: true},
		{Tool: "file_rename", Args: map[string]any{"project": "p", "from": "/s.md", "to": "/t.md"}, Want: `"files":1`},
		{Tool: "file_delete", Args: map[string]any{"project": "p", "path": "/t.md"}, Want: `"deleted":true`},
		{Tool: "file_purge_history", Args: map[string]any{"project": "p", "path": ""}, Want: `"versions":7`},
		{Tool: "file_versions", Args: map[string]any{"project": "p", "path": "/s.md"}, Want: "NOT_FOUND", IsError: true},
		{Tool: "file_checkpoint", Args: map[string]any{"project": "p", "label": "turn 1"}, Want: `"checkpoint":"1"`},
		{Tool: "file_write", Args: map[string]any{"project": "p", "path": "/n.md", "content": "new\n"}, Want: `"bytes_written":4`},
		{Tool: "file_changes", Args: map[string]any{"project": "p", "since": "1"}, Want: `"kind":"added"`},
		{Tool: "file_events", Args: map[string]any{"project": "p", "after": 7, "wait_ms": 10}, Want: `"path":"/n.md"`},
		{Tool: "file_rewind", Args: map[string]any{"project": "p", "checkpoint": "1"}, Want: `"total":1`},
		{Tool: "file_checkpoints", Args: map[string]any{"project": "p"}, Want: `"label":"turn 1"`},
		{Tool: "file_checkpoint_delete", Args: map[string]any{"project": "p", "checkpoint": "1"}, Want: `"deleted":true`},
		{Tool: "file_rewind", Args: map[string]any{"project": "p", "checkpoint": "1"}, Want: "NOT_FOUND", IsError: true},
	})
	if strings.Contains(logs.String(), secret) || strings.Contains(logs.String(), apiKey) {
		t.Errorf("binding logs contain content or the key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "file_write") {
		t.Errorf("binding logged nothing: %q", logs.String())
	}
}

// TestErrorsOverHTTP: fileio's errors reach an HTTP client with the status of their kind and
// the retryable flag, and match the agentfiles sentinels where the code is shared.
func TestErrorsOverHTTP(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewHandler(fileioTools(t), httpapi.Options{Authenticator: adapters.BearerAuth(nil)}))
	defer srv.Close()
	post := func(name, body string) (int, adapters.ToolError) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/tools/"+name, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer key-http")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out struct {
			Error adapters.ToolError `json:"error"`
		}
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out.Error
	}
	post("file_write", `{"project":"p","path":"/f","content":"x"}`)
	tests := []struct {
		name, args string
		status     int
		code       string
	}{
		{"file_read", `{"project":"p","path":"/missing"}`, http.StatusNotFound, "NOT_FOUND"},
		{"file_write", `{"project":"p","path":"/f/g","content":"x"}`, http.StatusConflict, "NOT_DIRECTORY"},
		{"file_read", `{"project":"p","path":"/f","offset":-1}`, http.StatusBadRequest, "INVALID_OFFSET"},
		{"file_stat", `{"project":"p","path":"a b"}`, http.StatusBadRequest, "INVALID_PATH"},
		{"file_edit", `{"project":"p","path":"/f","edits":[{"old_str":"nope","new_str":"y"}]}`, http.StatusUnprocessableEntity, "NO_MATCH"},
		{"file_edit", `{"project":"p","path":"/f","edits":[{"old_str":"x","new_str":"y"}],"expected_sha256":"` + strings.Repeat("0", 64) + `"}`, http.StatusConflict, "CONFLICT"},
		{"file_edit", `{"project":"p","path":"/f","insert_text":"y"}`, http.StatusBadRequest, "INVALID_ARGUMENT"},
		{"file_read", `{"project":"p","path":"/f","offset":1,"start_line":1}`, http.StatusBadRequest, "INVALID_ARGUMENT"},
		{"file_rename", `{"project":"p","from":"/missing","to":"/g"}`, http.StatusNotFound, "NOT_FOUND"},
		{"file_restore", `{"project":"p","path":"/f","version":7}`, http.StatusNotFound, "NOT_FOUND"},
		{"file_purge_history", `{"project":"p","path":"a b"}`, http.StatusBadRequest, "INVALID_PATH"},
		{"file_write", `{"project":"p","path":"/f","content":"x","mode":"truncate","offset":1.0}`, http.StatusBadRequest, "INVALID_OFFSET"},
		{"file_grep", `{"project":"p","pattern":"x","path":"/missing"}`, http.StatusNotFound, "NOT_FOUND"},
		{"file_grep", `{"project":"p","pattern":"x","output_mode":"lines"}`, http.StatusBadRequest, "INVALID_ARGUMENT"},
		{"file_grep", `{"project":"p","pattern":"x","cursor":"bogus"}`, http.StatusBadRequest, "INVALID_ARGUMENT"},
		{"file_glob", `{"project":"p","pattern":"[a"}`, http.StatusBadRequest, "INVALID_PATTERN"},
		{"file_glob", `{"project":"p","pattern":"*","path":"/missing"}`, http.StatusNotFound, "NOT_FOUND"},
		{"file_apply_patch", `{"project":"p","patch":"*** Begin Patch\n*** Update File: f\n@@\n-nope\n+y\n*** End Patch"}`, http.StatusUnprocessableEntity, "NO_MATCH"},
		{"file_apply_patch", `{"project":"p","patch":"*** Begin Patch\n*** Add File: f\n+y\n*** End Patch"}`, http.StatusConflict, "ALREADY_EXISTS"},
		{"file_apply_patch", `{"project":"p","patch":"*** Begin Patch\n*** Bogus\n*** End Patch"}`, http.StatusBadRequest, "INVALID_PATCH"},
		{"file_read_many", `{"project":"p"}`, http.StatusBadRequest, "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		status, te := post(tc.name, tc.args)
		if status != tc.status || te.Code != tc.code || te.Retryable || te.Message == "" {
			t.Errorf("%s %s: %d %+v, want %d %s, not retryable", tc.name, tc.args, status, te, tc.status, tc.code)
		}
	}

	// A patch over HTTP changes the file, in its own line endings; file_read_many reads it back.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/tools/file_apply_patch", strings.NewReader(
		`{"project":"p","patch":"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+patched\n"}`))
	req.Header.Set("Authorization", "Bearer key-http")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("file_apply_patch over HTTP: status %d", res.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/tools/file_read_many", strings.NewReader(`{"project":"p","paths":["f"]}`))
	req.Header.Set("Authorization", "Bearer key-http")
	if res, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	var many fileio.ReadManyResult
	json.NewDecoder(res.Body).Decode(&many)
	res.Body.Close()
	if len(many.Files) != 1 || many.Files[0].Content != "patched\n" {
		t.Errorf("file_read_many over HTTP after the patch: %+v", many)
	}

	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice"))
	_, err = adapterstest.CallContext(ctx, t, fileioTools(t), "file_read", `{"project":"p","path":"/missing"}`)
	if !errors.Is(err, agentfiles.ErrNotFound) {
		t.Errorf("file_read of a missing file: %v, want agentfiles.ErrNotFound", err)
	}
}

// TestGrepDescriptionsStateConfig: file_grep and file_glob state the Service's own limits.
func TestGrepDescriptionsStateConfig(t *testing.T) {
	svc := storetest.NewService(t, memstore.New(memstore.Options{}), func(c *fileio.Config) {
		c.GrepLimitDefault, c.GrepLimitMax, c.GrepMaxScanBytes, c.GrepTimeout = 7, 70, 3<<20, 1500*time.Millisecond
		c.ListLimitDefault, c.ListLimitMax = 9, 90
		c.MaxPatchBytes, c.MaxPatchFiles, c.MaxEditWorkBytes, c.MaxReadBytes = 5000, 4, 3<<10, 2<<10
	})
	want := map[string][]string{
		"file_grep":        {"7 entries by default", "clamped to 70", "3 MiB of file content", "1.5s"},
		"file_glob":        {"9 paths by default", "clamped to 90", "1.5s"},
		"file_apply_patch": {"5000 bytes of patch", "4 files per call", "3 KiB of file lines"},
		"file_read_many":   {"up to 4)", "maximum 2 KiB"},
	}
	for _, tool := range fileiotools.Tools(svc) {
		for _, fragment := range want[tool.Name] {
			if !strings.Contains(tool.Description, fragment) {
				t.Errorf("%s description does not state %q: %s", tool.Name, fragment, tool.Description)
			}
		}
	}
}

// TestDescriptionsStateConfig: file_read, file_write and file_list state the Service's own
// limits, and none of the defaults when the configuration changes them.
func TestDescriptionsStateConfig(t *testing.T) {
	svc := storetest.NewService(t, memstore.New(memstore.Options{}), func(c *fileio.Config) {
		c.ReadDefaultLines, c.ReadDefaultBytes, c.MaxReadBytes = 300, 8<<10, 1<<20
		c.MaxPayloadBytes, c.ListLimitDefault, c.ListLimitMax = 512<<10, 9, 90
	})
	want := map[string][]string{
		"file_read":  {"at most 300 lines and 8 KiB", "the maximum (1 MiB)"},
		"file_write": {"over 512 KiB per call"},
		"file_list":  {"9 entries by default (limit, clamped to 90)"},
	}
	defaults := []string{"2000 lines", "256 KiB", "2 MiB", "defaults to 256", "clamped to 1024"}
	for _, tool := range fileiotools.Tools(svc) {
		for _, fragment := range want[tool.Name] {
			if !strings.Contains(tool.Description, fragment) {
				t.Errorf("%s description does not state %q: %s", tool.Name, fragment, tool.Description)
			}
		}
		if want[tool.Name] == nil {
			continue
		}
		for _, d := range defaults {
			if strings.Contains(tool.Description, d) {
				t.Errorf("%s description states the default %q, not the configured limit: %s", tool.Name, d, tool.Description)
			}
		}
	}
}
