package e2e

import (
	"strings"
	"testing"
)

func TestServerWithInspector(t *testing.T) {
	bin, docs := setup(t, "agentfiles-server")

	t.Run("stdio", func(t *testing.T) {
		server := stdio(bin, "-stdio")
		server.requireTools(t, "file_stat", "file_read", "file_write", "file_delete", "file_list", "file_search")

		// Every inspector call is a new server process with a fresh in-memory store, so this
		// call writes and the answer proves the tenant (the -dev-token) reached the handler.
		res := server.call(t, "file_write", "project=demo", "path=/notes/a.md", "content=hello")
		if res.IsError || !strings.Contains(res.Content[0].Text, `"bytes_written":5`) {
			t.Errorf("file_write over stdio = %+v", res)
		}
		bad := server.call(t, "file_read", "project=demo", "path=../etc/passwd")
		if !bad.IsError || !strings.Contains(bad.Content[0].Text, "INVALID_PATH") {
			t.Errorf("file_read of a bad path over stdio = %+v", bad)
		}
	})

	t.Run("http", func(t *testing.T) {
		addr := freeAddr(t)
		startServer(t, "http://"+addr+"/healthz", bin, "-addr", addr, "-docs", docs, "-mcp-anonymous")
		server := streamableHTTP("http://" + addr + "/mcp")
		server.requireTools(t, "docs_list_documentation_files", "docs_search", "file_write", "file_search")

		res := server.call(t, "docs_list_documentation_files")
		if res.IsError || !strings.Contains(res.Content[0].Text, "reference.md") {
			t.Errorf("docs_list_documentation_files over HTTP = %+v", res)
		}
		// Anonymous MCP callers have no tenant: the file tools refuse them.
		denied := server.call(t, "file_list", "project=demo")
		if !denied.IsError || !strings.Contains(denied.Content[0].Text, "PERMISSION_DENIED") {
			t.Errorf("anonymous file_list over HTTP = %+v", denied)
		}
	})
}
