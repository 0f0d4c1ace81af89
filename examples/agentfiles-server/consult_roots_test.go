package main

import (
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/chattest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

func TestConsultRootFlag(t *testing.T) {
	c, err := parseFlags([]string{"-consult-model", "m", "-consult-root", "/srv/a", "-consult-root", "b"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/srv/a", "b"}, c.consultRoots); diff != "" {
		t.Errorf("consultRoots (-want +got):\n%s", diff)
	}
}

// TestConsultWithoutRootReadsOnlyTheDocs: -consult-model alone confines the consultation tool to
// the documentation directories (already served to agents), never the whole machine: /etc/shadow
// (which a server running as root could read) is OUTSIDE_ROOTS and the model is not called.
func TestConsultWithoutRootReadsOnlyTheDocs(t *testing.T) {
	model := chattest.New(t, chattest.Options{Answer: []string{"no"}, Model: "test-model"})
	srv := startServer(t, "-log-level", "off", "-consult-model", "test-model", "-consult-base-url", model.URL)
	cs := mcptest.ConnectHTTP(t, srv.base+"/mcp", "dev")
	if names := mcptest.ToolNames(t, cs); !slices.Contains(names, "consultation") {
		t.Errorf("consultation is not offered: %v", names)
	}
	r := callAPI(t, srv.base, "dev", "consultation", map[string]any{"files": []string{"/etc/shadow"}, "query": "q"})
	if !strings.Contains(string(r.Raw), "OUTSIDE_ROOTS") {
		t.Errorf("consultation of /etc/shadow without -consult-root: %d %s", r.Status, r.Raw)
	}
	if out := srv.output.String(); !strings.Contains(out, "(the documentation; -consult-root DIR names others)") {
		t.Errorf("banner does not say where consultation reads:\n%s", out)
	}
	if model.Requests() != 0 {
		t.Error("the model was called")
	}
}

// TestConsultRootConfines: with -consult-root, files inside are sent; /etc/shadow, a file
// outside, and a link inside leading outside are reported as OUTSIDE_ROOTS over both bindings,
// and never reach the model.
func TestConsultRootConfines(t *testing.T) {
	model := chattest.New(t, chattest.Options{Answer: []string{"It says hello."}, Model: "test-model", PromptTokens: 10, CompletionTokens: 3})
	root, outside := testfiles.RootAndOutside(t, map[string]string{"hello.txt": "hello\n"},
		map[string]string{"secret.txt": "sk-OUTSIDE\n"}, map[string]string{"link.txt": "secret.txt"})
	srv := startServer(t, "-log-level", "off", "-consult-model", "test-model", "-consult-base-url", model.URL, "-consult-root", root)
	if out := srv.output.String(); !strings.Contains(out, "reads local files inside "+root) {
		t.Errorf("banner does not name the root:\n%s", out)
	}

	got := mustCall(t, srv.base, "dev", "consultation", map[string]any{
		"files": []string{root + "/*.txt", outside + "/secret.txt", "/etc/shadow", root + "/../outside/secret.txt"}, "query": "What does it say?",
	})
	var codes []string
	problems, _ := got["problems"].([]any)
	for _, p := range problems {
		codes = append(codes, p.(map[string]any)["code"].(string))
	}
	if got["file_count"] != float64(1) || strings.Join(codes, ",") != "OUTSIDE_ROOTS,OUTSIDE_ROOTS,OUTSIDE_ROOTS,OUTSIDE_ROOTS" {
		t.Errorf("file_count %v, problems %v; want 1 file and four OUTSIDE_ROOTS", got["file_count"], codes)
	}
	if strings.Contains(model.LastPrompt(t), "sk-OUTSIDE") {
		t.Fatal("a file outside -consult-root reached the model")
	}

	before := model.Requests()
	r := callAPI(t, srv.base, "dev", "consultation", map[string]any{"files": []string{"/etc/shadow"}, "query": "q"})
	if r.Status != http.StatusNotFound || !strings.Contains(string(r.Raw), "OUTSIDE_ROOTS") || !strings.Contains(string(r.Raw), root) {
		t.Errorf("/etc/shadow over HTTP: %d %s", r.Status, r.Raw)
	}
	cs := mcptest.ConnectHTTP(t, srv.base+"/mcp", "dev")
	res, text := mcptest.CallTool(t, cs, "consultation", map[string]any{"files": []string{root + "/link.txt"}, "query": "q"})
	if !res.IsError || !strings.Contains(text, "OUTSIDE_ROOTS") {
		t.Errorf("a link leading out over MCP: %s", text)
	}
	if model.Requests() != before {
		t.Error("the model was called for files outside -consult-root")
	}
}

// TestConsultRootMustExist: a -consult-root that is not a directory stops the server at start.
func TestConsultRootMustExist(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-log-level", "off", "-consult-model", "m", "-consult-root", missing},
		stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard, ready: func(string) { t.Error("the server started") }})
	if err == nil || !strings.Contains(err.Error(), "-consult-root") || !strings.Contains(err.Error(), missing) {
		t.Errorf("run = %v, want an error naming -consult-root %s", err, missing)
	}
}
