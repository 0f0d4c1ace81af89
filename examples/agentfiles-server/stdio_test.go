package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
)

// One malformed or over-deep JSON line once ended the stdio session and the
// process exited 1. The built binary now answers each such line with a JSON-RPC error and
// serves the next request.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	cmd := exec.Command(bin, "-stdio", "-log-level", "off")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr cmdtest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			lines <- m
		}
		close(lines)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing to the server: %v (stderr: %s)", err, stderr.String())
		}
	}
	next := func() map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("the server closed stdout; stderr:\n%s", stderr.String())
			}
			return m
		case <-exited:
			t.Fatalf("the server exited: %v; stderr:\n%s", waitErr, stderr.String())
		case <-time.After(30 * time.Second):
			t.Fatalf("no answer within 30s; stderr:\n%s", stderr.String())
		}
		return nil
	}
	errorCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	bad := []struct {
		name string
		line string
		code float64
		id   any
	}{
		{"malformed", `{"jsonrpc":"2.0","id":2,"method":`, -32700, nil},
		{"not JSON at all", `hello`, -32700, nil},
		{"over-deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), -32700, nil},
		{"over-deep object", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat("}", 20000) + `}`, -32700, nil},
		{"not JSON-RPC", `{"id":4,"hello":"world"}`, -32600, float64(4)},
		{"empty batch", `[]`, -32600, nil},
	}
	for i, tc := range bad {
		send(tc.line)
		m := next()
		if errorCode(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: answer %v, want error %v with id %v", tc.name, m, tc.code, tc.id)
		}
		// The session goes on: the next request is served.
		id := float64(100 + i)
		send(`{"jsonrpc":"2.0","id":` + jsonFloat(id) + `,"method":"tools/list"}`)
		if m := next(); m["id"] != id || m["result"] == nil {
			t.Fatalf("after %s: tools/list answered %v", tc.name, m)
		}
	}
	_ = stdin.Close()
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("the server exited with %v at the end of its input; stderr:\n%s", waitErr, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Error("the server did not exit at the end of its input")
	}
}

func jsonFloat(f float64) string { b, _ := json.Marshal(f); return string(b) }
