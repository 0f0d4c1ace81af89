package main

import (
	"io"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/examples/internal/mcpcmd"
	"github.com/agentfiles/agentfiles/expr"
)

// TestConformance runs the conformance suite on the tool sets the command serves: the bundled
// catalog read-only, and a catalog of one's own writable.
func TestConformance(t *testing.T) {
	for _, args := range [][]string{{}, {"-catalog", copyExample(t), "-catalog-writable"}} {
		tools, _, cleanup, err := build(mcpcmd.New("agentfiles-guide-server", io.Discard), append(args, "-log-level", "off"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cleanup)
		opts := adapterstest.Options{
			Codes: expr.Codes(),
			Calls: []adapterstest.ToolCall{
				{Tool: "get_content", Args: `{"expression": "onboarding", "max_bytes": 64}`},
				{Tool: "category_list", Args: `{}`},
				{Tool: "collection_list", Args: `{}`},
			},
			BadCalls: []adapterstest.ToolCall{
				{Tool: "get_content", Args: `{"expression": "nosuch"}`},
				{Tool: "get_collection_content", Args: `{"collection": "nosuch"}`},
			},
		}
		if len(args) > 0 {
			opts.Calls = append(opts.Calls, adapterstest.ToolCall{Tool: "collection_add", Args: `{"name": "reviewers", "categories": ["guidelines/review"]}`})
			opts.BadCalls = append(opts.BadCalls, adapterstest.ToolCall{Tool: "category_add", Args: `{"name": "etc", "dir": "/etc"}`})
		}
		adapterstest.TestToolSet(t, tools, opts)
	}
}
