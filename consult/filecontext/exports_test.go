package filecontext

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fcExportConversation builds a small conversation: a user question, a model read_files call
// answered by the context, another tool's result, a user follow-up, and a host-attached read.
func fcExportConversation(t *testing.T) *Context {
	t.Helper()
	ctx := context.Background()
	src := newFCMemSource(map[string]string{"/k.md": "Knowledge.\n", "/a.go": "package a\n", "/b.go": "package b // <b> & \"q\"\n"})
	fc, err := New(ctx, []string{"/k.md"}, Options{Source: src, Instructions: "Answer briefly."})
	if err != nil {
		t.Fatal(err)
	}
	call := ToolCall{ID: "toolu_1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a.go","/k.md"]}`)}
	if err := fc.Append(
		Message{Role: RoleUser, Text: "What does a.go do?"},
		Message{Role: RoleAssistant, Text: "Let me look.", ToolCalls: []ToolCall{call,
			{ID: "toolu_2", Name: "grep", Input: json.RawMessage(`{"q":"x"}`)}}},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.AnswerReadFiles(ctx, call); err != nil {
		t.Fatal(err)
	}
	if err := fc.Append(
		Message{Role: RoleTool, ToolCallID: "toolu_2", Text: "no matches"},
		Message{Role: RoleAssistant, Text: "It declares package a."},
		Message{Role: RoleUser, Text: "And b.go?"},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(ctx, []string{"/b.go"}); err != nil {
		t.Fatal(err)
	}
	return fc
}

func fcIndentJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestExportAnthropicGolden(t *testing.T) {
	got := fcExportConversation(t).ExportAnthropic()
	fcGolden(t, "anthropic.golden.json", fcIndentJSON(t, got))

	// The cache breakpoint is on the system block and on the last block of the last message only.
	var marked []string
	for _, b := range got.System {
		if b.CacheControl != nil {
			marked = append(marked, "system")
		}
	}
	for i, m := range got.Messages {
		for j, b := range m.Content {
			if b.CacheControl != nil {
				marked = append(marked, m.Role+":"+b.Type)
				if i != len(got.Messages)-1 || j != len(m.Content)-1 {
					t.Errorf("cache_control on message %d block %d, not the last block", i, j)
				}
			}
		}
	}
	if diff := cmp.Diff([]string{"system", "user:tool_result"}, marked); diff != "" {
		t.Errorf("breakpoints (-want +got):\n%s", diff)
	}
	// Roles alternate, as the API requires.
	for i := 1; i < len(got.Messages); i++ {
		if got.Messages[i].Role == got.Messages[i-1].Role {
			t.Errorf("messages %d and %d both have role %s", i-1, i, got.Messages[i].Role)
		}
	}
}

func TestExportOpenAIGolden(t *testing.T) {
	fc := fcExportConversation(t)
	for _, tc := range []struct {
		golden string
		opts   OpenAIExportOptions
	}{
		{"openai.golden.json", OpenAIExportOptions{}},
		{"openai_cache_control.golden.json", OpenAIExportOptions{CacheControl: true}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got := fc.ExportOpenAI(tc.opts)
			fcGolden(t, tc.golden, fcIndentJSON(t, got))
			last := got.Messages[len(got.Messages)-1]
			if last.Role != "tool" || last.ToolCallID != "read_files_1" {
				t.Errorf("last message: %+v", last)
			}
			marked := last.Content.Parts != nil && last.Content.Parts[0].CacheControl != nil
			if marked != tc.opts.CacheControl {
				t.Errorf("last message marked = %v, want %v", marked, tc.opts.CacheControl)
			}
		})
	}
}

func TestExportEmptyToolCallInput(t *testing.T) {
	history := []Message{
		{Role: RoleUser, Text: "hi"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "noop"}}},
	}
	a := AnthropicFromHistory("", history)
	if got := string(a.Messages[1].Content[0].Input); got != "{}" {
		t.Errorf("tool_use input %q, want {}", got)
	}
	if a.System != nil {
		t.Errorf("system blocks for an empty prompt: %+v", a.System)
	}
	o := OpenAIFromHistory("", history, OpenAIExportOptions{CacheControl: true})
	if got := o.Messages[1].ToolCalls[0].Function.Arguments; got != "{}" {
		t.Errorf("arguments %q, want {}", got)
	}
	if o.Messages[1].Content != nil || o.Messages[0].Content.Parts == nil {
		t.Errorf("assistant content %+v; the user message should carry the breakpoint", o.Messages)
	}
}
