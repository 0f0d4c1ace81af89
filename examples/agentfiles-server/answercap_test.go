package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
)

// TestGrepAnswerCapAsSent greps one match with 20+20 context lines of 4,096 control characters
// through the HTTP API: the body as sent, JSON escapes included, stays within the answer cap
// (plus its envelope), the first match's context cut to fit.
func TestGrepAnswerCapAsSent(t *testing.T) {
	srv := startServer(t, "-accept-any-token", "-log-level", "off")
	ctl := strings.Repeat(strings.Repeat("\x01", 4096)+"\n", 20)
	mustCall(t, srv.base, "capper", "file_write", map[string]any{"project": "cap", "path": "/ctl.txt", "content": ctl + "the match\n" + ctl})
	r, err := doAPI(srv.base, "capper", "file_grep", map[string]any{"project": "cap", "pattern": "the match", "context": 20})
	if err != nil || r.Status != http.StatusOK {
		t.Fatalf("file_grep: %v %d %.300s", err, r.Status, r.Raw)
	}
	if limit := fileio.DefaultGrepMaxAnswerBytes + 2048; len(r.Raw) > limit {
		t.Errorf("the answer is %d bytes as sent, more than the cap and its envelope (%d)", len(r.Raw), limit)
	}
	if !strings.Contains(string(r.Raw), "the match") || !strings.Contains(string(r.Raw), "cut to fit") {
		t.Errorf("the answer lacks the match or the note that its context was cut: %.300s", r.Raw)
	}
	// MCP sends the answer twice (structured content and its text), the text escaped again:
	// reported, not bounded by the cap.
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "file_grep", "arguments": map[string]any{"project": "cap", "pattern": "the match", "context": 20}}})
	req, _ := http.NewRequest(http.MethodPost, srv.base+"/mcp", bytes.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	req.Header.Set("Authorization", "Bearer capper")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	t.Logf("answer as sent: %d bytes over HTTP, %d bytes over MCP (status %d)", len(r.Raw), len(raw), resp.StatusCode)
}
