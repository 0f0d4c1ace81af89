package exprtools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/exprtools"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/expr"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

const catalogYAML = `# guide catalog
categories:
  lang: {dir: lang, description: Languages}
  docs: {dir: docs}   # product docs
collections:
  onboarding: {expression: "docs/intro+setup,lang/go"}
`

// testCatalog writes a small guide tree and catalog file and loads it.
func testCatalog(t *testing.T) (*expr.Catalog, string) {
	t.Helper()
	dir := testfiles.Write(t, t.TempDir(), map[string]string{
		"lang/go.md": "# Go\n", "lang/python.md": "# Python\n", "lang/java.md": "# Java\n",
		"docs/intro.md": "# Intro\n", "docs/setup.md": "# Setup\n", "docs/api.md": "# API\n",
		"docs/hello.md.tmpl": "Hello {{.Name}}\n",
		"catalog.yaml":       catalogYAML,
	})
	cat, err := expr.Load(filepath.Join(dir, "catalog.yaml"), expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cat, filepath.Join(dir, "catalog.yaml")
}

func TestToolSet(t *testing.T) {
	cat, _ := testCatalog(t)
	var names []string
	for _, tool := range exprtools.Tools(cat, exprtools.Options{}) {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("%s: missing schema or description", tool.Name)
		}
		ro := strings.HasPrefix(tool.Name, "get_") || strings.HasSuffix(tool.Name, "_list")
		if tool.Annotations.ReadOnly != ro {
			t.Errorf("%s: ReadOnly = %v", tool.Name, tool.Annotations.ReadOnly)
		}
		if strings.HasSuffix(tool.Name, "_remove") && !tool.Annotations.Destructive {
			t.Errorf("%s is not marked destructive", tool.Name)
		}
	}
	want := []string{"get_content", "get_collection_content", "category_list", "collection_list",
		"category_add", "category_update", "category_remove", "collection_add", "collection_update", "collection_remove"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	if got := len(exprtools.Tools(cat, exprtools.Options{ReadOnly: true})); got != 4 {
		t.Errorf("read-only set has %d tools, want 4", got)
	}
	getContent, _ := adapters.Find(exprtools.Tools(cat, exprtools.Options{}), "get_content")
	for _, s := range []string{"lang/python+java,docs/api,guidelines", "'+'", "collection_list"} {
		if !strings.Contains(getContent.Description, s) {
			t.Errorf("get_content description does not teach %q", s)
		}
	}
}

func TestDirect(t *testing.T) {
	cat, path := testCatalog(t)
	tools := exprtools.Tools(cat, exprtools.Options{})

	out, err := adapterstest.Call(t, tools, "get_content", `{"expression": "lang/python+java, docs/api"}`)
	if err != nil {
		t.Fatal(err)
	}
	wantContent := "==> lang/python.md <==\n# Python\n\n==> lang/java.md <==\n# Java\n\n==> docs/api.md <==\n# API\n"
	if out["content"] != wantContent || out["expression"] != "lang/python+java,docs/api" || out["truncated"] != false {
		t.Errorf("get_content = %v", out)
	}
	out, err = adapterstest.Call(t, tools, "get_content", `{"expression": "lang", "pattern": "go"}`)
	if err != nil || out["content"] != "# Go\n" {
		t.Errorf("pattern argument: %v %v", out, err)
	}
	out, err = adapterstest.Call(t, tools, "get_content", `{"expression": "docs/hello.md.tmpl", "data": {"Name": "Ada"}}`)
	if err != nil || out["content"] != "Hello Ada\n" {
		t.Errorf("template: %v %v", out, err)
	}
	out, err = adapterstest.Call(t, tools, "get_content", `{"expression": "docs/nothing"}`)
	if err != nil || out["content"] != "" || !strings.Contains(out["note"].(string), "No documents matched") {
		t.Errorf("nothing matched: %v %v", out, err)
	}
	out, err = adapterstest.Call(t, tools, "get_collection_content", `{"collection": "onboarding"}`)
	if err != nil || !strings.Contains(out["content"].(string), "# Setup") {
		t.Errorf("get_collection_content: %v %v", out, err)
	}

	// Mutations are saved to the file, keeping its comments.
	if _, err := adapterstest.Call(t, tools, "category_add", `{"name": "more", "dir": "docs", "patterns": ["a*"]}`); err != nil {
		t.Fatal(err)
	}
	out, err = adapterstest.Call(t, tools, "collection_add", `{"name": "mixed-example", "description": "Both syntaxes", "categories": ["lang", "docs/intro*.md"]}`)
	if err != nil || out["saved"] != true {
		t.Fatalf("collection_add: %v %v", out, err)
	}
	if _, err := adapterstest.Call(t, tools, "category_update", `{"name": "docs", "description": "Docs"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := adapterstest.Call(t, tools, "collection_update", `{"name": "onboarding", "categories": ["docs/setup"]}`); err != nil {
		t.Fatal(err)
	}
	if _, err := adapterstest.Call(t, tools, "category_remove", `{"name": "more"}`); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(path)
	for _, s := range []string{"# guide catalog\n", "# product docs", "      - docs: [\"intro*.md\"]\n", "description: Docs"} {
		if !strings.Contains(string(file), s) {
			t.Errorf("catalog file lacks %q:\n%s", s, file)
		}
	}
	cols, err := adapterstest.Call(t, tools, "collection_list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []any{
		map[string]any{"name": "onboarding", "categories": []any{"docs/setup"}},
		map[string]any{"name": "mixed-example", "description": "Both syntaxes", "categories": []any{"lang", "docs/intro*.md"}},
	}
	if diff := cmp.Diff(wantCols, cols["collections"]); diff != "" {
		t.Errorf("collection_list (-want +got):\n%s", diff)
	}
	cats, err := adapterstest.Call(t, tools, "category_list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	wantCats := []any{
		map[string]any{"name": "lang", "dir": "lang", "patterns": []any{"*.md"}, "description": "Languages"},
		map[string]any{"name": "docs", "dir": "docs", "patterns": []any{"*.md"}, "description": "Docs"},
	}
	if diff := cmp.Diff(wantCats, cats["categories"]); diff != "" {
		t.Errorf("category_list (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	cat, _ := testCatalog(t)
	tools := exprtools.Tools(cat, exprtools.Options{})
	for _, tt := range []struct{ tool, args, code, msg string }{
		{"get_content", `{"expression": "lang/"}`, "PARSE_ERROR", "suggestion: lang (the category's default patterns)"},
		{"get_content", `{"expression": "lnag"}`, "UNKNOWN_NAME", "did you mean lang?"},
		{"get_content", `{}`, "INVALID_ARGUMENT", "expression"},
		{"get_content", `{"expression": "lang", "bogus": 1}`, "INVALID_ARGUMENT", "bogus"},
		{"get_content", `{"expression": "lang", "format": "html"}`, "INVALID_ARGUMENT", `must be one of ["delimited","multipart"]`},
		{"get_collection_content", `{"collection": "lang"}`, "UNKNOWN_NAME", "use get_content for categories"},
		{"category_add", `{"name": "_x", "dir": "docs"}`, "INVALID_NAME", "reserved for system categories"},
		{"category_add", `{"name": "lang", "dir": "docs"}`, "ALREADY_EXISTS", "category_update"},
		{"category_remove", `{"name": "docs"}`, "IN_USE", "onboarding"},
		{"collection_add", `{"name": "c", "categories": ["lang,docs"]}`, "INVALID_ARGUMENT", "split"},
		{"collection_add", `{"name": "c", "expression": "c,lang"}`, "CYCLE", "cannot include itself"},
		{"collection_update", `{"name": "onboarding", "categories": ["lang"], "expression": "lang"}`, "INVALID_ARGUMENT", "not both"},
	} {
		tool, _ := adapters.Find(tools, tt.tool)
		_, err := tool.Handler(context.Background(), json.RawMessage(tt.args))
		te, _ := adapters.ErrorOf(err)
		if te.Code != tt.code || !strings.Contains(te.Message, tt.msg) {
			t.Errorf("%s %s: got %s %q, want %s containing %q", tt.tool, tt.args, te.Code, te.Message, tt.code, tt.msg)
		}
	}
	var se *expr.SyntaxError
	_, err := adapterstest.Call(t, tools, "get_content", `{"expression": "a,,b"}`)
	if !errors.As(err, &se) || se.Pos != 2 {
		t.Errorf("parse error position lost: %v", err)
	}
}

// TestErrorsMatchSentinels checks the tools' errors against the sentinels: shared codes match
// agentfiles', expr's own codes match expr's, and the wire text of a parse error is unchanged.
func TestErrorsMatchSentinels(t *testing.T) {
	cat, _ := testCatalog(t)
	tools := exprtools.Tools(cat, exprtools.Options{})
	for _, tt := range []struct {
		tool, args string
		sentinel   error
	}{
		{"category_add", `{"name": "lang", "dir": "docs"}`, agentfiles.ErrAlreadyExists},
		{"collection_update", `{"name": "onboarding", "categories": ["lang"], "expression": "lang"}`, agentfiles.ErrInvalidArgument},
		{"get_content", `{"bogus": 1}`, agentfiles.ErrInvalidArgument},
		{"get_collection_content", `{"collection": "lang"}`, expr.ErrUnknownName},
		{"category_remove", `{"name": "docs"}`, expr.ErrInUse},
		{"get_content", `{"expression": "lang/"}`, expr.ErrParseError},
	} {
		_, err := adapterstest.Call(t, tools, tt.tool, tt.args)
		if !errors.Is(err, tt.sentinel) {
			t.Errorf("%s %s: errors.Is(%v, %v) = false", tt.tool, tt.args, err, tt.sentinel)
		}
	}
	_, err := adapterstest.Call(t, tools, "get_content", `{"expression": "a,,b"}`)
	te, internal := adapters.ErrorOf(err)
	want := adapters.ToolError{Code: "PARSE_ERROR", Kind: agentfiles.KindInvalid,
		Message: `empty term: two commas with nothing between them, or a leading comma at byte 2 of the expression (","); suggestion: a,b`}
	if diff := cmp.Diff(want, te); diff != "" || internal {
		t.Errorf("ErrorOf(parse error) internal=%v (-want +got):\n%s", internal, diff)
	}
}

// TestOverMCP runs get_content through adapters/mcpsdk with the SDK's client over
// in-memory transports.
func TestOverMCP(t *testing.T) {
	cat, _ := testCatalog(t)
	cs := adapterstest.Connect(t, exprtools.Tools(cat, exprtools.Options{}), mcpsdk.Options{})
	if names := mcptest.ToolNames(t, cs); len(names) != 10 {
		t.Errorf("%d tools listed, want 10: %v", len(names), names)
	}
	res, text := mcptest.CallTool(t, cs, "get_content", map[string]any{"expression": "onboarding,lang/python"})
	if res.IsError {
		t.Fatalf("error result: %v", text)
	}
	var got struct {
		Content   string `json:"content"`
		Documents []struct {
			Category, Path string
		} `json:"documents"`
	}
	mcptest.Decode(t, res, &got)
	wantDocs := []struct{ Category, Path string }{{"docs", "intro.md"}, {"docs", "setup.md"}, {"lang", "go.md"}, {"lang", "python.md"}}
	if diff := cmp.Diff(wantDocs, []struct{ Category, Path string }(got.Documents)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got.Content, "==> docs/intro.md <==\n# Intro\n") {
		t.Errorf("content = %q", got.Content)
	}

	res, text = mcptest.CallTool(t, cs, "get_content", map[string]any{"expression": "docs/+x"})
	var te adapters.ToolError
	if err := json.Unmarshal([]byte(text), &te); err != nil || !res.IsError || te.Code != "PARSE_ERROR" {
		t.Errorf("bad expression over MCP: isError=%v %+v", res.IsError, te)
	}
}
