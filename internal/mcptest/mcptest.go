// Package mcptest opens MCP client sessions of the official Go SDK for tests, over any
// transport, and calls tools through them as an agent would. The tests of the bindings, the
// tool sets and the example servers share it.
//
//	cs := mcptest.ConnectHTTP(t, base+"/mcp", "dev") // closed when the test ends
//	out := mcptest.MustCall(t, cs, "file_read", map[string]any{"project": "p", "path": "/a.md"})
//
// All functions are safe for concurrent use.
package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// timeout bounds connecting and each call.
const timeout = 30 * time.Second

// Connect opens a client session over tr; it closes when the test ends.
func Connect(tb testing.TB, tr mcp.Transport) *mcp.ClientSession {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentfiles-test", Version: "0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		tb.Fatalf("MCP connect: %v", err)
	}
	tb.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ConnectServer connects to server over the in-memory transport; both ends close when the test
// ends.
func ConnectServer(tb testing.TB, server *mcp.Server) *mcp.ClientSession {
	tb.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ss.Close() })
	return Connect(tb, ct)
}

// ConnectCommand starts bin with args and connects to it over its stdin and stdout; the
// process ends with the session.
func ConnectCommand(tb testing.TB, bin string, args ...string) *mcp.ClientSession {
	tb.Helper()
	return Connect(tb, &mcp.CommandTransport{Command: exec.Command(bin, args...)})
}

// ConnectHTTP connects to the streamable HTTP endpoint (a URL ending in /mcp, say), sending
// token as a bearer token ("" for none), without retries.
func ConnectHTTP(tb testing.TB, endpoint, token string) *mcp.ClientSession {
	tb.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer(token)
	}
	return Connect(tb, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1})
}

// bearer adds an Authorization header to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// ToolNames lists the session's tools, sorted.
func ToolNames(tb testing.TB, cs *mcp.ClientSession) []string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		tb.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// CallTool calls the tool name with args and returns the result and the text of its first
// content. A failed call (not an isError result, which is returned) or a result without text
// fails the test.
func CallTool(tb testing.TB, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		tb.Fatalf("tools/call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		tb.Fatalf("tools/call %s: no content", name)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		tb.Fatalf("tools/call %s: content is %T, want text", name, res.Content[0])
	}
	return res, text.Text
}

// Call calls a tool and decodes its text as a JSON object: the result, or the {code, message}
// of an isError result (ok false).
func Call(tb testing.TB, cs *mcp.ClientSession, name string, args any) (out map[string]any, ok bool) {
	tb.Helper()
	res, text := CallTool(tb, cs, name, args)
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		tb.Fatalf("tools/call %s: text is not a JSON object: %q", name, text)
	}
	return out, !res.IsError
}

// MustCall is Call that fails the test on an isError result.
func MustCall(tb testing.TB, cs *mcp.ClientSession, name string, args any) map[string]any {
	tb.Helper()
	out, ok := Call(tb, cs, name, args)
	if !ok {
		tb.Fatalf("tools/call %s: error result %v", name, out)
	}
	return out
}

// Decode decodes the structured content of res into v.
func Decode(tb testing.TB, res *mcp.CallToolResult, v any) {
	tb.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("structured content %s: %v", b, err)
	}
}

// Exchange is one tool call of a [Script] and what its answer must show.
type Exchange struct {
	Tool string
	Args map[string]any
	// Want is text the answer must contain.
	Want string
	// IsError says the answer must be an isError result; otherwise it must be a result with
	// structured content.
	IsError bool
}

// Script makes the calls of exchanges in order and reports every answer that is not as
// expected.
func Script(tb testing.TB, cs *mcp.ClientSession, exchanges []Exchange) {
	tb.Helper()
	for _, x := range exchanges {
		res, text := CallTool(tb, cs, x.Tool, x.Args)
		if res.IsError != x.IsError || !strings.Contains(text, x.Want) || !x.IsError && res.StructuredContent == nil {
			tb.Errorf("%s %v: isError %v, text %s; want isError %v and %q", x.Tool, x.Args, res.IsError, text, x.IsError, x.Want)
		}
	}
}
