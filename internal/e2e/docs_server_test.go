package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDocsServerWithInspector(t *testing.T) {
	bin, dir := setup(t, "agentfiles-docs-server")

	t.Run("stdio", func(t *testing.T) {
		server := stdio(bin, "-docs", dir)
		server.requireTools(t, "list_documentation_files", "table_of_contents", "read_sections", "search")

		res := server.call(t, "search", "query=installer")
		text := res.Content[0].Text
		if res.IsError || !strings.Contains(text, `"fileId":"f2"`) || !strings.Contains(text, "guide.md") {
			t.Errorf("search over stdio = %s", text)
		}
	})

	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		url := "http://" + addr + "/mcp"
		startServer(t, url, bin, "-addr", addr, "-docs", dir)
		server := streamableHTTP(url)
		server.requireTools(t, "list_documentation_files", "table_of_contents", "read_sections", "search")

		res := server.call(t, "table_of_contents", "fileId=f2")
		var toc struct {
			FileID   string `json:"fileId"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal([]byte(res.Content[0].Text), &toc); err != nil || res.IsError || toc.FileID != "f2" || toc.Filename != "guide.md" {
			t.Errorf("table_of_contents over HTTP = %s", res.Content[0].Text)
		}

		bad := server.call(t, "table_of_contents", "fileId=f99")
		if !bad.IsError || !strings.Contains(bad.Content[0].Text, "FILE_ID_NOT_FOUND") {
			t.Errorf("unknown file ID over HTTP = %+v", bad)
		}
	})
}
