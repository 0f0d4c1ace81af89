package memorytool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

// A host answers Claude's memory tool calls from a fileio store: the input of each tool_use
// block named "memory" goes to Execute, and the Result is the tool_result.
func ExampleTool_Execute() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{}) // or pgstore
	if err != nil {
		log.Fatal(err)
	}
	mem, err := memorytool.New(svc, memorytool.Options{Project: "memories"})
	if err != nil {
		log.Fatal(err)
	}
	// The tenant whose memories these are: the host's authenticated user.
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, input := range []string{
		`{"command": "view", "path": "/memories"}`,
		`{"command": "create", "path": "/memories/prefs.md", "file_text": "- likes Go\n- likes tea\n"}`,
		`{"command": "insert", "path": "/memories/prefs.md", "insert_line": 2, "insert_text": "- likes tea\n"}`,
		`{"command": "str_replace", "path": "/memories/prefs.md", "old_str": "- likes tea", "new_str": "- likes coffee"}`,
		`{"command": "view", "path": "/memories/prefs.md", "view_range": [2, -1]}`,
		`{"command": "view", "path": "/memories/../secrets"}`,
	} {
		res, _ := mem.Execute(ctx, json.RawMessage(input))
		fmt.Printf("is_error=%v\n%s\n", res.IsError, res.Content)
	}
	// Output:
	// is_error=false
	// Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:
	// 0B	/memories
	// is_error=false
	// File created successfully at: /memories/prefs.md
	// is_error=false
	// The file /memories/prefs.md has been edited.
	// is_error=true
	// No replacement was performed. Multiple occurrences of old_str `- likes tea` in lines: 2, 3. Please ensure it is unique
	// is_error=false
	// Here's the content of /memories/prefs.md with line numbers:
	//      2	- likes tea
	//      3	- likes tea
	// is_error=true
	// Error: The path /memories/../secrets would escape /memories: "." and ".." are not allowed; write the full path, such as /memories/notes.md
}
