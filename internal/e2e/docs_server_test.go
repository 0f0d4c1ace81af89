package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsTree writes a small documentation root and returns its path.
func docsTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"guide.md":         "# Guide\n\nIntro.\n\n## Install\n\nRun the installer.\n",
		"api/reference.md": "# Reference\n\n## Errors\n\nEvery error has a code.\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDocsServerWithInspector(t *testing.T) {
	inspectorPath(t)
	bin := buildExample(t, "docs-server")
	dir := docsTree(t)

	t.Run("stdio", func(t *testing.T) {
		var list toolList
		inspect(t, &list, bin, "-dir", dir, "--method", "tools/list")
		requireTools(t, list, "list_documentation_files", "table_of_contents", "read_sections", "search")

		var res toolResult
		inspect(t, &res, bin, "-dir", dir, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=installer")
		text := res.Content[0].Text
		if res.IsError || !strings.Contains(text, `"fileId": "f2"`) || !strings.Contains(text, "guide.md") {
			t.Errorf("search over stdio = %s", text)
		}
	})

	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		url := "http://" + addr + "/mcp"
		startServer(t, url, bin, "-http", addr, "-dir", dir)

		var list toolList
		inspect(t, &list, url, "--transport", "http", "--method", "tools/list")
		requireTools(t, list, "list_documentation_files", "table_of_contents", "read_sections", "search")

		var res toolResult
		inspect(t, &res, url, "--transport", "http", "--method", "tools/call", "--tool-name", "table_of_contents", "--tool-arg", "fileId=f2")
		var toc struct {
			FileID   string `json:"fileId"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].Text), &toc); err != nil || res.IsError || toc.FileID != "f2" || toc.Filename != "guide.md" {
			t.Errorf("table_of_contents over HTTP = %s", res.Content[0].Text)
		}

		var bad toolResult
		inspect(t, &bad, url, "--transport", "http", "--method", "tools/call", "--tool-name", "table_of_contents", "--tool-arg", "fileId=f99")
		if !bad.IsError || !strings.Contains(bad.Content[0].Text, "FILE_ID_NOT_FOUND") {
			t.Errorf("unknown file ID over HTTP = %+v", bad)
		}
	})
}
