package consulttools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/consulttools"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/agentfiles/agentfiles/consult/openai"
	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// TestConsultationToolRoots: with a Consultant confined to one directory, the tool says so in
// its description, sends files inside it, and reports (never sends) a file outside it or one a
// link inside it leads to outside.
func TestConsultationToolRoots(t *testing.T) {
	root, outside := testfiles.RootAndOutside(t, map[string]string{"a.py": "print(1)\n"},
		map[string]string{"secret.py": "KEY = 'sk-OUTSIDE'\n"}, map[string]string{"link.py": "secret.py"})
	provider := chattest.New(t, chattest.Options{Answer: []string{"It prints 1."}, Model: "m1"})
	m, err := openai.New("m1", openai.Options{BaseURL: provider.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := consult.NewExpander(consult.ExpanderOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	tools := consulttools.Tools(consult.NewConsultant(consult.ConsultantOptions{Expander: x, Models: []consult.Model{m}}))
	if !strings.Contains(tools[0].Description, "Only files inside these directories can be sent: "+root) {
		t.Errorf("description does not name the root:\n%s", tools[0].Description)
	}

	out, err := call(t, tools, map[string]any{"files": []string{root + "/*.py", outside + "/secret.py", "/etc/shadow"}, "query": "q"})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, p := range out.Problems {
		codes = append(codes, p.Code)
	}
	if out.FileCount != 1 || strings.Join(codes, ",") != "OUTSIDE_ROOTS,OUTSIDE_ROOTS,OUTSIDE_ROOTS" {
		t.Errorf("file count %d, problems %v; want 1 file and three OUTSIDE_ROOTS", out.FileCount, codes)
	}
	if strings.Contains(provider.LastPrompt(t), "sk-OUTSIDE") {
		t.Fatalf("a file outside the root reached the model")
	}

	// Only files outside: nothing is sent, and the error says why, over MCP too.
	before := provider.Requests()
	_, err = call(t, tools, map[string]any{"files": []string{root + "/link.py"}, "query": "q"})
	if te, _ := adapters.ErrorOf(err); te.Code != "NOT_FOUND" || !strings.Contains(te.Message, "OUTSIDE_ROOTS") || !strings.Contains(te.Message, root) {
		t.Errorf("only a link leading out: %v", err)
	}
	cs := adapterstest.Connect(t, tools, mcpsdk.Options{})
	res, text := mcptest.CallTool(t, cs, "consultation", map[string]any{"files": []string{outside + "/*.py"}, "query": "q"})
	if !res.IsError || !strings.Contains(text, "OUTSIDE_ROOTS") {
		t.Errorf("over MCP: %s", text)
	}
	if provider.Requests() != before {
		t.Errorf("the model was called for files outside the root")
	}
	raw, _ := json.Marshal(map[string]any{"files": []string{root + "/a.py"}, "query": "q"})
	if _, err := tools[0].Handler(context.Background(), raw); err != nil {
		t.Errorf("a file inside: %v", err)
	}
}
