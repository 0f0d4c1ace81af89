package memorytools_test

import (
	"context"
	"fmt"
	"log"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/memorytools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memorytool"
	"github.com/agentfiles/agentfiles/fileio/memstore"
)

func ExampleTools() {
	svc, err := fileio.NewService(memstore.New(memstore.Options{}), fileio.Options{})
	if err != nil {
		log.Fatal(err)
	}
	mem, err := memorytool.New(svc, memorytool.Options{Project: "memories"})
	if err != nil {
		log.Fatal(err)
	}
	tools := memorytools.Tools(mem)
	tool, _ := adapters.Find(tools, "memory")

	// The bindings authenticate the caller and put the identity into the context.
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-example", "alice"))
	for _, args := range []string{
		`{"command": "create", "path": "/memories/prefs.md", "file_text": "color: blue\n"}`,
		`{"command": "str_replace", "path": "/memories/prefs.md", "old_str": "blue", "new_str": "green"}`,
		`{"command": "view", "path": "/memories/missing.md"}`,
	} {
		out, err := tool.Call(ctx, []byte(args))
		if err != nil {
			te, _ := adapters.ErrorOf(err)
			fmt.Println(te.Code, te.Message)
			continue
		}
		fmt.Println(out.(adapters.Texter).ToolText())
	}
	// Output:
	// File created successfully at: /memories/prefs.md
	// The memory file has been edited. Here is a snippet of /memories/prefs.md with line numbers:
	//      1	color: green
	// NOT_FOUND The path /memories/missing.md does not exist. Please provide a valid path.
}
