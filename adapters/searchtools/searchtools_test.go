package searchtools_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/adapters/searchtools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
	"github.com/google/go-cmp/cmp"
)

func searchEnv(t *testing.T) (*indextest.Env, []adapters.Tool) {
	t.Helper()
	e := indextest.NewEnv(t, memindex.New(), indextest.EnvOptions{})
	ctx := indextest.Ctx("key-a")
	e.Write(ctx, "p", "/docs/retry.md", "Retries use exponential backoff with jitter.\n\nThe delay doubles each time.")
	e.Write(ctx, "p", "/docs-old/auth.md", "Tokens are bearer tokens hashed with SHA-256.")
	e.Write(ctx, "p", "/src/main.go", "package main // no relevant words here")
	e.Drain()
	return e, searchtools.Tools(e.Searcher)
}

func TestSearchToolDirect(t *testing.T) {
	e, tools := searchEnv(t)
	tool, ok := adapters.Find(tools, "file_search")
	if !ok {
		t.Fatal("no file_search tool")
	}
	if diff := cmp.Diff(adapters.Annotations{ReadOnly: true, Idempotent: true}, tool.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	ctx := indextest.Ctx("key-a")
	tests := []struct {
		args      string
		code      string
		firstPath string
		limit     float64
		clamped   bool
	}{
		{`{"project":"p","query":"exponential backoff"}`, "", "/docs/retry.md", 5, false},
		{`{"project":"p","query":"bearer token","path_prefix":"/docs"}`, "", "/docs-old/auth.md", 5, false},
		{`{"project":"p","query":"backoff","limit":99}`, "", "/docs/retry.md", 20, true},
		{`{"project":"p","query":"   "}`, "INVALID_QUERY", "", 0, false},
		{`{"project":"p"}`, "INVALID_ARGUMENT", "", 0, false}, // query is required
		{`{"project":"p","query":"x","extra":1}`, "INVALID_ARGUMENT", "", 0, false},
	}
	for _, tc := range tests {
		m, err := adapterstest.CallContext(ctx, t, tools, "file_search", tc.args)
		if tc.code != "" {
			if te, _ := adapters.ErrorOf(err); te.Code != tc.code {
				t.Errorf("%s: code %q, want %q (err %v)", tc.args, te.Code, tc.code, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		chunks, _ := m["chunks"].([]any)
		if len(chunks) == 0 {
			t.Fatalf("%s: no chunks: %v", tc.args, m)
		}
		first := chunks[0].(map[string]any)
		if first["file_path"] != tc.firstPath || m["limit"] != tc.limit || (m["limit_clamped"] == true) != tc.clamped {
			t.Errorf("%s: got %v", tc.args, m)
		}
		// The byte range reads back as the chunk.
		start, end := int64(first["file_seek_start_bytes"].(float64)), int64(first["file_seek_end_bytes"].(float64))
		r, err := e.Service.Read(ctx, fileio.ReadRequest{Project: "p", Path: tc.firstPath, OffsetBytes: start, LengthBytes: new(int64(end - start))})
		if err != nil || r.Content != first["chunk_content"] {
			t.Errorf("%s: read back %q, %v", tc.args, r.Content, err)
		}
	}
	// Another tenant sees nothing of key-a's project.
	m, err := adapterstest.CallContext(indextest.Ctx("key-b"), t, tools, "file_search", `{"project":"p","query":"backoff"}`)
	if err != nil {
		t.Fatal(err)
	}
	if chunks := m["chunks"].([]any); len(chunks) != 0 {
		t.Errorf("tenant B saw %d chunks", len(chunks))
	}
	// No identity: PERMISSION_DENIED, the shared code.
	_, err = adapterstest.Call(t, tools, "file_search", `{"project":"p","query":"backoff"}`)
	if te, _ := adapters.ErrorOf(err); te.Code != "PERMISSION_DENIED" || te.Retryable || !errors.Is(err, agentfiles.ErrPermissionDenied) {
		t.Errorf("anonymous call: %v (%+v)", err, te)
	}
}

func TestSearchToolMCP(t *testing.T) {
	_, tools := searchEnv(t)
	ac := agentfiles.NewAuthContext("key-a", "alice")
	cs := adapterstest.Connect(t, tools, mcpsdk.Options{Auth: &ac})
	res, text := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": "jitter delay"})
	if res.IsError {
		t.Fatalf("tool error: %s", text)
	}
	var out struct {
		Chunks []struct {
			FilePath string `json:"file_path"`
		} `json:"chunks"`
		Ranking string `json:"ranking"`
	}
	mcptest.Decode(t, res, &out)
	if len(out.Chunks) == 0 || out.Chunks[0].FilePath != "/docs/retry.md" || out.Ranking != "fused" {
		t.Errorf("structured result %+v", out)
	}
	for glob, want := range map[string]int{"**/*.md": 1, "*.nothing": 0} {
		res, _ := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": "jitter delay", "glob": glob, "limit": 1})
		var got struct {
			Chunks []any `json:"chunks"`
		}
		mcptest.Decode(t, res, &got)
		if res.IsError || len(got.Chunks) != want {
			t.Errorf("glob %q: %d chunks (isError %v), want %d", glob, len(got.Chunks), res.IsError, want)
		}
	}
	if res, _ := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": "jitter delay", "glob": "[a"}); !res.IsError {
		t.Errorf("bad glob: want isError, got %+v", res)
	}
	if res, _ := mcptest.CallTool(t, cs, "file_search", map[string]any{"project": "p", "query": ""}); !res.IsError {
		t.Errorf("blank query: want isError, got %+v", res)
	}
}

// TestSearchToolSchema pins the wire form agents see: argument names, which are required, and
// the result's fields.
func TestSearchToolSchema(t *testing.T) {
	_, tools := searchEnv(t)
	tool, _ := adapters.Find(tools, "file_search")
	if diff := cmp.Diff([]string{"project", "query"}, tool.InputSchema.Required); diff != "" {
		t.Errorf("required arguments (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"glob", "limit", "min_semantic_score", "path_prefix", "project", "query"}, slices.Sorted(maps.Keys(tool.InputSchema.Properties))); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"chunks", "limit", "limit_clamped", "note", "qualified", "ranking", "truncated"}, slices.Sorted(maps.Keys(tool.OutputSchema.Properties))); diff != "" {
		t.Errorf("result fields (-want +got):\n%s", diff)
	}
}

// TestSearchToolMinSemanticScore: a word found nowhere returns no chunk, says so, and counts
// what qualified; min_semantic_score loosens or tightens that per call.
func TestSearchToolMinSemanticScore(t *testing.T) {
	_, tools := searchEnv(t)
	ctx := indextest.Ctx("key-a")
	call := func(args string) map[string]any {
		t.Helper()
		m, err := adapterstest.CallContext(ctx, t, tools, "file_search", args)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		return m
	}
	m := call(`{"project":"p","query":"milk"}`)
	if chunks, _ := m["chunks"].([]any); len(chunks) != 0 || m["qualified"] != 0.0 || m["note"] == "" {
		t.Errorf("milk: %v", m)
	}
	m = call(`{"project":"p","query":"milk","min_semantic_score":-1}`)
	if chunks, _ := m["chunks"].([]any); len(chunks) != 3 || m["qualified"] != 3.0 {
		t.Errorf("milk, every candidate: %v", m)
	}
	m = call(`{"project":"p","query":"exponential backoff","min_semantic_score":2}`)
	if chunks, _ := m["chunks"].([]any); len(chunks) != 1 || m["qualified"] != 1.0 || m["truncated"] != false {
		t.Errorf("keyword matches only: %v", m)
	}
	if _, err := adapterstest.CallContext(ctx, t, tools, "file_search", `{"project":"p","query":"milk","min_semantic_score":"high"}`); err == nil {
		t.Error("a string min_semantic_score was accepted")
	} else if te, _ := adapters.ErrorOf(err); te.Code != "INVALID_ARGUMENT" {
		t.Errorf("string min_semantic_score: %v", err)
	}
}

// A query that matches nothing says why: the project holds no files (a wrong name, or nothing
// written yet), or no chunk matches (other words may).
func TestSearchToolNoMatchNotes(t *testing.T) {
	_, tools := searchEnv(t)
	ctx := indextest.Ctx("key-a")
	tests := []struct{ args, want string }{
		{`{"project":"no-such-project","query":"backoff"}`, `this project holds no files, so no query can match: check the project name (project "*" searches every project of yours), or write files with file_write first`},
		{`{"project":"p","query":"zebra"}`, "no chunk contains a word of the query or is close enough in meaning; try other words"},
	}
	for _, tc := range tests {
		m, err := adapterstest.CallContext(ctx, t, tools, "file_search", tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.want, m["note"]); diff != "" {
			t.Errorf("%s: note (-want +got):\n%s", tc.args, diff)
		}
	}
}
