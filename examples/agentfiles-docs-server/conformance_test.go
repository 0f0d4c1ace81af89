package main

import (
	"context"
	"io"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/fileid"
)

// TestConformance runs the conformance suite on the tool set the command serves, with a
// -max-toc-depth that is not the default.
func TestConformance(t *testing.T) {
	args := append(dirArgs(docsDirs(t)), "-max-toc-depth", "5", "-log-level", "off")
	tools, _, err := build(context.Background(), mcpcmd.New("agentfiles-docs-server", io.Discard), args)
	if err != nil {
		t.Fatal(err)
	}
	adapterstest.TestToolSet(t, tools, adapterstest.Options{
		Codes: fileid.Codes(),
		Calls: []adapterstest.ToolCall{
			{Tool: "list_documentation_files", Args: `{"max_files": 2}`},
			{Tool: "table_of_contents", Args: `{"fileId": "f2", "max_entries": 1}`},
			{Tool: "read_sections", Args: `{"fileId": "f2", "section_ids": ["1"], "max_bytes": 10}`},
			{Tool: "search", Args: `{"query": "README", "max_matches": 1}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "table_of_contents", Args: `{"fileId": "f99"}`},
			{Tool: "search", Args: `{"query": "("}`},
		},
		Describe:    map[string][]string{"table_of_contents": {"Shows 5 levels by default"}},
		NotDescribe: map[string][]string{"table_of_contents": {"Shows 3 levels"}},
	})
}
