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

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/poll"
	"github.com/agentfiles/agentfiles/internal/testfiles"
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

// setup checks for the inspector, builds ./examples/<example> and writes a small documentation
// root. It returns the binary and the root.
func setup(t *testing.T, example string) (bin, docs string) {
	t.Helper()
	inspectorPath(t)
	bin = cmdtest.Build(t, "github.com/agentfiles/agentfiles/examples/"+example)
	docs = testfiles.Write(t, t.TempDir(), map[string]string{
		"guide.md":         "# Guide\n\nIntro.\n\n## Install\n\nRun the installer.\n",
		"api/reference.md": "# Reference\n\n## Errors\n\nEvery error has a code.\n",
	})
	return bin, docs
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

// target is what the inspector connects to: a server binary and its flags, which it starts and
// speaks to over stdio, or a URL with the options to use streamable HTTP.
type target []string

func stdio(bin string, flags ...string) target { return append(target{bin}, flags...) }

func streamableHTTP(url string) target { return target{url, "--transport", "http"} }

// requireTools calls tools/list and fails the test unless every tool in want is listed.
func (tg target) requireTools(t *testing.T, want ...string) {
	t.Helper()
	var l struct {
		Tools []struct{ Name string }
	}
	inspect(t, &l, append(tg, "--method", "tools/list")...)
	var names []string
	for _, tool := range l.Tools {
		names = append(names, tool.Name)
	}
	got := fmt.Sprint(names)
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("tools/list = %s, missing %s", got, w)
		}
	}
}

// toolResult is the inspector's rendering of a tools/call answer.
type toolResult struct {
	Content []struct {
		Type string
		Text string
	}
	StructuredContent json.RawMessage
	IsError           bool
}

// call calls tool with arguments written name=value.
func (tg target) call(t *testing.T, tool string, args ...string) toolResult {
	t.Helper()
	argv := append(append(target{}, tg...), "--method", "tools/call", "--tool-name", tool)
	if len(args) > 0 {
		argv = append(append(argv, "--tool-arg"), args...)
	}
	var res toolResult
	inspect(t, &res, argv...)
	return res
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
	cmdtest.Start(t, bin, args...)
	poll.Eventually(t, 30*time.Second, bin+" answers at "+url, func() bool {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
}
