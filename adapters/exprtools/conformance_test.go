package exprtools_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/expr"
)

// TestConformance runs the conformance suite on the guide tools, writable so that every tool
// is there.
func TestConformance(t *testing.T) {
	cat, _ := testCatalog(t)
	adapterstest.TestToolSet(t, exprtools.Tools(cat, exprtools.Options{}), adapterstest.Options{
		Codes: expr.Codes(),
		Calls: []adapterstest.ToolCall{
			{Tool: "get_content", Args: `{"expression": "lang,docs/api"}`},
			{Tool: "get_content", Args: `{"expression": "lang", "max_bytes": 8}`},
			{Tool: "get_collection_content", Args: `{"collection": "onboarding"}`},
			{Tool: "category_list", Args: `{}`},
			{Tool: "collection_list", Args: `{}`},
			{Tool: "category_add", Args: `{"name": "more", "dir": "docs"}`},
			{Tool: "category_update", Args: `{"name": "more", "description": "again"}`},
			{Tool: "collection_add", Args: `{"name": "set", "categories": ["more"]}`},
			{Tool: "collection_update", Args: `{"name": "set", "description": "d"}`},
			{Tool: "collection_remove", Args: `{"name": "set"}`},
			{Tool: "category_remove", Args: `{"name": "more"}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "get_content", Args: `{"expression": "nosuch"}`},
			{Tool: "get_content", Args: `{"expression": "lang/[a"}`},
			{Tool: "get_collection_content", Args: `{"collection": "nosuch"}`},
			{Tool: "category_add", Args: `{"name": "bad name", "dir": "docs"}`},
			{Tool: "category_update", Args: `{"name": "nosuch"}`},
			{Tool: "category_remove", Args: `{"name": "docs"}`},
			{Tool: "collection_add", Args: `{"name": "x", "expression": "nosuch"}`},
			{Tool: "collection_update", Args: `{"name": "nosuch"}`},
			{Tool: "collection_remove", Args: `{"name": "nosuch"}`},
		},
		Describe: map[string][]string{
			"get_content": {"256 KiB by default", "up to 4 MiB"},
		},
	})
}
