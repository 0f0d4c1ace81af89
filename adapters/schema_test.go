package adapters_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

type refinedIn struct {
	IDs   []string `json:"ids" jsonschema:"required list"`
	Tags  []string `json:"tags,omitempty" jsonschema:"optional list"`
	Limit int      `json:"limit,omitempty"`
	Size  *int     `json:"size,omitempty"`
	Mode  string   `json:"mode,omitempty" enum:"APPEND,TRUNCATE"`
}

func refinedTool() adapters.Tool {
	return adapters.NewTool("refined", "Refined", "Echoes its arguments.", adapters.Annotations{ReadOnly: true},
		func(_ context.Context, in refinedIn) (refinedIn, error) { return in, nil })
}

// Enums come from enum tags; no argument is typed ["null", …].
func TestInputSchemaRefinements(t *testing.T) {
	s := refinedTool().InputSchema
	got := map[string]string{}
	for name, p := range s.Properties {
		b, _ := json.Marshal(struct {
			Type  any                `json:"type"`
			Enum  []any              `json:"enum,omitempty"`
			Items *jsonschema.Schema `json:"items,omitempty"`
		}{p.Type + strings.Join(p.Types, "|"), p.Enum, p.Items})
		got[name] = string(b)
	}
	want := map[string]string{
		"ids":   `{"type":"array","items":{"type":"string"}}`,
		"tags":  `{"type":"array","items":{"type":"string"}}`,
		"limit": `{"type":"integer"}`,
		"size":  `{"type":"integer"}`,
		"mode":  `{"type":"string","enum":["APPEND","TRUNCATE"]}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
}

// An optional argument sent as null counts as not sent (limit and size alike); null for
// a required one, and a value outside the enum, are clear errors.
func TestNullArguments(t *testing.T) {
	tool := refinedTool()
	tests := []struct {
		args, want, wantErr string
	}{
		{`{"ids": ["a"], "limit": null, "size": null, "tags": null, "mode": null}`, `{"ids":["a"]}`, ""},
		{`{"ids": ["a"], "limit": 3, "size": 4}`, `{"ids":["a"],"limit":3,"size":4}`, ""},
		{`{"ids": null}`, "", "argument ids must be an array, not null"},
		{`{"ids": ["a"], "mode": "append"}`, "", `argument mode must be one of ["APPEND","TRUNCATE"]`},
	}
	for _, tt := range tests {
		out, err := tool.Call(context.Background(), json.RawMessage(tt.args))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "reflect") {
				t.Errorf("%s: error %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		b, _ := json.Marshal(out)
		if diff := cmp.Diff(tt.want, string(b)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestWithPrefix(t *testing.T) {
	noop := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	tools := []adapters.Tool{
		adapters.NewTool("search", "Search", "Find lines; read them with read_sections.", adapters.Annotations{}, noop),
		adapters.NewTool("read_sections", "Read", "Read what search or read_sections_x found.", adapters.Annotations{}, noop),
	}
	var got []string
	for _, tool := range adapters.WithPrefix(tools, "docs_") {
		got = append(got, tool.Name+": "+tool.Description)
	}
	want := []string{
		"docs_search: Find lines; read them with docs_read_sections.",
		"docs_read_sections: Read what search or read_sections_x found.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if tools[0].Name != "search" {
		t.Error("WithPrefix changed its argument")
	}
	if diff := cmp.Diff("search", adapters.WithPrefix(tools, "")[0].Name); diff != "" {
		t.Error(diff)
	}
}

// WithPrefix renames mentions in schema descriptions, error messages and the advice fields of
// results, and leaves other result fields (file content) alone.
func TestWithPrefixRenamesSchemasErrorsAndNotices(t *testing.T) {
	type in struct {
		ID string `json:"id" jsonschema:"an ID from list_files"`
	}
	type item struct {
		Message string `json:"message"`
	}
	type out struct {
		Content string `json:"content"`
		Notice  string `json:"notice,omitempty"`
		Items   []item `json:"items"`
	}
	read := func(_ context.Context, a in) (out, error) {
		if a.ID == "bad" {
			return out{}, agentfiles.NewError(agentfiles.CodeNotFound, "no such ID; call list_files", a.ID)
		}
		return out{Content: "list_files is a tool", Notice: "cut: call read_file again", Items: []item{{"see list_files"}}}, nil
	}
	list := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	tools := adapters.WithPrefix([]adapters.Tool{
		adapters.NewTool("read_file", "Read", "Read a file listed by list_files.", adapters.Annotations{}, read),
		adapters.NewTool("list_files", "List", "List files.", adapters.Annotations{}, list),
	}, "docs_")
	tool := tools[0]
	if diff := cmp.Diff("an ID from docs_list_files", tool.InputSchema.Properties["id"].Description); diff != "" {
		t.Errorf("schema description (-want +got):\n%s", diff)
	}
	res, err := tool.Call(t.Context(), json.RawMessage(`{"id": "ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	wantRes := `{"content":"list_files is a tool","items":[{"message":"see docs_list_files"}],"notice":"cut: call docs_read_file again"}`
	if diff := cmp.Diff(wantRes, string(b)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	_, err = tool.Call(t.Context(), json.RawMessage(`{"id": "bad"}`))
	if diff := cmp.Diff("NOT_FOUND: no such ID; call docs_list_files (bad)", fmt.Sprint(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// proseOut is a prose result (an adapters.Texter) with an advice field.
type proseOut struct {
	Note string `json:"note"`
}

func (proseOut) ToolText() string { return "prose that names list_files stays as it is" }

// A prose result keeps its prose under WithPrefix; its JSON follows the rename.
func TestWithPrefixKeepsProse(t *testing.T) {
	prose := func(context.Context, struct{}) (proseOut, error) { return proseOut{Note: "see list_files"}, nil }
	list := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	tools := adapters.WithPrefix([]adapters.Tool{
		adapters.NewTool("read_note", "Read", "Read.", adapters.Annotations{}, prose),
		adapters.NewTool("list_files", "List", "List.", adapters.Annotations{}, list),
	}, "docs_")
	res, err := tools[0].Call(t.Context(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	tx, ok := res.(adapters.Texter)
	if !ok {
		t.Fatalf("result %T is no longer an adapters.Texter", res)
	}
	b, _ := json.Marshal(res)
	got := []string{tx.ToolText(), string(b)}
	want := []string{"prose that names list_files stays as it is", `{"note":"see docs_list_files"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prose and JSON (-want +got):\n%s", diff)
	}
}

// BenchmarkToolCall measures a call's argument handling (schema validation, null dropping,
// strict decoding) of a no-op tool, as a ratio to a bare json.Unmarshal of the same arguments
// measured in the same run.
func BenchmarkToolCall(b *testing.B) {
	tool := refinedTool()
	for _, bc := range []struct{ name, args string }{
		{"plain", `{"ids": ["a", "b"], "limit": 3, "mode": "APPEND"}`},
		{"null-optionals", `{"ids": ["a", "b"], "limit": null, "size": null, "mode": "APPEND"}`},
	} {
		args := json.RawMessage(bc.args)
		b.Run(bc.name, func(b *testing.B) {
			start := time.Now()
			for range b.N {
				var v map[string]any
				if err := json.Unmarshal(args, &v); err != nil {
					b.Fatal(err)
				}
			}
			refNs := float64(time.Since(start).Nanoseconds()) / float64(b.N)
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				if _, err := tool.Call(ctx, args); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/refNs, "x_json_unmarshal")
		})
	}
}
