package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
)

// copyExample copies the bundled example catalog and documents into a temporary directory, so
// that the test may change the catalog.
func copyExample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("example")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "catalog.yaml")
}

// TestGuideServerOverStdio builds the command, starts it as an MCP subprocess and uses the
// SDK's client against it.
func TestGuideServerOverStdio(t *testing.T) {
	catalog := copyExample(t)
	cs := mcptest.ConnectCommand(t, cmdtest.Build(t, "."), "-catalog", catalog)

	out, ok := mcptest.Call(t, cs, "get_content", map[string]any{"expression": "onboarding"})
	if !ok || !strings.Contains(out["content"].(string), "==> docs/intro.md <==") || !strings.Contains(out["content"].(string), "# Code review") {
		t.Errorf("get_content(onboarding) = %v", out)
	}
	out, ok = mcptest.Call(t, cs, "get_content", map[string]any{"expression": "docs/welcome", "data": map[string]any{"Name": "Ada", "Project": "acme"}})
	if !ok || !strings.Contains(out["content"].(string), "# Welcome, Ada") {
		t.Errorf("template = %v", out)
	}
	out, ok = mcptest.Call(t, cs, "collection_add", map[string]any{"name": "reviewers", "categories": []any{"guidelines/review"}})
	if !ok || out["saved"] != true {
		t.Fatalf("collection_add = %v", out)
	}
	b, err := os.ReadFile(catalog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "# Example guide catalog") || !strings.Contains(string(b), "  reviewers:\n") {
		t.Errorf("catalog after collection_add:\n%s", b)
	}
	out, ok = mcptest.Call(t, cs, "category_add", map[string]any{"name": "etc", "dir": "/etc"})
	if ok || out["code"] != "INVALID_ARGUMENT" {
		t.Errorf("category_add outside the allowed dirs = %v", out)
	}
}
