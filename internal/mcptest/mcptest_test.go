package mcptest_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// TestSession: the helpers see a tool's answers as an agent does, errors included.
func TestSession(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "mcptest"}, nil)
	mcpsdk.Register(server, []adapters.Tool{adapters.NewTool("echo", "Echo", "Echoes text; empty text fails.", adapters.Annotations{ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) {
			if in.Text == "" {
				return echoOut{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "text is empty", "text")
			}
			return echoOut{Echo: in.Text}, nil
		})}, mcpsdk.Options{})
	cs := mcptest.ConnectServer(t, server)

	if names := mcptest.ToolNames(t, cs); len(names) != 1 || names[0] != "echo" {
		t.Errorf("ToolNames = %v", names)
	}
	if out := mcptest.MustCall(t, cs, "echo", map[string]any{"text": "hi"}); out["echo"] != "hi" {
		t.Errorf("MustCall = %v", out)
	}
	if out, ok := mcptest.Call(t, cs, "echo", map[string]any{"text": ""}); ok || out["code"] != "INVALID_ARGUMENT" {
		t.Errorf("Call of a failing call = %v, %v", out, ok)
	}
	res, _ := mcptest.CallTool(t, cs, "echo", map[string]any{"text": "structured"})
	var got echoOut
	mcptest.Decode(t, res, &got)
	if got.Echo != "structured" {
		t.Errorf("Decode = %+v", got)
	}
	mcptest.Script(t, cs, []mcptest.Exchange{
		{Tool: "echo", Args: map[string]any{"text": "one"}, Want: `"echo":"one"`},
		{Tool: "echo", Args: map[string]any{"text": ""}, Want: "INVALID_ARGUMENT", IsError: true},
	})
}
