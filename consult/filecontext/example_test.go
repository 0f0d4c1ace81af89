package filecontext_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/consult/filecontext"
)

// A host loop: the Context keeps the conversation; each turn the model asks for files with
// a read_files tool call, the host records the call and lets the context answer it, then sends
// the exported request (with the cache breakpoint on the last message) to the provider.
func ExampleContext() {
	ctx := context.Background()
	repo := fstest.MapFS{ // any FileSource works; OSFileSource is the default
		"repo/README.md": {Data: []byte("# Demo\nA tiny project.\n")},
		"repo/main.go":   {Data: []byte("package main\n\nfunc main() { println(add(1, 2)) }\n")},
		"repo/add.go":    {Data: []byte("package main\n\nfunc add(a, b int) int { return a + b }\n")},
	}
	fc, err := filecontext.New(ctx, []string{"/repo/README.md"}, filecontext.Options{
		Instructions: "You answer questions about the repository.",
		Source:       filecontext.FSFileSource{FS: repo},
	})
	if err != nil {
		log.Fatal(err)
	}
	prompt := fc.SystemPrompt()

	// What a scripted model asks for, turn by turn.
	asks := [][]string{
		{"/repo/main.go"},
		{"/repo/add.go", "/repo/main.go"},
		{"/repo/README.md", "/repo/gone.go"},
	}
	for i, paths := range asks {
		_ = fc.Append(filecontext.Message{Role: filecontext.RoleUser, Text: fmt.Sprintf("question %d", i+1)})
		input, _ := json.Marshal(filecontext.ReadFilesInput{Paths: paths})
		call := filecontext.ToolCall{ID: fmt.Sprintf("toolu_%d", i+1), Name: filecontext.ReadFilesToolName, Input: input}
		_ = fc.Append(filecontext.Message{Role: filecontext.RoleAssistant, ToolCalls: []filecontext.ToolCall{call}})
		res, err := fc.AnswerReadFiles(ctx, call)
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range res.Files {
			fmt.Printf("turn %d: %-16s %s\n", i+1, f.Path, f.Status)
		}
	}

	req := fc.ExportAnthropic() // marshal it into your POST /v1/messages body
	last := req.Messages[len(req.Messages)-1]
	fmt.Println("breakpoint:", last.Content[len(last.Content)-1].Type, last.Content[len(last.Content)-1].CacheControl.Type)
	fmt.Println("system prompt unchanged:", fc.SystemPrompt() == prompt)
	fmt.Printf("file tokens: %d of %d\n", fc.Usage().TotalTokens, fc.Usage().BudgetTokens)
	// Output:
	// turn 1: /repo/main.go    sent
	// turn 2: /repo/add.go     sent
	// turn 2: /repo/main.go    already_in_context
	// turn 3: /repo/README.md  in_system_prompt
	// turn 3: /repo/gone.go    not_found
	// breakpoint: tool_result ephemeral
	// system prompt unchanged: true
	// file tokens: 33 of 100000
}

// A host that owns its message list computes each update with the pure PlanReadFiles and
// applies it to its own slice.
func ExamplePlanReadFiles() {
	opts := filecontext.Options{BudgetTokens: 20, MaxFileBudgetPercent: 100}
	history := []filecontext.Message{
		{Role: filecontext.RoleUser, Text: "read a and b"},
		{Role: filecontext.RoleAssistant, ToolCalls: []filecontext.ToolCall{{ID: "c1", Name: "read_files", Input: json.RawMessage(`{"paths":["/a","/b"]}`)}}},
	}
	// The host read the files itself (or called filecontext.ReadForContext).
	reads := []filecontext.FileRead{{Path: "/a", Content: "0123456789012345678901234567890123456789"}, {Path: "/b", Content: "short"}}
	plan, err := filecontext.PlanReadFiles(history, nil, filecontext.ReadFilesRequest{CallID: "c1", Reads: reads}, opts)
	if err != nil {
		log.Fatal(err)
	}
	history = plan.Apply(history)

	history = append(history, filecontext.Message{Role: filecontext.RoleAssistant, ToolCalls: []filecontext.ToolCall{
		{ID: "c2", Name: "read_files", Input: json.RawMessage(`{"paths":["/c"]}`)}}})
	reads = []filecontext.FileRead{{Path: "/c", Content: "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"}}
	plan, err = filecontext.PlanReadFiles(history, nil, filecontext.ReadFilesRequest{CallID: "c2", Reads: reads}, opts)
	if err != nil {
		log.Fatal(err)
	}
	history = plan.Apply(history)
	// /c does not fit beside /a and /b: a reset. /b would fit again, but a reset re-sends earlier
	// files only up to RefillPercent (default 50%) of the budget; the rest is headroom for the
	// next turns.
	fmt.Println("reset:", plan.Reset, "edits:", len(plan.Edits))
	fmt.Println(history[2].ReadFiles.JSON())
	for _, f := range plan.Result.Files {
		fmt.Println(f.Path, f.Status, f.Tokens)
	}
	fmt.Printf("tokens: %d of %d\n", plan.Usage.TotalTokens, plan.Usage.BudgetTokens)
	// Output:
	// reset: true edits: 1
	// {"type":"read_files","files":[{"path":"/a","truncated":true},{"path":"/b","truncated":true}]}
	// /c sent 13
	// /a dropped 10
	// /b dropped 2
	// tokens: 13 of 20
}
