package mcpsdk_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawMCP serves a file_write stand-in (it answers with what it decoded) over stateless
// streamable HTTP and returns a function that sends one raw tools/call with the arguments
// exactly as given, bytes and all, and returns the whole HTTP response body.
func rawMCP(t *testing.T, logs io.Writer) func(args []byte) []byte {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, []adapters.Tool{adapterstest.EchoWrite()}, mcpsdk.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return func(args []byte) []byte {
		t.Helper()
		var body bytes.Buffer
		body.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"file_write","arguments":`)
		body.Write(args)
		body.WriteString(`}}`)
		req, _ := http.NewRequest(http.MethodPost, ts.URL, &body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
}

// toolErrorOf returns the ToolError of an isError result, or the JSON-RPC error's message.
func toolErrorOf(t *testing.T, body []byte) (code, message string) {
	t.Helper()
	var resp struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("response %.300s: %v", body, err)
	}
	switch {
	case resp.Error != nil:
		return "jsonrpc", resp.Error.Message
	case resp.Result != nil && resp.Result.IsError:
		var te adapters.ToolError
		_ = json.Unmarshal([]byte(resp.Result.Content[0].(*mcp.TextContent).Text), &te)
		return te.Code, te.Message
	}
	return "", ""
}

// A wrong-typed value is not echoed back whole in the error or the log, over MCP.
func TestWrongTypedValueNotEchoed(t *testing.T) {
	var logs bytes.Buffer
	call := rawMCP(t, &logs)
	big := strings.Repeat("sk-LEAKME", 200_000)
	for _, args := range []string{
		`{"project":"p","path":"/c","content":{"api_key":"sk-LEAKME"}}`,
		`{"project":"p","path":"/c","content":["sk-LEAKME"]}`,
		`{"project":"p","path":"/c","content":{"k":"` + big + `"}}`,
		`{"project":"p","path":"/c","Content":"sk-LEAKME"}`,
	} {
		logs.Reset()
		body := call([]byte(args))
		if code, _ := toolErrorOf(t, body); code != "INVALID_ARGUMENT" {
			t.Errorf("%.60s: code %q in %.300s, want INVALID_ARGUMENT", args, code, body)
		}
		if len(body) > 4096 || logs.Len() > 4096 {
			t.Errorf("%.60s: response %d bytes, log %d bytes", args, len(body), logs.Len())
		}
		for what, text := range map[string]string{"response": string(body), "log": logs.String()} {
			if strings.Contains(text, "LEAKME") {
				t.Errorf("%.60s: %s carries the value: %.400s", args, what, text)
			}
		}
	}
}

// Over MCP, bad text is refused, not stored as U+FFFD.
func TestInvalidUTF8Refused(t *testing.T) {
	call := rawMCP(t, io.Discard)
	for _, args := range [][]byte{
		[]byte("{\"project\":\"p\",\"path\":\"/c\",\"content\":\"a\xffb\"}"),
		[]byte("{\"project\":\"p\xff\",\"path\":\"/c\",\"content\":\"ab\"}"),
		[]byte(`{"project":"p","path":"/c","content":"a\ud800b"}`),
		[]byte(`{"project":"\udfff","path":"/c","content":"ab"}`),
	} {
		body := call(args)
		code, msg := toolErrorOf(t, body)
		if code != "INVALID_ARGUMENT" || !strings.Contains(msg, "UTF-8") {
			t.Errorf("%q: got %s %q (%s), want INVALID_ARGUMENT about UTF-8", args, code, msg, body)
		}
	}
	body := call([]byte(`{"project":"p","path":"/c","content":"a\ud83d\ude00b"}`))
	if code, _ := toolErrorOf(t, body); code != "" || !strings.Contains(string(body), "a😀b") {
		t.Errorf("a surrogate pair: %s", body)
	}
}
