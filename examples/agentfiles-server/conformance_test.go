package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/filecontext"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/fileid"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/memindex"
)

// TestConformance runs the conformance suite on the server's whole tool set, built from a
// configuration file that changes the limits the descriptions state.
func TestConformance(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte(`settings:
  mcp:
    files:
      max_payload_bytes: 3145728
      max_read_bytes: 5120
      list_limit_default: 2
      list_limit_max: 7
      search:
        limit_default: 3
        limit_max: 9
`), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := newTestApp(t, "-config", config)
	if err != nil {
		t.Fatal(err)
	}
	var codes []agentfiles.Code
	for _, c := range [][]agentfiles.Code{fileio.Codes(), search.Codes(), memindex.Codes(), fileid.Codes(), expr.Codes(), consult.Codes(), filecontext.Codes()} {
		codes = append(codes, c...)
	}
	p := `"project": "p"`
	adapterstest.TestToolSet(t, a.tools, adapterstest.Options{
		Codes:   codes,
		Context: agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice")),
		Calls: []adapterstest.ToolCall{
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/1.md", "content": "one TODO\ntwo TODO\n"}`},
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/2.md", "content": "TODO\n"}`},
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/3.md", "content": "TODO\n"}`},
			{Tool: "file_read", Args: `{` + p + `, "path": "/a/1.md", "length": 4}`},
			{Tool: "file_list", Args: `{` + p + `, "path": "/a"}`},
			{Tool: "file_grep", Args: `{` + p + `, "pattern": "TODO", "limit": 1}`},
			{Tool: "file_glob", Args: `{` + p + `, "pattern": "**/*.md", "limit": 1}`},
			{Tool: "file_search", Args: `{` + p + `, "query": "TODO", "limit": 1}`},
			{Tool: "memory", Args: `{"command": "view", "path": "/memories"}`},
			{Tool: "docs_list_documentation_files", Args: `{"max_files": 1}`},
			{Tool: "docs_table_of_contents", Args: `{"fileId": "f1", "max_entries": 1}`},
			{Tool: "docs_search", Args: `{"query": "file", "max_matches": 1}`},
			{Tool: "category_list", Args: `{}`},
			{Tool: "collection_list", Args: `{}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "file_grep", Args: `{` + p + `, "pattern": "("}`},
			{Tool: "file_search", Args: `{` + p + `, "query": " "}`},
			{Tool: "docs_search", Args: `{"query": "("}`},
			{Tool: "docs_search", Args: `{"query": ""}`},
			{Tool: "get_content", Args: `{"expression": "nosuch"}`},
			{Tool: "consultation", Args: `{"files": ["/a/*.md"], "query": "q"}`},
		},
		Describe: map[string][]string{
			"file_write":  {"PAYLOAD_TOO_LARGE over 3 MiB"},
			"file_read":   {"5 KiB"},
			"file_list":   {"2 entries by default", "clamped to 7"},
			"file_glob":   {"2 paths by default", "clamped to 7"},
			"file_search": {"limit defaults to 3, at most 9"},
		},
		NotDescribe: map[string][]string{
			"file_write":  {"2 MiB"},
			"file_read":   {"2 MiB"},
			"file_list":   {"256", "1024"},
			"file_search": {"defaults to 5", "at most 20"},
		},
	})
}
