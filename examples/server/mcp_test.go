package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds an Authorization header to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP opens an MCP session (Go SDK client) to base/mcp with token ("" for none).
func connectHTTP(t *testing.T, base, token string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearerTransport{token}
	}
	return connect(t, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1})
}

// connectStdio starts the server binary with args and opens an MCP session over its stdio.
func connectStdio(t *testing.T, bin string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	return connect(t, &mcp.CommandTransport{Command: cmd})
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "examples-server-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolNames lists the session's tools.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// mcpCall calls a tool and returns its structured result, or the {code, message} of an
// isError result (ok=false).
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (out map[string]any, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("tools/call %s: no content", name)
	}
	text, isText := res.Content[0].(*mcp.TextContent)
	if !isText {
		t.Fatalf("tools/call %s: content is %T, want text", name, res.Content[0])
	}
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
		t.Fatalf("tools/call %s: text is not a JSON object: %q", name, text.Text)
	}
	return out, !res.IsError
}

// mustMCP is mcpCall that fails the test on an isError result.
func mustMCP(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	out, ok := mcpCall(t, cs, name, args)
	if !ok {
		t.Fatalf("tools/call %s: error result %v", name, out)
	}
	return out
}
