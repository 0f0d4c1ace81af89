package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGrepAnswerCapAsSent greps one match with 20+20 context lines of 4,096 control characters
// through the HTTP API and through /mcp with a real MCP client, under the default answer cap
// and a configured one: each body as sent, JSON escapes included (over MCP both the structured
// content and its text copy), stays within the cap plus a fixed envelope, the first match's
// context cut to fit; the text copy holds the same answer as the structured content.
func TestGrepAnswerCapAsSent(t *testing.T) {
	ctl := strings.Repeat(strings.Repeat("\x01", 4096)+"\n", 20)
	grep := map[string]any{"project": "cap", "pattern": "the match", "context": 20}
	for _, cap := range []int64{fileio.DefaultGrepMaxAnswerBytes, 64 << 10} {
		t.Run(strconv.FormatInt(cap, 10), func(t *testing.T) {
			args := []string{"-accept-any-token", "-log-level", "off"}
			if cap != fileio.DefaultGrepMaxAnswerBytes {
				config := filepath.Join(t.TempDir(), "config.yaml")
				yaml := "settings:\n  mcp:\n    files:\n      grep_max_answer_bytes: " + strconv.FormatInt(cap, 10) + "\n"
				if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-config", config)
			}
			srv := startServer(t, args...)
			mustCall(t, srv.base, "capper", "file_write", map[string]any{"project": "cap", "path": "/ctl.txt", "content": ctl + "the match\n" + ctl})

			r, err := doAPI(srv.base, "capper", "file_grep", grep)
			if err != nil || r.Status != http.StatusOK {
				t.Fatalf("file_grep: %v %d %.300s", err, r.Status, r.Raw)
			}
			if limit := int(cap) + 2048; len(r.Raw) > limit {
				t.Errorf("HTTP: the answer is %d bytes as sent, more than the cap and its envelope (%d)", len(r.Raw), limit)
			}
			if !strings.Contains(string(r.Raw), "the match") || !strings.Contains(string(r.Raw), "cut to fit") {
				t.Errorf("HTTP: the answer lacks the match or the note that its context was cut: %.300s", r.Raw)
			}

			counter := &callBytes{token: "capper"}
			cs := mcptest.Connect(t, &mcp.StreamableClientTransport{Endpoint: srv.base + "/mcp", HTTPClient: &http.Client{Transport: counter}, MaxRetries: -1})
			res, text := mcptest.CallTool(t, cs, "file_grep", grep)
			sent := counter.n.Load()
			if limit := cap + 4096; res.IsError || sent > limit {
				t.Errorf("MCP: the tools/call response is %d bytes as sent (isError %v), more than the cap and its envelope (%d)", sent, res.IsError, limit)
			}
			var fromText, fromStructured map[string]any
			if err := json.Unmarshal([]byte(text), &fromText); err != nil {
				t.Fatalf("MCP: the text copy is not the JSON answer: %v", err)
			}
			mcptest.Decode(t, res, &fromStructured)
			if diff := cmp.Diff(fromStructured, fromText); diff != "" {
				t.Errorf("MCP: the text copy differs from the structured content (-structured +text):\n%.2000s", diff)
			}
			if !strings.Contains(text, "the match") || !strings.Contains(text, "cut to fit") {
				t.Errorf("MCP: the answer lacks the match or the note that its context was cut: %.300s", text)
			}
			t.Logf("cap %d: answer as sent %d bytes over HTTP, %d bytes over MCP", cap, len(r.Raw), sent)
		})
	}
}

// callBytes is an http.RoundTripper that sends a bearer token and counts the bytes of the
// bodies answering tools/call requests, as the client reads them.
type callBytes struct {
	token string
	n     atomic.Int64
}

func (c *callBytes) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+c.token)
	var isCall bool
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		isCall = bytes.Contains(body, []byte(`"tools/call"`))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && isCall {
		resp.Body = countingBody{resp.Body, &c.n}
	}
	return resp, err
}

// countingBody adds the bytes read from it to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.n.Add(int64(k))
	return k, err
}
