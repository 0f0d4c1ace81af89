package filecontext

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentfiles/agentfiles"
)

// Append refuses, with a coded error and without adding anything, a tool message that answers
// a call already answered, and any message that would put the same content in context twice.
func TestAppendRefusesDuplicates(t *testing.T) {
	ctx := context.Background()
	a1, b1, k1 := fcText("/a", 1, 20), fcText("/b", 1, 20), fcText("/k", 1, 20)
	src := newFCMemSource(map[string]string{"/a": a1, "/b": b1, "/k": k1})
	fc, err := New(ctx, []string{"/k"}, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	call := ToolCall{ID: "toolu_1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a"]}`)}
	if err := fc.Append(Message{Role: RoleUser, Text: "read a"}, Message{Role: RoleAssistant, ToolCalls: []ToolCall{call}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.AnswerReadFiles(ctx, call); err != nil {
		t.Fatal(err)
	}

	// result returns a tool message answering id with a read_files result of files.
	result := func(id string, files ...ReadFilesFile) Message {
		return Message{Role: RoleTool, ToolCallID: id, ReadFiles: &ReadFilesResult{Type: ReadFilesToolName, Files: files}}
	}
	asText := func(m Message) Message {
		m.Text, m.ReadFiles = m.ReadFiles.JSON(), nil
		return m
	}
	sent := func(path, content string) ReadFilesFile {
		return ReadFilesFile{Path: path, Content: content, Status: FileSent, Tokens: 20}
	}
	call2 := func(id string) Message {
		return Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: id, Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/b"]}`)}}}
	}

	for _, tc := range []struct {
		name string
		msgs []Message
		want *agentfiles.Error
	}{
		{"a second answer to a call AnswerReadFiles answered", []Message{result("toolu_1", sent("/b", b1))}, agentfiles.ErrAlreadyExists},
		{"a second answer, as text", []Message{{Role: RoleTool, ToolCallID: "toolu_1", Text: "done"}}, agentfiles.ErrAlreadyExists},
		{"two answers to one new call in one Append", []Message{call2("c2"), {Role: RoleTool, ToolCallID: "c2", Text: "x"}, {Role: RoleTool, ToolCallID: "c2", Text: "y"}}, agentfiles.ErrAlreadyExists},
		{"a tool call ID already in the history", []Message{call2("toolu_1")}, agentfiles.ErrAlreadyExists},
		{"the same tool call ID twice in one Append", []Message{call2("c2"), call2("c2")}, agentfiles.ErrAlreadyExists},
		{"content already in an earlier result", []Message{call2("c2"), result("c2", sent("/a", a1))}, agentfiles.ErrAlreadyExists},
		{"content already in an earlier result, as JSON text", []Message{call2("c2"), asText(result("c2", sent("/a", a1)))}, agentfiles.ErrAlreadyExists},
		{"content already in an earlier result, under an unclean path", []Message{call2("c2"), result("c2", sent("//a", a1))}, agentfiles.ErrAlreadyExists},
		{"a bare seed-format entry with content already in context", []Message{call2("c2"), result("c2", ReadFilesFile{Path: "/a", Content: a1})}, agentfiles.ErrAlreadyExists},
		{"content in the system prompt", []Message{call2("c2"), result("c2", sent("/k", k1))}, agentfiles.ErrAlreadyExists},
		{"the same file twice in one result", []Message{call2("c2"), result("c2", sent("/b", b1), sent("/b", b1))}, agentfiles.ErrAlreadyExists},
		{"the same file in two new results", []Message{
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: ReadFilesToolName}, {ID: "c3", Name: ReadFilesToolName}}},
			result("c2", sent("/b", b1)), result("c3", sent("/b", b1))}, agentfiles.ErrAlreadyExists},
		{"an answer to a call nobody made", []Message{{Role: RoleTool, ToolCallID: "nope", Text: "x"}}, agentfiles.ErrInvalidArgument},
		{"a tool call without an ID", []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "grep"}}}}, agentfiles.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(fc.Messages())
			err := fc.Append(tc.msgs...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Append = %v, want %s", err, tc.want.Code)
			}
			if n := len(fc.Messages()); n != before {
				t.Errorf("%d messages added by a refused Append", n-before)
			}
		})
	}

	// What is not a duplicate is accepted: a new file, a new version of a file in context (its
	// earlier copy stays), a stripped entry, another tool's result that mentions a path.
	a2 := fcText("/a", 2, 20)
	src.set("/a", a2)
	if err := fc.Append(
		Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: ReadFilesToolName}, {ID: "c3", Name: "grep"}}},
		result("c2", sent("/b", b1), ReadFilesFile{Path: "/a", Content: a2, Status: FileUpdated, Tokens: 20}, ReadFilesFile{Path: "/k", Truncated: true}),
		Message{Role: RoleTool, ToolCallID: "c3", Text: `{"type":"grep","files":[{"path":"/a","content":"` + a1 + `"}]}`},
	); err != nil {
		t.Fatalf("Append of new content: %v", err)
	}
	// Reading the files again sends nothing: they are in context.
	res, err := fc.ReadFiles(ctx, []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Status != FileAlreadyInContext {
			t.Errorf("%s: %s, want already_in_context", f.Path, f.Status)
		}
	}

	// The file changes back to its first version, still in context: it is sent again with a
	// reset, so that it is not there twice; then a host-appended copy of it is refused.
	src.set("/a", a1)
	if res, err = fc.ReadFiles(ctx, []string{"/a"}); err != nil || res.Files[0].Status != FileUpdated || !res.Reset {
		t.Fatalf("revert: %+v, %v", res, err)
	}
	copies := 0
	for _, m := range fc.Messages() {
		if r, ok := readFilesOf(&m); ok {
			for _, e := range r.Files {
				if e.HasContent() && e.Content == a1 {
					copies++
				}
			}
		}
	}
	if copies != 1 {
		t.Errorf("%d copies of a's first version in context, want 1", copies)
	}
	if err := fc.Append(call2("c4"), result("c4", sent("/a", a1))); !errors.Is(err, agentfiles.ErrAlreadyExists) {
		t.Errorf("Append of a's current version again = %v", err)
	}
}

// ReadFiles names its calls read_files_N, skipping IDs the host already used.
func TestReadFilesAvoidsHostCallIDs(t *testing.T) {
	ctx := context.Background()
	fc, err := New(ctx, nil, Options{Source: newFCMemSource(map[string]string{"/a": "a", "/b": "b"})})
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.Append(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "read_files_1", Name: "grep"}}},
		Message{Role: RoleTool, ToolCallID: "read_files_1", Text: "no matches"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(ctx, []string{"/a"}); err != nil {
		t.Fatal(err)
	}
	msgs := fc.Messages()
	if id := msgs[len(msgs)-1].ToolCallID; id != "read_files_2" {
		t.Errorf("ReadFiles used call ID %q, want read_files_2", id)
	}
}
