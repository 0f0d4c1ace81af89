// Package toolmention checks that what a model reads of a server's tools names only tools the
// server registers: with a prefix such as docs_, a message that says "call read_sections" sends
// the model to a tool that does not exist. The example servers' tests run Check on their tool
// sets as they register them.
package toolmention

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
)

// Known is every tool name of every tool set of the module, unprefixed. The agentfiles-server
// test checks that it matches what that server registers with every family on.
var Known = []string{
	"category_add", "category_list", "category_remove", "category_update",
	"collection_add", "collection_list", "collection_remove", "collection_update",
	"consultation",
	"file_apply_patch", "file_changes", "file_checkpoint", "file_checkpoint_delete", "file_checkpoints",
	"file_delete", "file_edit", "file_events", "file_export", "file_glob", "file_grep", "file_import",
	"file_list", "file_purge_history", "file_read", "file_read_many", "file_rename", "file_restore",
	"file_rewind", "file_search", "file_shell", "file_stat", "file_versions", "file_write",
	"get_collection_content", "get_content",
	"list_documentation_files", "memory", "read_sections", "search", "table_of_contents",
}

// adviceKeys are the result fields that carry advice to the model.
var adviceKeys = map[string]bool{"notice": true, "note": true, "hint": true, "message": true}

// Text is one text a model reads, and where it comes from.
type Text struct {
	Where string // e.g. "docs_read_sections: input schema" or "docs_search: error of {}"
	Text  string
}

// Texts returns the texts of tools a model reads: each description, every description in the
// input and output schemas, and the error messages and advice fields (notice, note, hint,
// message) of probe calls: with no arguments, and with every argument filled in three ways (see
// fillers): values that name nothing, the first file ID with small numbers (so that answers are
// cut and say how to get the rest), and a path.
func Texts(ctx context.Context, tools []adapters.Tool) []Text {
	var out []Text
	for _, tool := range tools {
		out = append(out, Text{tool.Name + ": description", tool.Description})
		for what, s := range map[string]any{"input schema": tool.InputSchema, "output schema": tool.OutputSchema} {
			b, _ := json.Marshal(s)
			var generic any
			_ = json.Unmarshal(b, &generic)
			for _, d := range stringsUnder(generic, map[string]bool{"description": true}) {
				out = append(out, Text{tool.Name + ": " + what, d})
			}
		}
		probes := []json.RawMessage{json.RawMessage(`{}`)}
		for _, f := range fillers {
			if b, err := json.Marshal(fill(tool.InputSchema, f)); err == nil {
				probes = append(probes, b)
			}
		}
		for _, args := range probes {
			res, err := tool.Call(ctx, args)
			if err != nil {
				te, _ := adapters.ErrorOf(err)
				out = append(out, Text{fmt.Sprintf("%s: error of %s", tool.Name, args), te.Message})
				continue
			}
			b, _ := json.Marshal(res)
			var generic any
			_ = json.Unmarshal(b, &generic)
			for _, s := range stringsUnder(generic, adviceKeys) {
				out = append(out, Text{fmt.Sprintf("%s: result of %s", tool.Name, args), s})
			}
		}
	}
	return out
}

// Check fails t for every name of known (with an underscore: one-word names such as search are
// also ordinary words) that a text of tools mentions as a whole word although tools do not
// register it.
func Check(t testing.TB, ctx context.Context, tools []adapters.Tool, known []string) {
	t.Helper()
	var registered []string
	for _, tool := range tools {
		registered = append(registered, tool.Name)
	}
	var missing []string
	for _, name := range known {
		if strings.Contains(name, "_") && !slices.Contains(registered, name) {
			missing = append(missing, regexp.QuoteMeta(name))
		}
	}
	if len(missing) == 0 {
		return
	}
	mention := regexp.MustCompile(`\b(` + strings.Join(missing, "|") + `)\b`)
	seen := map[string]bool{}
	for _, txt := range Texts(ctx, tools) {
		for _, name := range mention.FindAllString(txt.Text, -1) {
			if key := txt.Where + name; !seen[key] {
				seen[key] = true
				t.Errorf("%s names %s, which this server does not register (it has %s): %q", txt.Where, name, strings.Join(registered, ", "), txt.Text)
			}
		}
	}
}

// stringsUnder returns the string values of the keys in keys at every depth of v (decoded
// JSON), in a stable order.
func stringsUnder(v any, keys map[string]bool) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		ks := make([]string, 0, len(v))
		for k := range v {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if s, ok := v[k].(string); ok && keys[k] {
				out = append(out, s)
				continue
			}
			out = append(out, stringsUnder(v[k], keys)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, stringsUnder(x, keys)...)
		}
	}
	return out
}

// filler is how fill fills an argument of each type.
type filler struct {
	str, item string // a string argument; a string in an array
	num       int
}

var fillers = []filler{{"zz9", "zz9", 999999}, {"f1", "99", 1}, {"/zz9", "/zz9", 1}}

// fill returns an arguments object with every property of an object schema set by f.
func fill(s any, f filler) map[string]any {
	b, _ := json.Marshal(s)
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(b, &schema)
	args := map[string]any{}
	for name, raw := range schema.Properties {
		args[name] = value(raw, f, f.str)
	}
	return args
}

func value(raw json.RawMessage, f filler, str string) any {
	var p struct {
		Type  any               `json:"type"`
		Enum  []any             `json:"enum"`
		Items json.RawMessage   `json:"items"`
		Props map[string]any    `json:"properties"`
		Any   []json.RawMessage `json:"anyOf"`
	}
	_ = json.Unmarshal(raw, &p)
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	typ, _ := p.Type.(string)
	if types, ok := p.Type.([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	switch typ {
	case "string":
		return str
	case "integer", "number":
		return f.num
	case "boolean":
		return true
	case "array":
		if len(p.Items) > 0 {
			return []any{value(p.Items, f, f.item)}
		}
		return []any{}
	case "object":
		return map[string]any{}
	}
	return str
}
