package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// inspectorPath returns the MCP Inspector binary or skips the test.
func inspectorPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTFILES_MCP_INSPECTOR"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	local := filepath.Join(filepath.Dir(file), "..", "..", ".ci", "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(local); err == nil {
		return local
	}
	msg := "MCP Inspector CLI not installed: run `cd .ci && npm install` (needs Node 20+ and npm)"
	if os.Getenv("AGENTFILES_REQUIRE_SERVICES") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// buildExample compiles ./examples/<name> into a temp dir and returns the binary's path.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, "github.com/agentfiles/agentfiles/examples/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return bin
}

// inspect runs the inspector CLI and decodes its JSON output into v.
func inspect(t *testing.T, v any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspectorPath(t), append([]string{"--cli"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-inspector %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("mcp-inspector %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// startServer runs bin with args until the test ends and waits until url answers HTTP.
func startServer(t *testing.T, url, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server output:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer at %s: %v\n%s", bin, url, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type toolList struct {
	Tools []struct{ Name string }
}

type toolResult struct {
	Content []struct {
		Type string
		Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}

func names(l toolList) []string {
	var out []string
	for _, t := range l.Tools {
		out = append(out, t.Name)
	}
	return out
}

func requireTools(t *testing.T, l toolList, want ...string) {
	t.Helper()
	got := fmt.Sprint(names(l))
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("tools/list = %s, missing %s", got, w)
		}
	}
}
