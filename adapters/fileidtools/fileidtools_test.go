package fileidtools_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
)

// docsRegistry is the seed's example tree: f1…f7 over three roots.
func docsRegistry(t *testing.T) *fileid.Registry {
	t.Helper()
	tree := []struct {
		label string
		files fstest.MapFS
	}{
		{"/primary", fstest.MapFS{
			"config.md":        {Data: []byte("# Configuration\n\n## Flags\n\nUse -addr.\n")},
			"guide.md":         {Data: []byte("---\ntitle: Guide\n---\nIntro.\n\n# Install\n\n```sh\n# not a heading\n```\n\n## Linux\n\napt install tool\n\n# Use\n")},
			"README.md":        {Data: []byte("# Main Documentation\n")},
			"subdir/README.md": {Data: []byte("# Sub README\n")},
		}},
		{"/secondary", fstest.MapFS{
			"README.md": {Data: []byte("# Main README\n\ninstall plugins\n")},
			"utils.md":  {Data: []byte("# Utils\n")},
		}},
		{"/fallback", fstest.MapFS{"index.md": {Data: []byte("# Index\n")}}},
	}
	var roots []fileid.Root
	for _, r := range tree {
		roots = append(roots, fileid.Root{Label: r.label, FS: r.files})
	}
	reg, err := fileid.New(context.Background(), roots, fileid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestSchemasAndAnnotations(t *testing.T) {
	tools := fileidtools.Tools(docsRegistry(t))
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if !tool.Annotations.ReadOnly || !tool.Annotations.Idempotent || tool.Annotations.Destructive || tool.Annotations.OpenWorld {
			t.Errorf("%s annotations %+v", tool.Name, tool.Annotations)
		}
		if len(tool.Description) < 200 || tool.Title == "" {
			t.Errorf("%s: description too thin", tool.Name)
		}
	}
	if diff := cmp.Diff([]string{"list_documentation_files", "table_of_contents", "read_sections", "search"}, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	required := map[string][]string{
		"list_documentation_files": nil,
		"table_of_contents":        {"fileId"},
		"read_sections":            {"fileId", "section_ids"},
		"search":                   {"query"},
	}
	for _, tool := range tools {
		if diff := cmp.Diff(required[tool.Name], tool.InputSchema.Required); diff != "" {
			t.Errorf("%s required (-want +got):\n%s", tool.Name, diff)
		}
		for name, prop := range tool.InputSchema.Properties {
			if prop.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
	}
	search, _ := adapters.Find(tools, "search")
	for _, p := range []string{"query", "fileId", "case_insensitive"} {
		if _, ok := search.InputSchema.Properties[p]; !ok {
			t.Errorf("search lacks %s", p)
		}
	}
}

func TestDirect(t *testing.T) {
	tools := fileidtools.Tools(docsRegistry(t))

	list, err := adapterstest.Call(t, tools, "list_documentation_files", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	files := list["files"].([]any)
	var got []string
	for _, f := range files {
		m := f.(map[string]any)
		got = append(got, m["fileId"].(string)+" "+m["sourceDirectory"].(string)+" "+m["filename"].(string))
	}
	want := []string{"f1 /primary config.md", "f2 /primary guide.md", "f3 /primary README.md", "f4 /primary subdir/README.md",
		"f5 /secondary README.md", "f6 /secondary utils.md", "f7 /fallback index.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}

	toc, err := adapterstest.Call(t, tools, "table_of_contents", `{"fileId": "f2"}`)
	if err != nil {
		t.Fatal(err)
	}
	if toc["fileId"] != "f2" || toc["filename"] != "guide.md" || len(toc["toc"].([]any)) != 4 {
		t.Errorf("toc: %v", toc)
	}
	sub, err := adapterstest.Call(t, tools, "table_of_contents", `{"fileId": "f2", "section": "1", "max_depth": 1}`)
	if err != nil || len(sub["toc"].([]any)) != 1 || sub["toc"].([]any)[0].(map[string]any)["hidden_subsections"] != 1.0 {
		t.Errorf("subtree toc: %v %v", sub, err)
	}

	secs, err := adapterstest.Call(t, tools, "read_sections", `{"fileId": "f2", "section_ids": ["1/1", "5"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if secs["fileId"] != "f2" || secs["filename"] != "guide.md" {
		t.Errorf("read_sections names: %v", secs)
	}
	if c := secs["sections"].([]any)[0].(map[string]any)["content"]; c != "## Linux\n\napt install tool\n\n" {
		t.Errorf("section content %q", c)
	}
	if e := secs["errors"].([]any)[0].(map[string]any); e["code"] != "SECTION_NOT_FOUND" || e["section_id"] != "5" {
		t.Errorf("section error %v", e)
	}

	res, err := adapterstest.Call(t, tools, "search", `{"query": "INSTALL", "case_insensitive": true}`)
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, r := range res["results"].([]any) {
		fm := r.(map[string]any)
		for _, m := range fm["matches"].([]any) {
			mm := m.(map[string]any)
			hits = append(hits, fm["fileId"].(string)+" "+fm["filename"].(string)+" "+mm["section_id"].(string))
		}
	}
	if diff := cmp.Diff([]string{"f2 guide.md 1", "f2 guide.md 1/1", "f5 README.md 1"}, hits); diff != "" {
		t.Errorf("search hits (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	tools := fileidtools.Tools(docsRegistry(t))
	tests := []struct {
		tool, args string
		code       agentfiles.Code
	}{
		{"table_of_contents", `{"fileId": "README.md"}`, fileid.CodeInvalidFileID},
		{"table_of_contents", `{"fileId": "f99"}`, fileid.CodeFileIDNotFound},
		{"table_of_contents", `{}`, agentfiles.CodeInvalidArgument},
		{"table_of_contents", `{"fileId": "f1", "section": "9"}`, fileid.CodeSectionNotFound},
		{"read_sections", `{"fileId": "f1", "section_ids": ["7", "8"]}`, fileid.CodeSectionNotFound},
		{"read_sections", `{"fileId": "f1", "section_ids": []}`, agentfiles.CodeInvalidArgument},
		{"read_sections", `{"fileId": "f1", "section_ids": [1]}`, agentfiles.CodeInvalidArgument},
		{"search", `{"query": ""}`, agentfiles.CodeInvalidQuery},
		{"search", `{"query": "a(b"}`, agentfiles.CodeInvalidPattern},
		{"search", `{"query": "x", "fileId": "f0"}`, fileid.CodeInvalidFileID},
		{"search", `{"query": "x", "unknown": 1}`, agentfiles.CodeInvalidArgument},
		{"list_documentation_files", `[]`, agentfiles.CodeInvalidArgument},
	}
	for _, tt := range tests {
		_, err := adapterstest.Call(t, tools, tt.tool, tt.args)
		te, internal := adapters.ErrorOf(err)
		if err == nil || internal || te.Code != tt.code.String() {
			t.Errorf("%s %s: %v (code %q), want %s", tt.tool, tt.args, err, te.Code, tt.code)
		}
		if tt.code == fileid.CodeInvalidFileID || tt.code == fileid.CodeFileIDNotFound {
			if !strings.Contains(te.Message, "list_documentation_files") {
				t.Errorf("%s: message %q lacks the hint", tt.args, te.Message)
			}
		}
	}
	// Huge requests are clamped, not rejected.
	res, err := adapterstest.Call(t, tools, "search", `{"query": "i", "max_matches": 1000000000}`)
	if err != nil || !strings.Contains(res["note"].(string), "clamped") {
		t.Errorf("clamped search: %v %v", res, err)
	}
	// Errors are *agentfiles.Error: errors.Is matches fileid's sentinels and, for the shared
	// codes, agentfiles' own.
	_, err = adapterstest.Call(t, tools, "search", `{"query": "("}`)
	var ae *agentfiles.Error
	if !errors.As(err, &ae) || ae.Code != agentfiles.CodeInvalidPattern || !errors.Is(err, agentfiles.ErrInvalidPattern) {
		t.Errorf("errors.As: %v", err)
	}
	_, err = adapterstest.Call(t, tools, "search", `{"query": ""}`)
	if !errors.Is(err, agentfiles.ErrInvalidQuery) || errors.Is(err, agentfiles.ErrInvalidPattern) {
		t.Errorf("empty query: %v, want agentfiles.ErrInvalidQuery", err)
	}
}

// TestOverMCP drives the tools with the SDK client over the in-memory transport.
func TestOverMCP(t *testing.T) {
	cs := adapterstest.Connect(t, fileidtools.Tools(docsRegistry(t)), mcpsdk.Options{})
	if names := mcptest.ToolNames(t, cs); len(names) != 4 {
		t.Fatalf("tools: %v", names)
	}
	mcptest.Script(t, cs, []mcptest.Exchange{
		{Tool: "list_documentation_files", Args: map[string]any{}, Want: `"fileId":"f7"`},
		{Tool: "table_of_contents", Args: map[string]any{"fileId": "f1"}, Want: `"title":"Flags"`},
		{Tool: "read_sections", Args: map[string]any{"fileId": "f1", "section_ids": []string{"1/1"}}, Want: `Use -addr.`},
		{Tool: "search", Args: map[string]any{"query": "README"}, Want: `"fileId":"f5"`},
		{Tool: "table_of_contents", Args: map[string]any{"fileId": "x1"}, Want: "INVALID_FILE_ID", IsError: true},
	})
}

// TestOverHTTP checks the status table for the fileid codes.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(httpapi.NewHandler(fileidtools.Tools(docsRegistry(t)), httpapi.Options{}))
	defer srv.Close()
	for _, c := range []struct {
		tool, body string
		status     int
	}{
		{"search", `{"query": "Install"}`, http.StatusOK},
		{"table_of_contents", `{"fileId": "f99"}`, http.StatusNotFound},
		{"table_of_contents", `{"fileId": "nope"}`, http.StatusBadRequest},
		{"search", `{"query": "("}`, http.StatusBadRequest},
		{"read_sections", `{"fileId": "f1", "section_ids": ["42"]}`, http.StatusNotFound},
	} {
		resp, err := http.Post(srv.URL+"/tools/"+c.tool, "application/json", bytes.NewBufferString(c.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: status %d, want %d", c.tool, c.body, resp.StatusCode, c.status)
		}
	}
}
