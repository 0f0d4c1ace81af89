package e2e

import (
	"strings"
	"testing"
)

func TestServerWithInspector(t *testing.T) {
	inspectorPath(t)
	bin := buildExample(t, "server")
	docs := docsTree(t)

	t.Run("stdio", func(t *testing.T) {
		var list toolList
		inspect(t, &list, bin, "-stdio", "--method", "tools/list")
		requireTools(t, list, "file_stat", "file_read", "file_write", "file_delete", "file_list", "file_search")

		// Every inspector call is a new server process with a fresh in-memory store, so this
		// call writes and the answer proves the tenant (the -dev-token) reached the handler.
		var res toolResult
		inspect(t, &res, bin, "-stdio", "--method", "tools/call", "--tool-name", "file_write",
			"--tool-arg", "project=demo", "path=/notes/a.md", "content=hello")
		if res.IsError || !strings.Contains(res.Content[0].Text, `"bytes_written": 5`) {
			t.Errorf("file_write over stdio = %+v", res)
		}
		var bad toolResult
		inspect(t, &bad, bin, "-stdio", "--method", "tools/call", "--tool-name", "file_read",
			"--tool-arg", "project=demo", "path=../etc/passwd")
		if !bad.IsError || !strings.Contains(bad.Content[0].Text, "INVALID_PATH") {
			t.Errorf("file_read of a bad path over stdio = %+v", bad)
		}
	})

	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		startServer(t, "http://"+addr+"/healthz", bin, "-addr", addr, "-docs", docs, "-mcp-anonymous")
		url := "http://" + addr + "/mcp"

		var list toolList
		inspect(t, &list, url, "--transport", "http", "--method", "tools/list")
		requireTools(t, list, "list_documentation_files", "search", "file_write", "file_search")

		var res toolResult
		inspect(t, &res, url, "--transport", "http", "--method", "tools/call", "--tool-name", "list_documentation_files")
		if res.IsError || !strings.Contains(res.Content[0].Text, "reference.md") {
			t.Errorf("list_documentation_files over HTTP = %+v", res)
		}
		// Anonymous MCP callers have no tenant: the file tools refuse them.
		var denied toolResult
		inspect(t, &denied, url, "--transport", "http", "--method", "tools/call", "--tool-name", "file_list", "--tool-arg", "project=demo")
		if !denied.IsError || !strings.Contains(denied.Content[0].Text, "PERMISSION_DENIED") {
			t.Errorf("anonymous file_list over HTTP = %+v", denied)
		}
	})
}
