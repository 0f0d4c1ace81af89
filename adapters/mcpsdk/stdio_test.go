package mcpsdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A malformed line does not end the stdio session: StdioTransport answers it with a
// JSON-RPC error and the session serves the next request.
func TestStdioTransportSurvivesBadLines(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentfiles-test"}, nil)
	mcpsdk.Register(server, testTools(), mcpsdk.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, mcpsdk.StdioTransport(inR, outW, mcpsdk.StdioOptions{MaxLineBytes: 4096}))
	}()
	answers := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			answers <- m
		}
	}()
	var last string
	send := func(s string) {
		last = s
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		select {
		case m := <-answers:
			return m
		case err := <-done:
			t.Fatalf("the session ended: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer (last sent %.60q)", last)
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, tc := range []struct {
		line string
		code float64
		id   any
	}{
		{`{"jsonrpc":"2.0","id":2,"method":`, -32700, nil},
		{strings.Repeat("[", 12000) + strings.Repeat("]", 12000), -32700, nil}, // too long, too
		{strings.Repeat("[", 2000) + strings.Repeat("]", 2000), -32600, nil},   // valid JSON, not a message
		{`{"jsonrpc":"1.0","id":"x","method":"tools/list"}`, -32600, "x"},
		{"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}\r", 0, float64(5)}, // CRLF is fine
		{"", -1, nil}, // skipped: no answer
	} {
		send(tc.line)
		if tc.code == -1 {
			continue
		}
		m := next()
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		if code != tc.code || m["id"] != tc.id {
			t.Errorf("%.40q: answer %v, want code %v id %v", tc.line, m, tc.code, tc.id)
		}
		send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
		if m := next(); m["id"] != float64(9) || m["result"] == nil {
			t.Fatalf("after %.40q: %v", tc.line, m)
		}
	}
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the session did not end at the end of its input")
	}
}
