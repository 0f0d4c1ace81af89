package adapters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
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
	// JSON; errors should be *agentfiles.Error (see ErrorOf). Run it through Call, which refuses
	// arguments that are not UTF-8 text before the handler sees them: a JSON decoder would turn
	// them into U+FFFD silently.
	Handler func(ctx context.Context, args json.RawMessage) (any, error)
}

// NewTool builds a Tool from a typed function. Both schemas are derived from In and Out with
// jsonschema.For: json tags give the wire names, fields without omitempty are required, and
// jsonschema tags give descriptions. An enum tag lists a string argument's allowed values,
// comma-separated (`enum:"APPEND,OVERWRITE,TRUNCATE"`), as the schema's enum. No argument is
// nullable in the input schema (a nil-able Go type such as []string or *int does not make it
// ["null", …]): an optional argument sent as null counts as not sent, so {"limit": null} means
// the default, while null for a required argument is an error. The handler validates the
// arguments against the input schema and decodes them into In; unknown fields, wrong types and
// missing required fields fail with INVALID_ARGUMENT naming the problem, before fn runs. An
// empty body counts as {}.
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
	refineInput(in, reflect.TypeFor[In]())
	optional := map[string]bool{}
	for p := range in.Properties {
		if !slices.Contains(in.Required, p) {
			optional[p] = true
		}
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
		// Call has checked that args is UTF-8 text. args is parsed twice: once generically for
		// the schema, once into In.
		var generic any
		if err := json.Unmarshal(args, &generic); err != nil {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments must be a JSON object: " + decodeProblem(err), Arg: name}
		}
		obj, ok := generic.(map[string]any)
		if !ok {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments must be a JSON object, not " + jsonKind(generic), Arg: name}
		}
		for k, v := range obj {
			if v == nil && optional[k] {
				// An optional argument sent as null counts as not sent; decoding null into In
				// leaves the field at its zero value, so only the schema needs to forget it.
				delete(obj, k)
			}
		}
		if err := resolved.Validate(generic); err != nil {
			// The validator's message repeats the offending value, which may be a secret or
			// megabytes long; the agent gets a message built from the schema and value kinds only.
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "arguments do not match the tool's input schema: " + validationProblem(err, in, obj) + "; see the tool's inputSchema", Arg: name}
		}
		var v In
		dec := json.NewDecoder(bytes.NewReader(integralNumbers(args)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, &agentfiles.Error{Code: agentfiles.CodeInvalidArgument, Message: "cannot decode arguments: " + decodeProblem(err), Arg: name}
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

// refineInput makes the input schema's properties non-nullable and adds the enums of enum tags.
func refineInput(in *jsonschema.Schema, t reflect.Type) {
	for _, p := range in.Properties {
		nonNull(p)
		if p.Items != nil {
			nonNull(p.Items)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for _, f := range reflect.VisibleFields(t) {
		values, ok := f.Tag.Lookup("enum")
		if !ok || !f.IsExported() {
			continue
		}
		wire, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if wire == "" {
			wire = f.Name
		}
		p := in.Properties[wire]
		if p == nil {
			panic(fmt.Sprintf("adapters.NewTool: enum tag on %s, which is not an argument", f.Name))
		}
		p.Enum = nil
		for v := range strings.SplitSeq(values, ",") {
			p.Enum = append(p.Enum, v)
		}
	}
}

// nonNull turns a ["null", T] type into T.
func nonNull(s *jsonschema.Schema) {
	if len(s.Types) == 0 || !slices.Contains(s.Types, "null") {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	if len(rest) == 1 {
		s.Type, s.Types = rest[0], nil
	} else {
		s.Types = rest
	}
}

// Call runs the tool with raw JSON arguments. It is Handler with a guard for a nil Handler, and
// it refuses arguments that are not UTF-8 text (see [CheckText]) before the handler sees them.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	if t.Handler == nil {
		return nil, &agentfiles.Error{Code: agentfiles.CodeInternal, Message: "tool has no handler", Arg: t.Name}
	}
	if err := CheckText(args); err != nil {
		return nil, err
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
	case map[string]any:
		return "an object"
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

// maxNameBytes bounds an argument name quoted in a message: names come from the caller and may
// be anything.
const maxNameBytes = 64

// validationProblem describes a schema validation failure without the offending value:
// jsonschema-go's messages embed the value (all of it), so the description is rebuilt from the
// schema location in the message (argument names the schema declares), the failed keyword, the
// schema's expected type and the kind of the value sent.
func validationProblem(err error, schema *jsonschema.Schema, args map[string]any) string {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	var path []string
	sub := schema
	var value any = args
	for strings.HasPrefix(msg, "validating /properties/") {
		rest := strings.TrimPrefix(msg, "validating /properties/")
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		prop := rest[:i]
		msg = rest[i+2:]
		path = append(path, prop)
		if sub != nil {
			sub = sub.Properties[prop]
		}
		if m, ok := value.(map[string]any); ok {
			value = m[prop]
		} else {
			value = nil
		}
	}
	keyword := msg
	if i := strings.IndexAny(keyword, ": "); i >= 0 {
		keyword = keyword[:i]
	}
	if len(path) == 0 {
		switch {
		case keyword == "required":
			if sub != nil {
				var missing []string
				for _, r := range sub.Required {
					if _, ok := args[r]; !ok {
						missing = append(missing, strconv.Quote(r))
					}
				}
				if len(missing) > 0 {
					return "missing required argument(s) " + strings.Join(missing, ", ")
				}
			}
			return "a required argument is missing"
		case strings.Contains(msg, "additional properties") && sub != nil:
			var unknown []string
			for _, k := range sortedAnyKeys(args) {
				if _, ok := sub.Properties[k]; !ok {
					if len(unknown) == 5 {
						unknown = append(unknown, "…")
						break
					}
					unknown = append(unknown, strconv.Quote(utf8cut.Shorten(k, maxNameBytes, "…")))
				}
			}
			return "unknown argument(s) " + strings.Join(unknown, ", ")
		}
		return "the arguments object breaks the schema's \"" + utf8cut.Shorten(keyword, 32, "…") + "\" rule"
	}
	where := "argument " + strings.Join(path, ".")
	if keyword == "type" && sub != nil {
		want := sub.Type
		if want == "" && len(sub.Types) > 0 {
			want = strings.Join(sub.Types, " or ")
		}
		if want != "" {
			return where + " must be " + article(want) + ", not " + jsonKind(value)
		}
	}
	if keyword == "enum" && sub != nil && len(sub.Enum) > 0 {
		allowed, _ := json.Marshal(sub.Enum)
		return where + " must be one of " + utf8cut.Shorten(string(allowed), 256, "…")
	}
	return where + " (" + jsonKind(value) + ") breaks the schema's \"" + utf8cut.Shorten(keyword, 32, "…") + "\" rule"
}

func article(jsonType string) string {
	switch jsonType {
	case "object", "array", "integer":
		return "an " + jsonType
	case "null":
		return jsonType
	}
	return "a " + jsonType
}

// decodeProblem describes a JSON decoding error without the text it choked on: a type mismatch
// names the field and the Go type, a syntax error its offset.
func decodeProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return "a value does not fit " + typeErr.Type.String()
		}
		return "argument " + utf8cut.Shorten(field, maxNameBytes, "…") + " does not fit " + typeErr.Type.String() + integerHint(typeErr)
	case errors.As(err, &syntaxErr):
		return "invalid JSON at byte offset " + strconv.FormatInt(syntaxErr.Offset, 10)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return "unknown argument " + strconv.Quote(utf8cut.Shorten(name, maxNameBytes, "…"))
	}
	return utf8cut.Shorten(err.Error(), 200, "…")
}

// integerHint says what an integer argument needs when a number did not fit it.
func integerHint(e *json.UnmarshalTypeError) string {
	switch e.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if e.Value == "number" || strings.HasPrefix(e.Value, "number ") {
			return ": give a whole number (such as 2 or 2.0) within its range"
		}
	}
	return ""
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
