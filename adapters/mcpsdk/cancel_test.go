package mcpsdk_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type waitIn struct{}
type waitOut struct{}

// TestAbandonedCallIsCancelled: over stateless streamable HTTP, a tool call whose client goes
// away has its context cancelled, whatever the protocol version, so its work stops.
func TestAbandonedCallIsCancelled(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			started, stopped, giveUp := make(chan struct{}), make(chan struct{}), make(chan struct{})
			tool := adapters.NewTool("wait", "Wait", "Waits until cancelled.", adapters.Annotations{ReadOnly: true},
				func(ctx context.Context, _ waitIn) (waitOut, error) {
					close(started)
					select {
					case <-ctx.Done():
						close(stopped)
					case <-giveUp: // the test failed: let the server close
					}
					return waitOut{}, ctx.Err()
				})
			server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
			mcpsdk.Register(server, []adapters.Tool{tool}, mcpsdk.Options{Logger: slog.New(slog.DiscardHandler)})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
			ts := httptest.NewServer(mcpsdk.GuardHTTP(h, mcpsdk.HTTPLimits{}))
			defer ts.Close()
			defer close(giveUp)
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", version)
			go func() {
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatal("the tool did not start")
			}
			cancel()
			select {
			case <-stopped:
			case <-time.After(2 * time.Second):
				t.Fatal("the tool's context was not cancelled within 2 s of its client leaving")
			}
		})
	}
}
