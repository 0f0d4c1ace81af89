package exprtools_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/expr"
)

func Example() {
	// An in-memory catalog over the guide-server example's documents.
	cat, err := expr.New([]byte("categories:\n  lang: {dir: lang, description: Coding conventions}\n"),
		"../../examples/internal/bundled/guide", expr.Options{})
	if err != nil {
		panic(err)
	}
	tools := exprtools.Tools(cat, exprtools.Options{ReadOnly: true})
	for _, t := range tools {
		fmt.Println(t.Name)
	}

	getContent, _ := adapters.Find(tools, "get_content")
	out, err := getContent.Handler(context.Background(), json.RawMessage(`{"expression": "lang/go"}`))
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(out)
	var res struct{ Content string }
	_ = json.Unmarshal(b, &res)
	fmt.Print(res.Content)

	_, err = getContent.Handler(context.Background(), json.RawMessage(`{"expression": "lang/"}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code+":", te.Message)
	// Output:
	// get_content
	// get_collection_content
	// category_list
	// collection_list
	// # Go conventions
	//
	// - Run gofmt and go vet before every commit.
	// - Errors carry a code; branch with errors.Is, never on message text.
	// - Pass context.Context first to anything that does I/O.
	// PARSE_ERROR: empty pattern after '/' at byte 4 of the expression ("lang/"); suggestion: lang (the category's default patterns) or lang/pattern, e.g. lang/*.md
}
