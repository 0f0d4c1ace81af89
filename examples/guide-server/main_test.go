package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// copyExample copies the bundled example catalog and documents into a temporary directory, so
// that the test may change the catalog.
func copyExample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir("example", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("example", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "catalog.yaml")
}

// TestGuideServerOverStdio builds the command, starts it as an MCP subprocess and uses the
// SDK's client against it.
func TestGuideServerOverStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "guide-server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	catalog := copyExample(t)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(bin, "-catalog", catalog)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := func(name string, args map[string]any) (map[string]any, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out, res.IsError
	}
	out, isErr := call("get_content", map[string]any{"expression": "onboarding"})
	if isErr || !strings.Contains(out["content"].(string), "==> docs/intro.md <==") || !strings.Contains(out["content"].(string), "# Code review") {
		t.Errorf("get_content(onboarding) = %v", out)
	}
	out, isErr = call("get_content", map[string]any{"expression": "docs/welcome", "data": map[string]any{"Name": "Ada", "Project": "acme"}})
	if isErr || !strings.Contains(out["content"].(string), "# Welcome, Ada") {
		t.Errorf("template = %v", out)
	}
	out, isErr = call("collection_add", map[string]any{"name": "reviewers", "categories": []any{"guidelines/review"}})
	if isErr || out["saved"] != true {
		t.Fatalf("collection_add = %v", out)
	}
	b, err := os.ReadFile(catalog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "# Example guide catalog") || !strings.Contains(string(b), "  reviewers:\n") {
		t.Errorf("catalog after collection_add:\n%s", b)
	}
	out, isErr = call("category_add", map[string]any{"name": "etc", "dir": "/etc"})
	if !isErr || out["code"] != "INVALID_ARGUMENT" {
		t.Errorf("category_add outside the allowed dirs = %v", out)
	}
}
