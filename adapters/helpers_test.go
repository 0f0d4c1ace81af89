package adapters_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectMCP registers tools on a fresh MCP server and returns an SDK client session connected
// to it over the in-memory transport; both ends close when the test ends.
func connectMCP(t *testing.T, tools []adapters.Tool, opts *mcpsdk.Options) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "adapters-test"}, nil)
	mcpsdk.Register(server, tools, opts)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call runs the named tool's handler directly and returns its result as generic JSON.
func call(t *testing.T, tools []adapters.Tool, name, args string) (map[string]any, error) {
	t.Helper()
	tool, ok := adapters.Find(tools, name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	out, err := tool.Handler(context.Background(), json.RawMessage(args))
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
