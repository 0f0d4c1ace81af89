package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/google/jsonschema-go/jsonschema"
)

// Annotations are hints to clients about a tool's behaviour. Every tool sets all of them
// explicitly; they map one to one onto MCP tool annotations.
type Annotations struct {
	ReadOnly    bool // the tool changes nothing
	Destructive bool // the tool may delete or overwrite data (meaningful when not ReadOnly)
	Idempotent  bool // calling it twice with the same arguments has no further effect
	OpenWorld   bool // the tool reaches outside systems (a model API, the network)
}

// Tool is one agent-callable operation, independent of the protocol that exposes it. The same
// Tool value is served by adapters/mcpsdk and adapters/httpapi, with the same schemas and the
// same errors. A Tool is immutable and safe for concurrent use.
type Tool struct {
	Name        string // snake_case, unique within a server
	Title       string // short human-readable name
	Description string // written for a model: what it does, when to use it, limits, examples
	// InputSchema and OutputSchema are JSON Schemas (draft 2020-12) of the arguments object and
	// of the result object.
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	Annotations  Annotations
	// RedactArgs names top-level arguments whose values must never be logged. Bindings also
	// always redact "content", "api_key" and "token".
	RedactArgs []string
	// Handler runs the tool. args is the raw JSON arguments object. The result is marshalled to
	// JSON; errors should be *agentfiles.Error (see ErrorOf).
	Handler func(ctx context.Context, args json.RawMessage) (any, error)
}

// NewTool builds a Tool from a typed function. Both schemas are derived from In and Out with
// jsonschema.For: json tags give the wire names, fields without omitempty are required, and
// jsonschema tags give descriptions. The handler validates the arguments against the input
// schema and decodes them into In; unknown fields, wrong types and missing required fields fail
// with INVALID_ARGUMENT naming the problem, before fn runs. An empty body counts as {}.
//
// NewTool panics if In or Out cannot be described by a JSON Schema: that is a programming error
// found the first time the tool set is built.
func NewTool[In, Out any](name, title, description string, ann Annotations, fn func(ctx context.Context, in In) (Out, error)) Tool {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("adapters.NewTool %s: input schema: %v", name, err))
	}
	if in.Type != "object" {
		panic(fmt.Sprintf("adapters.NewTool %s: input must be a struct, got schema type %q", name, in.Type))
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("adapters.NewTool %s: output schema: %v", name, err))
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("adapters.NewTool %s: resolving input schema: %v", name, err))
	}
	handler := func(ctx context.Context, args json.RawMessage) (any, error) {
		args = bytes.TrimSpace(args)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = json.RawMessage("{}")
		}
		var generic any
		if err := json.Unmarshal(args, &generic); err != nil {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments must be a JSON object: " + err.Error(), Arg: name, Err: err}
		}
		if _, ok := generic.(map[string]any); !ok {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments must be a JSON object, not " + jsonKind(generic), Arg: name}
		}
		if err := resolved.Validate(generic); err != nil {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments do not match the tool's input schema: " + cleanValidation(err) + "; see the tool's inputSchema", Arg: name, Err: err}
		}
		var v In
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "cannot decode arguments: " + err.Error(), Arg: name, Err: err}
		}
		return fn(ctx, v)
	}
	return Tool{
		Name:         name,
		Title:        title,
		Description:  description,
		InputSchema:  in,
		OutputSchema: out,
		Annotations:  ann,
		Handler:      handler,
	}
}

// Call runs the tool with raw JSON arguments. It is Handler with a guard for a nil Handler.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	if t.Handler == nil {
		return nil, &agentfiles.Error{Code: agentfiles.CodeInternal, Message: "tool has no handler", Arg: t.Name}
	}
	return t.Handler(ctx, args)
}

// Find returns the tool with the given name from a tool set.
func Find(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

// cleanValidation shortens jsonschema-go's messages, which embed the whole schema location.
func cleanValidation(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "validating root: ")
	msg = strings.ReplaceAll(msg, "validating /properties/", "argument ")
	return msg
}
