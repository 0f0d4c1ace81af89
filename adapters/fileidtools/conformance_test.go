package fileidtools_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/fileid"
)

// TestConformance runs the conformance suite on the documentation tools, over a registry whose
// default TOC depth is not the package default and a tree large enough to page every listing.
func TestConformance(t *testing.T) {
	deep, err := fileid.New(context.Background(), []fileid.Root{{Label: "d", FS: pagingFS()}}, fileid.Options{MaxTOCDepth: 5})
	if err != nil {
		t.Fatal(err)
	}
	adapterstest.TestToolSet(t, fileidtools.Tools(deep), adapterstest.Options{
		Codes: fileid.Codes(),
		Calls: []adapterstest.ToolCall{
			{Tool: "list_documentation_files", Args: `{"max_files": 2}`},
			{Tool: "table_of_contents", Args: `{"fileId": "f1", "max_entries": 2}`},
			{Tool: "read_sections", Args: `{"fileId": "f1", "section_ids": ["1"], "max_bytes": 100}`},
			{Tool: "read_sections", Args: `{"fileId": "f1", "section_ids": ["1"], "max_bytes": 100, "offset": 100}`},
			{Tool: "search", Args: `{"query": "note", "max_matches": 2}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "table_of_contents", Args: `{"fileId": "x1"}`},
			{Tool: "table_of_contents", Args: `{"fileId": "f1", "section": "99"}`},
			{Tool: "read_sections", Args: `{"fileId": "f9999", "section_ids": ["1"]}`},
			{Tool: "search", Args: `{"query": "("}`},
			{Tool: "search", Args: `{"query": ""}`},
		},
		Describe: map[string][]string{
			"table_of_contents": {"Shows 5 levels by default"},
		},
		NotDescribe: map[string][]string{
			"table_of_contents": {"Shows 3 levels"},
		},
	})
}
