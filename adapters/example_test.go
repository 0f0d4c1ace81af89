package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentfiles/agentfiles/adapters"
)

func ExampleNewTool() {
	type addIn struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	add := adapters.NewTool("add", "Add", "Adds two integers.",
		adapters.Annotations{ReadOnly: true, Idempotent: true},
		func(ctx context.Context, in addIn) (addOut, error) { return addOut{Sum: in.A + in.B}, nil })

	out, err := add.Call(context.Background(), json.RawMessage(`{"a": 2, "b": 3}`))
	fmt.Println(out, err)

	_, err = add.Call(context.Background(), json.RawMessage(`{"a": 2}`))
	te, _ := adapters.ErrorOf(err)
	fmt.Println(te.Code)
	// Output:
	// {5} <nil>
	// INVALID_ARGUMENT
}
