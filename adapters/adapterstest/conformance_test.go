package adapterstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that keeps what the suite reports instead of failing the test.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// run runs the suite on tools with a recorder and returns what it reported.
func run(t *testing.T, tools []adapters.Tool, opts adapterstest.Options) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		adapterstest.TestToolSet(r, tools, opts)
	}()
	<-done
	return r.failures
}

type noteIn struct {
	Text string `json:"text" jsonschema:"the note"`
}

type noteOut struct {
	Text string `json:"text"`
}

// good is a tool that keeps every convention.
func good() adapters.Tool {
	return adapters.NewTool("note_echo", "Echo", "Echoes text, at most 64 bytes.", adapters.Annotations{ReadOnly: true},
		func(_ context.Context, in noteIn) (noteOut, error) { return noteOut(in), nil })
}

type pageIn struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer"`
}

type pageOut struct {
	Items      []string `json:"items"`
	Truncated  bool     `json:"truncated"`
	NextCursor string   `json:"next_cursor,omitempty"`
}

var errBadCursor = agentfiles.NewError(agentfiles.CodeInvalidArgument, "cursor is not one this tool returned; leave it out to start over", "cursor")

// pages is a paged tool that keeps the convention: two pages, a coded error for a bad cursor.
func pages() adapters.Tool {
	return adapters.NewTool("item_list", "List", "Lists items, 1 per page.", adapters.Annotations{ReadOnly: true},
		func(_ context.Context, in pageIn) (pageOut, error) {
			switch in.Cursor {
			case "":
				return pageOut{Items: []string{"a"}, Truncated: true, NextCursor: "p2"}, nil
			case "p2":
				return pageOut{Items: []string{"b"}}, nil
			}
			return pageOut{}, errBadCursor
		})
}

type hasMoreOut struct {
	Items   []string `json:"items"`
	HasMore bool     `json:"hasMore"`
}

type startAfterIn struct {
	StartAfter string `json:"start_after,omitempty" jsonschema:"where to continue"`
}

type cursorWithoutTruncated struct {
	NextCursor string `json:"next_cursor,omitempty"`
}

type offsetOut struct {
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated"`
	NextOffset int    `json:"next_offset"`
}

func TestToolSetPassesGoodTools(t *testing.T) {
	adapterstest.TestToolSet(t, []adapters.Tool{good(), pages()}, adapterstest.Options{
		Calls:    []adapterstest.ToolCall{{Tool: "note_echo", Args: `{"text": "hi"}`}, {Tool: "item_list", Args: `{}`}},
		BadCalls: []adapterstest.ToolCall{{Tool: "note_echo", Args: `{}`}},
		Describe: map[string][]string{"note_echo": {"64 bytes"}},
	})
}

