package chatwire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/consult/filecontext"
	"github.com/agentfiles/agentfiles/consult/filecontext/chatwire"
)

// A host's own request body embeds the exported conversation and adds what is its business.
func ExampleAnthropicMessages() {
	ctx := context.Background()
	fc, err := filecontext.New(ctx, nil, filecontext.Options{
		Instructions: "Answer briefly.",
		Source:       filecontext.FSFileSource{FS: fstest.MapFS{"a.txt": {Data: []byte("hello\n")}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = fc.Append(filecontext.Message{Role: filecontext.RoleUser, Text: "What does a.txt say?"})
	if _, err := fc.ReadFiles(ctx, []string{"/a.txt"}); err != nil {
		log.Fatal(err)
	}

	type request struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		chatwire.AnthropicMessages
	}
	body, err := json.Marshal(request{Model: "claude-sonnet-4-5", MaxTokens: 1024, AnthropicMessages: fc.ExportAnthropic()})
	if err != nil {
		log.Fatal(err)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(body, &top)
	fmt.Println(len(top), string(top["model"]), string(top["max_tokens"]))
	for _, m := range fc.ExportAnthropic().Messages {
		for _, b := range m.Content {
			fmt.Println(m.Role, b.Type, b.CacheControl != nil)
		}
	}
	// Output:
	// 5 "claude-sonnet-4-5" 1024
	// user text false
	// assistant tool_use false
	// user tool_result true
}
