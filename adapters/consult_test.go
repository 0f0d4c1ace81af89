package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chatServer is an httptest chat-completions provider that streams a fixed answer and records
// the last request's Authorization header.
func chatServer(t *testing.T, answer string) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range strings.SplitAfter(answer, " ") {
			b, _ := json.Marshal(map[string]any{"model": "m1", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		fmt.Fprint(w, `data: {"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":4,"total_tokens":54}}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &auth
}

func consultFixture(t *testing.T) (tools []adapters.Tool, dir string, auth *atomic.Value) {
	t.Helper()
	dir = t.TempDir()
	for name, content := range map[string]string{"a.py": "print(1)\n", "b.py": "print(2)\n", "notes.md": "# Notes\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, auth := chatServer(t, "Both files print numbers.")
	c := &consult.Consultant{
		Models: []consult.Model{
			&consult.OpenAIModel{BaseURL: srv.URL + "/v1", APIKey: "operator-key", Model: "m1", ContextWindowTokens: 100000},
			&consult.OpenAIModel{BaseURL: srv.URL + "/v1", APIKey: "operator-key", Model: "m2", ContextWindowTokens: 100},
		},
		AllowOutputFiles: true,
	}
	return adapters.ConsultTools(c), dir, auth
}

func TestConsultationToolHandler(t *testing.T) {
	tools, dir, auth := consultFixture(t)
	tool, ok := adapters.Find(tools, "consultation")
	if !ok {
		t.Fatal("no consultation tool")
	}
	for _, s := range []string{"*.py", "/home/**/*.py", "data.*", "not absolute", "m1, m2"} {
		if !strings.Contains(tool.Description, s) {
			t.Errorf("description lacks %q", s)
		}
	}
	args, _ := json.Marshal(map[string]any{"files": []string{dir + "/*.py", dir + "/*", "rel/*.py"}, "query": "What do they print?"})
	res, err := tool.Handler(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	out := res.(adapters.ConsultationOutput)
	var problems []string
	for _, p := range out.Problems {
		problems = append(problems, p.Code)
	}
	got := []any{out.Answer, out.Model, out.FileCount, problems, out.Usage.TotalTokens, auth.Load()}
	want := []any{"Both files print numbers.", "m1", 2, []string{"MISSING_EXTENSION", "NOT_ABSOLUTE"}, consult.Tokens(54), "Bearer operator-key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}

	// The answer goes to a file; the result then carries only the path.
	args, _ = json.Marshal(map[string]any{"files": []string{dir + "/notes.md"}, "query": "q", "output_file": dir + "/notes.md"})
	res, err = tool.Handler(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	out = res.(adapters.ConsultationOutput)
	if out.OutputFile != dir+"/notes_updated.md" || out.Answer != "" || !strings.Contains(out.Note, "written to") {
		t.Errorf("output file result: %+v", out)
	}

	errCases := []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "api_key": "sk-x"}, "INVALID_ARGUMENT"},
		{map[string]any{"files": []string{dir + "/a.py"}}, "INVALID_ARGUMENT"},
		{map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "model": "gpt-x"}, "INVALID_ARGUMENT"},
		{map[string]any{"files": []string{dir + "/*.rs"}, "query": "q"}, "NOT_FOUND"},
		{map[string]any{"files": []string{dir + "/*.py"}, "query": "q", "model": "m2"}, "CONTEXT_TOO_LARGE"},
	}
	for _, tc := range errCases {
		args, _ := json.Marshal(tc.args)
		_, err := tool.Handler(context.Background(), args)
		te, _ := adapters.ErrorOf(err)
		if te.Code != tc.code {
			t.Errorf("args %v: error %v, want %s", tc.args, err, tc.code)
		}
	}
	var ce *consult.Error
	args, _ = json.Marshal(map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "model": "gpt-x"})
	if _, err := tool.Handler(context.Background(), args); !errors.As(err, &ce) || !strings.Contains(ce.Message, "m1, m2") {
		t.Errorf("unknown model error does not list the models: %v", err)
	}
}

func TestConsultationToolOverMCP(t *testing.T) {
	tools, dir, _ := consultFixture(t)
	cs := connectMCP(t, tools, nil)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "consultation" || list.Tools[0].Annotations.OpenWorldHint == nil || !*list.Tools[0].Annotations.OpenWorldHint {
		t.Fatalf("tools: %+v", list.Tools)
	}
	schema, _ := json.Marshal(list.Tools[0].InputSchema)
	var s struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &s)
	if diff := cmp.Diff([]string{"files", "query"}, s.Required); diff != "" {
		t.Errorf("required arguments (-want +got):\n%s", diff)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "consultation", Arguments: map[string]any{
		"files": []string{dir + "/*.py"}, "query": "What do they print?",
	}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out adapters.ConsultationOutput
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Both files print numbers." || out.FileCount != 2 {
		t.Errorf("structured result: %s", b)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "consultation", Arguments: map[string]any{
		"files": []string{"/home/**/*.py"}, "query": "q",
	}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "NOT_FOUND") {
		t.Errorf("all entries invalid: %v %+v", err, res)
	}
}
