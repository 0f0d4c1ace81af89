package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
)

// copyExample copies the bundled example catalog and documents into a temporary directory, so
// that the test may change the catalog.
func copyExample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../internal/bundled/guide")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "catalog.yaml")
}

// TestGuideServerOverStdio builds the command, starts it as an MCP subprocess and uses the
// SDK's client against it.
func TestGuideServerOverStdio(t *testing.T) {
	catalog := copyExample(t)
	cs := mcptest.ConnectCommand(t, cmdtest.Build(t, "."), "-catalog", catalog, "-catalog-writable")

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

// With no flags the server serves the bundled catalog from any directory, read-only;
// the edit tools need -catalog-writable (and a -catalog of one's own).
func TestBundledCatalogReadOnly(t *testing.T) {
	bin := cmdtest.Build(t, ".")
	t.Chdir(t.TempDir())
	cs := mcptest.ConnectCommand(t, bin)
	want := []string{"category_list", "collection_list", "get_collection_content", "get_content"}
	if diff := cmp.Diff(want, mcptest.ToolNames(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	out, ok := mcptest.Call(t, cs, "get_content", map[string]any{"expression": "onboarding"})
	if !ok || !strings.Contains(out["content"].(string), "==> docs/intro.md <==") {
		t.Errorf("get_content(onboarding) = %v", out)
	}
	msg, err := exec.Command(bin, "-catalog-writable").CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "-catalog-writable needs -catalog FILE") {
		t.Errorf("-catalog-writable without -catalog: %v: %s", err, msg)
	}
	msg, err = exec.Command(bin, "-version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(msg), "agentfiles-guide-server ") {
		t.Errorf("-version: %v: %q", err, msg)
	}
}
