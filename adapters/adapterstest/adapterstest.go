// Package adapterstest tests tool sets, ours and yours, the way agents reach them.
//
// # Conformance
//
// [TestToolSet] is a conformance suite in the spirit of testing/fstest: it checks that a tool
// set keeps the wire conventions of package adapters (snake_case names, truncated and
// next_cursor taken back as cursor, coded errors, schemas that validate, descriptions that state
// the configured limits) and reports every violation. Build the tool set with a configuration
// that differs from the defaults, and give it calls that must succeed and calls that must fail:
//
//	func TestConformance(t *testing.T) {
//		tools := mytools.Tools(svc) // svc built with non-default limits
//		adapterstest.TestToolSet(t, tools, adapterstest.Options{
//			Codes:    mypkg.Codes(),
//			Calls:    []adapterstest.ToolCall{{Tool: "thing_list", Args: `{"limit": 1}`}},
//			BadCalls: []adapterstest.ToolCall{{Tool: "thing_list", Args: `{"limit": -1}`}},
//			Describe: map[string][]string{"thing_list": {"7 things by default"}},
//		})
//	}
//
// # Calling tools
//
// [Call] runs a tool's handler directly, and [Connect] opens a real MCP client session of the
// official Go SDK connected over an in-memory transport. For the tests of a binding, EchoWrite is
// a file_write that answers with the arguments it was given.
package adapterstest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect registers tools on a fresh MCP server with opts and returns an SDK client session
// connected to it over the in-memory transport; both ends close when the test ends.
func Connect(t testing.TB, tools []adapters.Tool, opts mcpsdk.Options) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "adapterstest"}, nil)
	mcpsdk.Register(server, tools, opts)
	return mcptest.ConnectServer(t, server)
}

// Call runs the named tool's handler directly with the JSON arguments args and returns its
// result decoded as generic JSON, or the handler's error. It fails t if there is no such tool.
func Call(t testing.TB, tools []adapters.Tool, name, args string) (map[string]any, error) {
	t.Helper()
	return CallContext(context.Background(), t, tools, name, args)
}

// CallContext is Call with a context, for tools that read the caller's identity from it.
func CallContext(ctx context.Context, t testing.TB, tools []adapters.Tool, name, args string) (map[string]any, error) {
	t.Helper()
	tool, ok := adapters.Find(tools, name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	out, err := tool.Call(ctx, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

// EchoWriteIn is the argument object of the tool EchoWrite returns.
type EchoWriteIn struct {
	Project string `json:"project" jsonschema:"project"`
	Path    string `json:"path" jsonschema:"path"`
	Content string `json:"content" jsonschema:"content"`
}

// EchoWrite returns a stand-in for file_write that stores nothing and answers with the
// arguments it decoded, so that a test of a binding sees exactly what a real file_write would
// have been given (content is a redacted argument, as there).
func EchoWrite() adapters.Tool {
	return adapters.NewTool("file_write", "Write", "Writes.", adapters.Annotations{},
		func(_ context.Context, in EchoWriteIn) (EchoWriteIn, error) { return in, nil })
}
