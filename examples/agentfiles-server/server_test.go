package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/testfiles"
)

// TestBadRequests sends every kind of bad request to the HTTP API and MCP and checks the status
// and the coded error; the server keeps serving throughout.
func TestBadRequests(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("# test tenants\nalice-key alice\nbob-key bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "-token-file", tokens, "-max-body-bytes", "4096", "-log-level", "off")
	mustCall(t, srv.base, "alice-key", "file_write", map[string]any{"project": "p", "path": "/secret.md", "content": "alice's"})

	tests := []struct {
		name       string
		token      string
		tool       string
		body       any
		wantStatus int
		wantCode   string
	}{
		{"oversized body", "alice-key", "file_write", `{"project":"p","path":"/big","content":"` + strings.Repeat("x", 5000) + `"}`, 413, "PAYLOAD_TOO_LARGE"},
		{"bad JSON", "alice-key", "file_write", `{"project": "p", "path":`, 400, "INVALID_ARGUMENT"},
		{"not an object", "alice-key", "file_list", `[1, 2]`, 400, "INVALID_ARGUMENT"},
		{"unknown argument", "alice-key", "file_list", `{"project": "p", "colour": "red"}`, 400, "INVALID_ARGUMENT"},
		{"unknown tool", "alice-key", "file_frobnicate", `{}`, 404, "UNKNOWN_TOOL"},
		{"missing token", "", "file_read", map[string]any{"project": "p", "path": "/secret.md"}, 401, "UNAUTHENTICATED"},
		{"unknown token", "mallory-key", "file_read", map[string]any{"project": "p", "path": "/secret.md"}, 401, "UNAUTHENTICATED"},
		{"another tenant's project", "bob-key", "file_read", map[string]any{"project": "p", "path": "/secret.md"}, 404, "NOT_FOUND"},
		{"another tenant deletes", "bob-key", "file_delete", map[string]any{"project": "p", "path": "/secret.md"}, 404, "NOT_FOUND"},
		{"bad path", "alice-key", "file_read", map[string]any{"project": "p", "path": "../etc/passwd"}, 400, "INVALID_PATH"},
		{"blank query", "alice-key", "file_search", map[string]any{"project": "p", "query": "   "}, 400, "INVALID_QUERY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := callAPI(t, srv.base, tt.token, tt.tool, tt.body)
			if r.Status != tt.wantStatus || r.errorCode() != tt.wantCode {
				t.Errorf("status %d code %q, want %d %q; body %s", r.Status, r.errorCode(), tt.wantStatus, tt.wantCode, r.Raw)
			}
			e, _ := r.Body["error"].(map[string]any)
			if msg, _ := e["message"].(string); msg == "" {
				t.Errorf("error without a message: %s", r.Raw)
			}
		})
	}

	// Bob's project "p" is his own and empty; Alice's file is intact.
	list := mustCall(t, srv.base, "bob-key", "file_list", map[string]any{"project": "p"})
	if entries := list["entries"].([]any); len(entries) != 0 {
		t.Errorf("bob sees %v in project p, want nothing", entries)
	}
	read := mustCall(t, srv.base, "alice-key", "file_read", map[string]any{"project": "p", "path": "/secret.md"})
	if read["content"] != "alice's" {
		t.Errorf("alice's file after bob's attempts = %v", read["content"])
	}

	// MCP refuses a request without a token with the same coded error.
	resp, err := http.Post(srv.base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"UNAUTHENTICATED"`) {
		t.Errorf("MCP without a token: %d %s, want 401 UNAUTHENTICATED", resp.StatusCode, body)
	}

	// A request for another host name is refused (DNS rebinding protection on loopback).
	req, _ := http.NewRequest(http.MethodGet, srv.base+"/", nil)
	req.Host = "evil.example:8080"
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("request for host evil.example: status %d, want 403", resp.StatusCode)
		}
	}

	// Still serving.
	if got := mustCall(t, srv.base, "alice-key", "file_stat", map[string]any{"project": "p", "path": "/secret.md"}); got["exists"] != true {
		t.Errorf("file_stat after the bad requests = %v", got)
	}
}

// TestConcurrentMixedRequests runs good and bad requests from many goroutines at once: every
// append lands whole and every bad request gets its coded error.
func TestConcurrentMixedRequests(t *testing.T) {
	srv := startServer(t, "-max-body-bytes", "2048", "-log-level", "off")
	const workers, rounds = 16, 8
	var wg sync.WaitGroup
	errs := make(chan string, workers*rounds*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				line := fmt.Sprintf("w%02d-r%02d\n", w, i)
				r, err := doAPI(srv.base, "dev", "file_write", map[string]any{"project": "mixed", "path": "/log.txt", "content": line})
				if err != nil || r.Status != 200 {
					errs <- fmt.Sprintf("append %q: %v %d %s", line, err, r.Status, r.Raw)
				}
				bad, err := doAPI(srv.base, "dev", "file_write", `{"project":"mixed","path":"/x","content":"`+strings.Repeat("y", 3000)+`"}`)
				if err != nil || bad.Status != 413 || bad.errorCode() != "PAYLOAD_TOO_LARGE" {
					errs <- fmt.Sprintf("oversized: %v %d %s", err, bad.Status, bad.Raw)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": "mixed", "path": "/log.txt"})["content"].(string)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != workers*rounds {
		t.Fatalf("log has %d lines, want %d", len(lines), workers*rounds)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if len(l) != len("w00-r00") || seen[l] {
			t.Fatalf("line %q is torn or duplicated", l)
		}
		seen[l] = true
	}
}

// TestMCPOverHTTP uses the Go SDK client over streamable HTTP: a write over MCP is visible
// through the JSON API; without a token and with -mcp-anonymous the documentation tools work
// and the file tools refuse.
func TestMCPOverHTTP(t *testing.T) {
	docs := testfiles.Write(t, t.TempDir(), map[string]string{"guide.md": "# Guide\n\nHello.\n\n## Install\n\nRun it.\n"})
	catDir := testfiles.Write(t, t.TempDir(), map[string]string{
		"style/go.md":  "Use gofmt.\n",
		"catalog.yaml": "categories:\n  style: {dir: style, patterns: [\"*.md\"], description: Style guides}\n",
	})
	catalog := filepath.Join(catDir, "catalog.yaml")
	srv := startServer(t, "-docs", docs, "-catalog", catalog, "-mcp-anonymous", "-log-level", "off")

	cs := mcptest.ConnectHTTP(t, srv.base+"/mcp", "dev")
	names := mcptest.ToolNames(t, cs)
	for _, want := range []string{"file_delete", "file_list", "file_read", "file_search", "file_stat", "file_write", "get_content", "docs_list_documentation_files"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	mcptest.MustCall(t, cs, "file_write", map[string]any{"project": "mcp", "path": "/a.md", "content": "from MCP"})
	if got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": "mcp", "path": "/a.md"}); got["content"] != "from MCP" {
		t.Errorf("file_read over HTTP after an MCP write = %v", got["content"])
	}

	anon := mcptest.ConnectHTTP(t, srv.base+"/mcp", "")
	docsList := mcptest.MustCall(t, anon, "docs_list_documentation_files", map[string]any{})
	if !strings.Contains(fmt.Sprint(docsList), "guide.md") {
		t.Errorf("anonymous docs_list_documentation_files = %v", docsList)
	}
	content := mcptest.MustCall(t, anon, "get_content", map[string]any{"expression": "style/go"})
	if content["content"] != "Use gofmt.\n" {
		t.Errorf("anonymous get_content = %v", content)
	}
	if slices.Contains(names, "category_add") {
		t.Errorf("the catalog tools that edit it are offered without -catalog-writable: %v", names)
	}
	out, ok := mcptest.Call(t, anon, "file_list", map[string]any{"project": "mcp"})
	if ok || out["code"] != "PERMISSION_DENIED" {
		t.Errorf("anonymous file_list = ok %v %v, want PERMISSION_DENIED", ok, out)
	}
}

// TestStdioWithNoFlags runs the built binary with only -stdio, as an MCP client configuration
// would, from a directory outside the repository, and uses the file tools over it: every
// family is on.
func TestStdioWithNoFlags(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	t.Chdir(t.TempDir())
	cs := mcptest.ConnectCommand(t, bin, "-stdio")
	names := mcptest.ToolNames(t, cs)
	want := []string{
		"category_list", "collection_list", "consultation",
		"docs_list_documentation_files", "docs_read_sections", "docs_search", "docs_table_of_contents",
		"file_delete", "file_list", "file_read", "file_search", "file_stat", "file_write",
		"get_collection_content", "get_content",
	}
	var missing []string
	for _, w := range want {
		if !slices.Contains(names, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("tools over stdio lack %v; got %v", missing, names)
	}
	mcptest.MustCall(t, cs, "file_write", map[string]any{"project": "stdio", "path": "/notes/a.md", "content": "over stdio\n"})
	got := mcptest.MustCall(t, cs, "file_read", map[string]any{"project": "stdio", "path": "/notes/a.md"})
	if got["content"] != "over stdio\n" {
		t.Errorf("file_read over stdio = %v", got)
	}
}

// TestStartupToFirstRequest measures how long the built binary takes from exec to its first
// answered tool call with the in-memory store, and that SIGTERM stops it cleanly. The number is
// logged, not asserted (shared CI machines are noisy).
func TestStartupToFirstRequest(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	start := time.Now()
	p := startProcess(t, bin, "-log-level", "info")
	base, sc, cmd, stderr := p.base, p.banner, p.cmd, p.stderr
	listening := time.Since(start)
	r := callAPI(t, base, "dev", "file_list", map[string]any{"project": "startup"})
	answered := time.Since(start)
	if r.Status != 200 {
		t.Fatalf("first request: %d %s", r.Status, r.Raw)
	}
	t.Logf("start-up (in-memory store): listening after %v, first tool call answered after %v", listening.Round(time.Millisecond), answered.Round(time.Millisecond))

	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "Hint: ") {
			break
		}
	}
	if !strings.Contains(rest.String(), base+"/#token=dev") {
		t.Errorf("banner lacks the console URL with the dev token:\n%s", rest.String())
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("no shutdown log line; stderr: %s", stderr.String())
	}
}

// TestRefusesExposureWithoutTokens checks the listen-address guard and flag errors.
func TestRefusesExposureWithoutTokens(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-addr", "0.0.0.0:0"}, "listens beyond loopback"},
		{[]string{"-addr", ":0"}, "listens beyond loopback"},
		{[]string{"-addr", "0.0.0.0:0", "-mcp-anonymous"}, "before using -mcp-anonymous"},
		{[]string{"-addr", "0.0.0.0:0", "-dev-token", "s3cret"}, ""},
		{[]string{"-addr", "0.0.0.0:0", "-accept-any-token"}, ""},
		{[]string{"-addr", "localhost:0"}, ""},
		{[]string{"-addr", "[::1]:0"}, ""},
		{[]string{"-dev-token", ""}, "must not be empty"},
		{[]string{"-log-level", "loud"}, "-log-level"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseFlags: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("parseFlags error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
