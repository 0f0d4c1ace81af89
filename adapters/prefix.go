package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/google/jsonschema-go/jsonschema"
)

// WithPrefix returns copies of tools whose names start with prefix, for a server that serves
// several tool families side by side: WithPrefix(fileidtools.Tools(reg), "docs_") serves
// docs_search next to file_search. Every mention of the set's own tools follows
// (read_sections becomes docs_read_sections): in the descriptions, in the descriptions of the
// input and output schemas, in the messages of the errors the tools return, and in the
// notice, note, hint and message fields of their results (never in other fields, which may
// hold file content). Only names with an underscore are rewritten; a one-word name such as
// search is left alone in prose, where it is also an ordinary word. An empty prefix returns
// tools unchanged. The prefix should be snake_case and end in "_".
func WithPrefix(tools []Tool, prefix string) []Tool {
	if prefix == "" {
		return tools
	}
	var names []string
	for _, t := range tools {
		if strings.Contains(t.Name, "_") {
			names = append(names, regexp.QuoteMeta(t.Name))
		}
	}
	out := make([]Tool, len(tools))
	copy(out, tools)
	if len(names) == 0 {
		for i := range out {
			out[i].Name = prefix + out[i].Name
		}
		return out
	}
	own := map[string]bool{}
	for _, t := range tools {
		own[t.Name] = true
	}
	mention := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	rename := func(s string) string { return mention.ReplaceAllString(s, prefix+"$1") }
	for i, t := range out {
		t.Name = prefix + t.Name
		t.Description = rename(t.Description)
		t.InputSchema = renameInSchema(t.InputSchema, rename)
		t.OutputSchema = renameInSchema(t.OutputSchema, rename)
		if h := t.Handler; h != nil {
			t.Handler = func(ctx context.Context, args json.RawMessage) (any, error) {
				res, err := h(ctx, args)
				if err != nil {
					return res, renameInError(err, prefix, own, rename)
				}
				return renameInResult(res, rename), nil
			}
		}
		out[i] = t
	}
	return out
}

// adviceKeys are the result fields that carry advice to the agent, where tool names appear.
var adviceKeys = map[string]bool{"notice": true, "note": true, "hint": true, "message": true}

// renameInSchema returns a copy of s whose description keywords, at every depth, are renamed.
func renameInSchema(s *jsonschema.Schema, rename func(string) string) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return s
	}
	renameStrings(generic, map[string]bool{"description": true}, rename)
	if b, err = json.Marshal(generic); err != nil {
		return s
	}
	var out jsonschema.Schema
	if err := json.Unmarshal(b, &out); err != nil {
		return s
	}
	return &out
}

// renameInError renames the message of the *agentfiles.Error in err's chain, and its Arg when
// that is the name of one of the set's tools (as in schema errors), leaving err itself alone
// when it has nothing to rename.
func renameInError(err error, prefix string, own map[string]bool, rename func(string) string) error {
	var e *agentfiles.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Message = rename(e.Message)
	if own[e.Arg] {
		c.Arg = prefix + e.Arg
	}
	if c.Message == e.Message && c.Arg == e.Arg {
		return err
	}
	return &c
}

// renameInResult renames the advice fields of a result, as JSON: the renamed result is a
// json.RawMessage (a Texter's prose stays as it was). A result without any mention is returned
// as it is.
func renameInResult(res any, rename func(string) string) any {
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return res
	}
	if !renameStrings(generic, adviceKeys, rename) {
		return res
	}
	out, err := json.Marshal(generic)
	if err != nil {
		return res
	}
	if t, ok := res.(Texter); ok { // a prose result keeps its prose
		return renamedText{raw: out, text: t.ToolText()}
	}
	return json.RawMessage(out) // numbers as they were: no float64 or json.Number in between
}

// renamedText is a prose result (a Texter) whose JSON had mentions renamed.
type renamedText struct {
	raw  json.RawMessage
	text string
}

func (r renamedText) MarshalJSON() ([]byte, error) { return r.raw, nil }
func (r renamedText) ToolText() string             { return r.text }

// renameStrings renames, in place, the string values of the keys in keys at every depth of v
// (decoded JSON), and reports whether any changed.
func renameStrings(v any, keys map[string]bool, rename func(string) string) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && keys[k] {
				if r := rename(s); r != s {
					v[k] = r
					changed = true
				}
				continue
			}
			changed = renameStrings(x, keys, rename) || changed
		}
	case []any:
		for _, x := range v {
			changed = renameStrings(x, keys, rename) || changed
		}
	}
	return changed
}