// TestToolSetCatchesBrokenTools shows the suite reporting each broken convention.
func TestToolSetCatchesBrokenTools(t *testing.T) {
	ro := adapters.Annotations{ReadOnly: true}
	badName := good()
	badName.Name = "noteEcho"
	ownCode := agentfiles.NewCode("NOT_REGISTERED", agentfiles.KindInvalid)
	tests := []struct {
		name  string
		tools []adapters.Tool
		opts  adapterstest.Options
		want  []string // each failure, by a part of its message
	}{
		{"tool name", []adapters.Tool{badName}, adapterstest.Options{}, []string{`noteEcho: tool name is not snake_case`}},
		{"duplicate name", []adapters.Tool{good(), good()}, adapterstest.Options{}, []string{"note_echo: two tools have this name"}},
		{"hasMore", []adapters.Tool{adapters.NewTool("item_list", "List", "Lists.", ro,
			func(context.Context, struct{}) (hasMoreOut, error) { return hasMoreOut{Items: []string{}}, nil })},
			adapterstest.Options{}, []string{`item_list: field "hasMore" is not snake_case`}},
		{"start_after", []adapters.Tool{adapters.NewTool("item_list", "List", "Lists.", ro,
			func(context.Context, startAfterIn) (noteOut, error) { return noteOut{}, nil })},
			adapterstest.Options{}, []string{`item_list: field "start_after": say there is more with truncated`}},
		{"next_cursor without truncated", []adapters.Tool{adapters.NewTool("item_list", "List", "Lists.", ro,
			func(context.Context, pageIn) (cursorWithoutTruncated, error) { return cursorWithoutTruncated{}, nil })},
			adapterstest.Options{}, []string{"item_list: an answer object has next_cursor or next_offset but no truncated beside it"}},
		{"next_cursor without cursor", []adapters.Tool{adapters.NewTool("item_list", "List", "Lists.", ro,
			func(context.Context, struct{}) (pageOut, error) { return pageOut{}, nil })},
			adapterstest.Options{}, []string{"item_list: answers next_cursor but takes no cursor argument"}},
		{"next_offset without offset", []adapters.Tool{adapters.NewTool("text_read", "Read", "Reads.", ro,
			func(context.Context, struct{}) (offsetOut, error) { return offsetOut{}, nil })},
			adapterstest.Options{}, []string{"text_read: answers next_offset but takes no offset argument"}},
		{"next_cursor while not truncated", []adapters.Tool{adapters.NewTool("item_list", "List", "Lists.", ro,
			func(context.Context, pageIn) (pageOut, error) {
				return pageOut{Items: []string{}, NextCursor: "x"}, nil
			})},
			adapterstest.Options{Calls: []adapterstest.ToolCall{{Tool: "item_list", Args: `{}`}}},
			[]string{"item_list {}: answer has next_cursor but truncated is not true",
				`item_list {"cursor":"x"}: answer has next_cursor but truncated is not true`, `item_list {"cursor":"not-a-cursor-any-tool-returned"}: succeeded, want an error`}},
		{"uncoded error", []adapters.Tool{adapters.NewTool("note_echo", "Echo", "Echoes.", ro,
			func(context.Context, noteIn) (noteOut, error) { return noteOut{}, errors.New("boom") })},
			adapterstest.Options{BadCalls: []adapterstest.ToolCall{{Tool: "note_echo", Args: `{"text": ""}`}}},
			[]string{`note_echo {"text": ""}: INTERNAL error for bad arguments: boom`}},
		{"unregistered code", []adapters.Tool{adapters.NewTool("note_echo", "Echo", "Echoes.", ro,
			func(context.Context, noteIn) (noteOut, error) {
				return noteOut{}, agentfiles.NewError(ownCode, "no", "")
			})},
			adapterstest.Options{BadCalls: []adapterstest.ToolCall{{Tool: "note_echo", Args: `{"text": ""}`}}},
			[]string{`note_echo {"text": ""}: code "NOT_REGISTERED" is not registered`}},
		{"bad call that succeeds", []adapters.Tool{good()},
			adapterstest.Options{BadCalls: []adapterstest.ToolCall{{Tool: "note_echo", Args: `{"text": ""}`}}},
			[]string{`note_echo {"text": ""}: succeeded, want an error`}},
		{"answer outside the output schema", []adapters.Tool{func() adapters.Tool {
			tool := good()
			handler := tool.Handler
			tool.Handler = func(ctx context.Context, args json.RawMessage) (any, error) {
				if _, err := handler(ctx, args); err != nil {
					return nil, err
				}
				return map[string]any{"text": 3}, nil
			}
			return tool
		}()}, adapterstest.Options{Calls: []adapterstest.ToolCall{{Tool: "note_echo", Args: `{"text": "hi"}`}}},
			[]string{`note_echo {"text": "hi"}: answer does not match the output schema`}},
		{"description with the default limit", []adapters.Tool{good()},
			adapterstest.Options{Describe: map[string][]string{"note_echo": {"at most 32 bytes"}}, NotDescribe: map[string][]string{"note_echo": {"64 bytes"}}},
			[]string{`note_echo: description does not say "at most 32 bytes"`, `note_echo: description says "64 bytes"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.tools, tt.opts)
			var unmatched []string
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, w)
				}
				if !found {
					unmatched = append(unmatched, w)
				}
			}
			if len(unmatched) > 0 || len(got) != len(tt.want) {
				t.Errorf("reported %d failures, want %d; missing %q\nreported:\n%s", len(got), len(tt.want), unmatched, strings.Join(got, "\n"))
			}
		})
	}
}

// TestToolSetFollowsCursors checks that a made-up cursor is refused by the good paged tool and
// that the suite reports nothing for it.
func TestToolSetFollowsCursors(t *testing.T) {
	got := run(t, []adapters.Tool{pages()}, adapterstest.Options{Calls: []adapterstest.ToolCall{{Tool: "item_list", Args: `{}`}}})
	if diff := cmp.Diff([]string(nil), got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}
