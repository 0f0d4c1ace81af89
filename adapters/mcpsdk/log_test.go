package mcpsdk_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stateless MCP request once logged three INFO lines from the SDK and none for the tool
// call. With QuietLogger the SDK's lines are DEBUG, and Register logs one INFO line per call.
func TestOneInfoLinePerToolCall(t *testing.T) {
	var buf cmdtest.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: mcpsdk.QuietLogger(logger)})
	tools := append(testTools(), adapters.NewTool("put", "Put", "Stores content.", adapters.Annotations{},
		func(_ context.Context, in struct {
			Content string `json:"content"`
		}) (struct{}, error) {
			return struct{}{}, nil
		}))
	mcpsdk.Register(s, tools, mcpsdk.Options{Logger: logger})
	h := mcpsdk.HTTPHandler(func(*http.Request) *mcp.Server { return s }, nil, &mcp.StreamableHTTPOptions{Stateless: true, Logger: mcpsdk.QuietLogger(logger)})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs := mcptest.ConnectHTTP(t, srv.URL, "")
	mcptest.MustCall(t, cs, "put", map[string]any{"content": "sk-SECRET file body"})

	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], `msg="tool call"`) || !strings.Contains(lines[0], "tool=put") {
		t.Fatalf("log lines:\n%s", buf.String())
	}
	if strings.Contains(lines[0], "SECRET") || !strings.Contains(lines[0], "redacted") {
		t.Errorf("the content is not redacted: %s", lines[0])
	}
}

func TestQuietLoggerKeepsWarnings(t *testing.T) {
	var buf strings.Builder
	quiet := mcpsdk.QuietLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	quiet.Info("session initialized")
	quiet.Warn("write failed")
	if got := buf.String(); strings.Contains(got, "session initialized") || !strings.Contains(got, "level=WARN msg=\"write failed\"") {
		t.Errorf("log: %s", got)
	}
}
