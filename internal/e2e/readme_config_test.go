package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// repoRoot is the repository's root directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// installExamples runs go install ./examples/... into a fresh GOBIN and returns it.
func installExamples(t *testing.T) string {
	t.Helper()
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./examples/...")
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./examples/...: %v\n%s", err, out)
	}
	return gobin
}

// go install of each example yields a clearly named command, not "server", whose -version and -h
// say what it is.
func TestInstallNames(t *testing.T) {
	gobin := installExamples(t)
	entries, err := os.ReadDir(gobin)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"agentfiles-consult", "agentfiles-docs-server", "agentfiles-guide-server", "agentfiles-server"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("go install ./examples/... (-want +got):\n%s", diff)
	}
	for _, name := range names {
		out, err := exec.Command(filepath.Join(gobin, name), "-version").Output()
		if err != nil || !strings.HasPrefix(string(out), name+" ") {
			t.Errorf("%s -version: %v: stdout %q", name, err, out)
		}
		// -h starts with what the command is, and every server has the same common flags.
		help, _ := exec.Command(filepath.Join(gobin, name), "-h").CombinedOutput()
		if !strings.HasPrefix(string(help), name+": ") {
			t.Errorf("%s -h does not start with %q: %q", name, name+": ", help[:min(len(help), 120)])
		}
		common := []string{"-log-level", "-version"}
		if name != "agentfiles-consult" {
			common = append(common, "-addr", "-stdio")
		}
		for _, f := range common {
			if !bytes.Contains(help, []byte("\n  "+f+" ")) && !bytes.Contains(help, []byte("\n  "+f+"\n")) {
				t.Errorf("%s -h has no %s flag", name, f)
			}
		}
	}
}

// readmeStdioConfigs returns the README's MCP client configurations that start a process.
func readmeStdioConfigs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var configs []string
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```json":
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			if c := cur.String(); strings.Contains(c, `"mcpServers"`) && strings.Contains(c, `"command"`) {
				configs = append(configs, c)
			}
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return configs
}

// TestREADMEStdioConfigFromAnywhere runs each stdio MCP configuration of README.md exactly as
// written (the installed command found on PATH; go run -C with the checkout's path in place of
// /home/me/src/agentfiles) from a directory outside the repository, through the MCP Inspector
// CLI, and lists tools of all five families.
func TestREADMEStdioConfigFromAnywhere(t *testing.T) {
	inspector := inspectorPath(t)
	gobin := installExamples(t)
	root, err := filepath.Abs(repoRoot())
	if err != nil {
		t.Fatal(err)
	}
	configs := readmeStdioConfigs(t)
	if len(configs) < 2 {
		t.Fatalf("README.md has %d stdio MCP configurations, want the installed one and go run -C", len(configs))
	}
	outside := t.TempDir()
	for i, config := range configs {
		config = strings.ReplaceAll(config, "/home/me/src/agentfiles", root)
		var parsed struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
			}
		}
		if err := json.Unmarshal([]byte(config), &parsed); err != nil {
			t.Fatalf("README configuration %d is not JSON: %v\n%s", i, err, config)
		}
		for name, server := range parsed.MCPServers {
			t.Run(server.Command+" "+strings.Join(server.Args, " "), func(t *testing.T) {
				file := filepath.Join(t.TempDir(), "mcp.json")
				if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, inspector, "--cli", "--config", file, "--server", name, "--method", "tools/list")
				cmd.Dir = outside
				cmd.Env = append(os.Environ(), "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("mcp-inspector: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
				}
				var l struct{ Tools []struct{ Name string } }
				if err := json.Unmarshal(stdout.Bytes(), &l); err != nil {
					t.Fatalf("tools/list output is not JSON: %v\n%s", err, stdout.String())
				}
				var names []string
				for _, tool := range l.Tools {
					names = append(names, tool.Name)
				}
				// One tool of each family: fileio, search, fileid, expr, consult.
				for _, want := range []string{"file_write", "file_search", "docs_search", "get_content", "consultation"} {
					if !slices.Contains(names, want) {
						t.Errorf("tools/list lacks %s: %v", want, names)
					}
				}
			})
		}
	}
}
