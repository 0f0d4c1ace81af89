package filecontext

import (
	"encoding/json"
	"testing"

	"github.com/agentfiles/agentfiles/consult"
)

// FuzzParseReadFilesResult feeds arbitrary tool-result text to the parser: it must never panic,
// accept only read_files results, and round-trip what it accepts.
func FuzzParseReadFilesResult(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `null`, `"read_files"`, `{"type":"read_files"}`,
		`{"type":"read_files","files":[]}`,
		`{"type":"read_files","files":[{"path":"/a","content":"x"}]}`,
		`{"type":"read_files","files":[{"path":"/a","truncated":true}]}`,
		`{"type":"read_files","files":[{"path":"/a","content":"x","status":"sent","tokens":-5}]}`,
		`{"type":"read_files","files":[{"path":"","content":"\u0000"}],"reset":true,"note":"n"}`,
		`  {"type":"grep","files":[{"path":"/a","content":"x"}]}`,
		`{"type":"read_files","files":{"path":"/a"}}`,
		`{"type":"read_files","files":[{"path":"/a","tokens":1e99}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, ok := ParseReadFilesResult(text)
		if !ok {
			return
		}
		if r.Type != ReadFilesToolName {
			t.Fatalf("accepted type %q", r.Type)
		}
		again, ok := ParseReadFilesResult(r.JSON())
		if !ok {
			t.Fatalf("its own JSON does not parse: %s", r.JSON())
		}
		if a, b := r.JSON(), again.JSON(); a != b {
			t.Fatalf("round trip changed the result:\n%s\n%s", a, b)
		}
	})
}

// FuzzPlanReadFiles plans a read against a history holding an arbitrary tool result: whatever
// the history says, the plan must keep the total within the budget (the base is empty) and
// the applied history must hold exactly the tokens the plan reports.
func FuzzPlanReadFiles(f *testing.F) {
	f.Add(`{"type":"read_files","files":[{"path":"/a","content":"0123456789012345678901234567890123456789"}]}`, "/b", "0123456789abcdef")
	f.Add(`{"type":"read_files","files":[{"path":"/a","content":"x","tokens":90},{"path":"/b","content":"y","status":"restored"}]}`, "/a", "x")
	f.Add(`{"type":"read_files","files":[{"path":"/a","truncated":true},{"path":"/a","content":"x","status":"updated"}]}`, "/a", "y")
	f.Add(`not json`, "", "")
	f.Add(`{"type":"read_files","files":[{"path":"/b","content":"\u0000"}]}`, "/b/../b", "z")
	f.Fuzz(func(t *testing.T, toolResult, path, content string) {
		opts := Options{BudgetTokens: 100, MaxFileBudgetPercent: 100}
		history := []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: ReadFilesToolName}}},
			{Role: RoleTool, ToolCallID: "c1", Text: toolResult},
		}
		reads := []FileRead{{Path: path, Content: content}}
		plan, err := PlanReadFiles(history, nil, ReadFilesRequest{CallID: "c2", Reads: reads}, opts)
		if err != nil {
			t.Fatal(err)
		}
		next := plan.Apply(history)
		got := parseContext(next, consult.EstimateCounter{}).contentTokens
		if got != plan.Usage.MessageTokens {
			t.Fatalf("applied history holds %d tokens, the plan says %d", got, plan.Usage.MessageTokens)
		}
		if plan.Reset && got > opts.BudgetTokens {
			t.Fatalf("after a reset %d tokens exceed the budget", got)
		}
		if !plan.Reset && got > opts.BudgetTokens {
			t.Fatalf("%d tokens exceed the budget without a reset", got)
		}
		if _, err := json.Marshal(AnthropicFromHistory("s", next)); err != nil {
			t.Fatal(err)
		}
	})
}
