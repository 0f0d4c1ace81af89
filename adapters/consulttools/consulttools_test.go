package consulttools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/consulttools"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// output is the wire form of the consultation tool's result, as an agent decodes it.
type output struct {
	Answer     string `json:"answer"`
	Model      string `json:"model"`
	Note       string `json:"note"`
	OutputFile string `json:"output_file"`
	FileCount  int    `json:"file_count"`
	Problems   []struct {
		Code string `json:"code"`
	} `json:"problems"`
	Usage struct {
		TotalTokens int64 `json:"total_tokens"`
	} `json:"usage"`
}

func fixture(t *testing.T) (tools []adapters.Tool, dir string, provider *chattest.Server) {
	t.Helper()
	dir = testfiles.Write(t, t.TempDir(), map[string]string{"a.py": "print(1)\n", "b.py": "print(2)\n", "notes.md": "# Notes\n"})
	provider = chattest.New(t, chattest.Options{Answer: strings.SplitAfter("Both files print numbers.", " "), Model: "m1", PromptTokens: 50, CompletionTokens: 4})
	var models []consult.Model // the first is the default
	for _, mw := range []struct {
		name   string
		window consult.Tokens
	}{{"m1", 100000}, {"m2", 100}} {
		m, err := openai.New(mw.name, openai.Options{BaseURL: provider.URL + "/v1", APIKey: "operator-key", ContextWindow: mw.window})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	c := consult.NewConsultant(consult.ConsultantOptions{Models: models, AllowOutputFiles: true})
	return consulttools.Tools(c), dir, provider
}

// call runs the tool's handler and decodes its result as an agent would.
func call(t *testing.T, tools []adapters.Tool, args map[string]any) (output, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	m, err := adapterstest.Call(t, tools, "consultation", string(raw))
	if err != nil {
		return output{}, err
	}
	b, _ := json.Marshal(m)
	var out output
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

func TestConsultationTool(t *testing.T) {
	tools, dir, provider := fixture(t)
	tool, ok := adapters.Find(tools, "consultation")
	if !ok || len(tools) != 1 {
		t.Fatalf("tools: %v", tools)
	}
	for _, s := range []string{"*.py", "/home/**/*.py", "data.*", "not absolute", "m1, m2 (default m1)"} {
		if !strings.Contains(tool.Description, s) {
			t.Errorf("description lacks %q", s)
		}
	}
	out, err := call(t, tools, map[string]any{"files": []string{dir + "/*.py", dir + "/*", "rel/*.py"}, "query": "What do they print?"})
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, p := range out.Problems {
		problems = append(problems, p.Code)
	}
	got := []any{out.Answer, out.Model, out.FileCount, problems, out.Usage.TotalTokens, provider.Authorization()}
	want := []any{"Both files print numbers.", "m1", 2, []string{"MISSING_EXTENSION", "NOT_ABSOLUTE"}, int64(54), "Bearer operator-key"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}

	// The answer goes to a file; the result then carries only the path.
	out, err = call(t, tools, map[string]any{"files": []string{dir + "/notes.md"}, "query": "q", "output_file": dir + "/notes.md"})
	if err != nil {
		t.Fatal(err)
	}
	if out.OutputFile != dir+"/notes_updated.md" || out.Answer != "" || !strings.Contains(out.Note, "written to") {
		t.Errorf("output file result: %+v", out)
	}
}

func TestConsultationToolErrors(t *testing.T) {
	tools, dir, _ := fixture(t)
	tests := []struct {
		name      string
		args      map[string]any
		code      string
		retryable bool
		sentinel  error
	}{
		{"api_key is not an argument", map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "api_key": "sk-x"}, "INVALID_ARGUMENT", false, agentfiles.ErrInvalidArgument},
		{"no query", map[string]any{"files": []string{dir + "/a.py"}}, "INVALID_ARGUMENT", false, agentfiles.ErrInvalidArgument},
		{"unknown model", map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "model": "gpt-x"}, "INVALID_ARGUMENT", false, agentfiles.ErrInvalidArgument},
		{"nothing matched", map[string]any{"files": []string{dir + "/*.rs"}, "query": "q"}, "NOT_FOUND", false, agentfiles.ErrNotFound},
		{"context window", map[string]any{"files": []string{dir + "/*.py"}, "query": "q", "model": "m2"}, "CONTEXT_TOO_LARGE", false, consult.ErrContextTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, tools, tc.args)
			te, internal := adapters.ErrorOf(err)
			if diff := cmp.Diff([]any{tc.code, tc.retryable, false}, []any{te.Code, te.Retryable, internal}); diff != "" {
				t.Errorf("error %v (-want +got):\n%s", err, diff)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.sentinel)
			}
		})
	}
	_, err := call(t, tools, map[string]any{"files": []string{dir + "/a.py"}, "query": "q", "model": "gpt-x"})
	if te, _ := adapters.ErrorOf(err); !strings.Contains(te.Message, "m1, m2") {
		t.Errorf("unknown model error does not list the models: %v", err)
	}
}

func TestConsultationToolOverMCP(t *testing.T) {
	tools, dir, _ := fixture(t)
	cs := adapterstest.Connect(t, tools, mcpsdk.Options{})
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
	res, text := mcptest.CallTool(t, cs, "consultation", map[string]any{"files": []string{dir + "/*.py"}, "query": "What do they print?"})
	if res.IsError {
		t.Fatalf("call: %s", text)
	}
	var out output
	mcptest.Decode(t, res, &out)
	if out.Answer != "Both files print numbers." || out.FileCount != 2 {
		t.Errorf("structured result: %+v", out)
	}
	res, text = mcptest.CallTool(t, cs, "consultation", map[string]any{"files": []string{"/home/**/*.py"}, "query": "q"})
	if !res.IsError || !strings.Contains(text, "NOT_FOUND") {
		t.Errorf("all entries invalid: %+v", res)
	}
}
