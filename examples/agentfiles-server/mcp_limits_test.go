package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMCPLimits: -max-body-bytes bounds /mcp as it bounds /tools, a JSON-RPC batch has a
// bound, and every refusal of the transport is a JSON error with a code.
func TestMCPLimits(t *testing.T) {
	srv := startServer(t, "-max-body-bytes", "2048", "-log-level", "off")
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	tests := []struct {
		name, method, body, contentType string
		status                          int
		code                            string
	}{
		{"over -max-body-bytes", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 4096) + `"}}`, "application/json", 413, "PAYLOAD_TOO_LARGE"},
		{"batch of 17", http.MethodPost, "[" + strings.TrimSuffix(strings.Repeat(list+",", 17), ",") + "]", "application/json", 400, "INVALID_ARGUMENT"},
		{"GET", http.MethodGet, "", "", 405, "METHOD_NOT_ALLOWED"},
		{"wrong content type", http.MethodPost, list, "text/plain", 415, "INVALID_ARGUMENT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.base+"/mcp", strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+DevToken)
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var out struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("not JSON: %.200q", raw)
			}
			if diff := cmp.Diff([]any{tc.status, tc.code}, []any{resp.StatusCode, out.Error.Code}); diff != "" || out.Error.Message == "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, raw)
			}
		})
	}
}
