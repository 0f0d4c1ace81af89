package mcpsdk_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGuardHTTP: every refusal of the MCP endpoint, the guard's own and the SDK's transport
// errors, is a JSON error with a code; bodies and batches are bounded; Allow sees every message.
func TestGuardHTTP(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, []adapters.Tool{adapterstest.EchoWrite()}, mcpsdk.Options{Logger: slog.New(slog.DiscardHandler)})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: 2000})
	var allowed []int
	h := mcpsdk.GuardHTTP(sdk, mcpsdk.HTTPLimits{MaxBodyBytes: 2000, MaxBatchMessages: 3, Allow: func(r *http.Request, n int) error {
		allowed = append(allowed, n)
		if r.Header.Get("X-Test-Limit") != "" {
			return agentfiles.NewError(agentfiles.CodeRateLimited, "too many requests; retry in 1s", "")
		}
		return nil
	}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	batch := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(list+",", n), ",") + "]" }
	tests := []struct {
		name, method, body string
		header             map[string]string
		status             int
		code               string // "" for a success
		allowed            []int
	}{
		{"a call", "POST", list, nil, 200, "", []int{1}},
		{"GET", "GET", "", nil, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", nil},
		{"wrong content type", "POST", list, map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType, "INVALID_ARGUMENT", []int{1}},
		{"bad protocol version", "POST", list, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, http.StatusBadRequest, "INVALID_ARGUMENT", []int{1}},
		{"body too large", "POST", `{"x":"` + strings.Repeat("a", 3000) + `"}`, nil, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", nil},
		{"batch over the cap", "POST", batch(4), nil, http.StatusBadRequest, "INVALID_ARGUMENT", nil},
		{"rate limited", "POST", batch(2), map[string]string{"X-Test-Limit": "1", "Mcp-Protocol-Version": "2025-03-26"}, http.StatusTooManyRequests, "RATE_LIMITED", []int{2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			allowed = nil
			req, _ := http.NewRequest(tc.method, ts.URL, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var out struct {
				Error adapters.ToolError `json:"error"`
			}
			if tc.code != "" {
				if err := json.Unmarshal(raw, &out); err != nil || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
					t.Fatalf("not a JSON error (%s): %.200s", resp.Header.Get("Content-Type"), raw)
				}
			}
			got := []any{resp.StatusCode, out.Error.Code, allowed}
			if diff := cmp.Diff([]any{tc.status, tc.code, tc.allowed}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nbody %.300s", diff, raw)
			}
			if tc.code != "" && out.Error.Message == "" {
				t.Errorf("an error without a message: %s", raw)
			}
		})
	}
}
