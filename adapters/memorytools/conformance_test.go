package memorytools_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/fileio"
)

// TestConformance runs the conformance suite on the memory tool: every command, and the
// documented failures.
func TestConformance(t *testing.T) {
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-m", "m"))
	adapterstest.TestToolSet(t, memoryTools(t), adapterstest.Options{
		Codes:   fileio.Codes(),
		Context: ctx,
		Calls: []adapterstest.ToolCall{
			{Tool: "memory", Args: `{"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\n"}`},
			{Tool: "memory", Args: `{"command": "view", "path": "/memories"}`},
			{Tool: "memory", Args: `{"command": "view", "path": "/memories/a.md", "view_range": [1, -1]}`},
			{Tool: "memory", Args: `{"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "1"}`},
			{Tool: "memory", Args: `{"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "zero"}`},
			{Tool: "memory", Args: `{"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}`},
			{Tool: "memory", Args: `{"command": "delete", "path": "/memories/b.md"}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "memory", Args: `{"command": "view", "path": "/elsewhere"}`},
			{Tool: "memory", Args: `{"command": "view", "path": "/memories/missing.md"}`},
			{Tool: "memory", Args: `{"command": "fly", "path": "/memories"}`},
			{Tool: "memory", Args: `{"command": "str_replace", "path": "/memories/missing.md", "old_str": "a", "new_str": "b"}`},
		},
	})
}
