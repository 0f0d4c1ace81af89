package fileidtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/fileidtools"
	"github.com/agentfiles/agentfiles/fileid"
)

func ExampleTools() {
	docs := fstest.MapFS{
		"guide.md": {Data: []byte("# Install\n\n## Linux\n\napt install tool\n\n# Use\n\nRun tool.\n")},
	}
	reg, err := fileid.New(context.Background(), []fileid.Root{{Label: "docs", FS: docs}}, fileid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	tools := fileidtools.Tools(reg)
	for _, t := range tools {
		fmt.Println(t.Name)
	}

	// What an agent's call runs: raw JSON arguments in, a JSON-encodable result out.
	read, _ := adapters.Find(tools, "read_sections")
	out, err := read.Call(context.Background(), json.RawMessage(`{"fileId": "f1", "section_ids": ["1/1"]}`))
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))

	// Errors reach the agent as a code and a message that says what to do next.
	_, err = read.Call(context.Background(), json.RawMessage(`{"fileId": "f9", "section_ids": ["1"]}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code, te.Retryable)
	// Output:
	// list_documentation_files
	// table_of_contents
	// read_sections
	// search
	// {"fileId":"f1","filename":"guide.md","sections":[{"id":"1/1","title":"Linux","line":3,"size_bytes":28,"content":"## Linux\n\napt install tool\n\n"}],"truncated":false}
	// FILE_ID_NOT_FOUND false
}
