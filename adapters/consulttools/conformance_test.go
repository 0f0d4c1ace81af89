package consulttools_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/filecontext"
)

// TestConformance runs the conformance suite on the consultation tool, answering from a local
// chat-completions server.
func TestConformance(t *testing.T) {
	tools, dir, _ := fixture(t)
	files := strconv.Quote(filepath.Join(dir, "*.py"))
	adapterstest.TestToolSet(t, tools, adapterstest.Options{
		Codes: append(consult.Codes(), filecontext.Codes()...),
		Calls: []adapterstest.ToolCall{
			{Tool: "consultation", Args: `{"files": [` + files + `], "query": "what do they print?"}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "consultation", Args: `{"files": [` + files + `], "query": "q", "model": "nosuch"}`},
			{Tool: "consultation", Args: `{"files": ["relative/*.py"], "query": "q"}`},
			{Tool: "consultation", Args: `{"files": [` + files + `], "query": ""}`},
		},
		Describe: map[string][]string{"consultation": {"Models: m1, m2 (default m1)"}},
	})
}
