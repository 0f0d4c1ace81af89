//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
)

// A FIFO behind a Markdown-named link does not keep the server from listening: it is
// skipped, and the other files are served.
func TestServesDirectoryWithFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("p", filepath.Join(dir, "p.md")); err != nil {
		t.Fatal(err)
	}
	// Should the server block on the FIFO anyway, a writer lets it go when the test ends.
	t.Cleanup(func() {
		if w, err := os.OpenFile(filepath.Join(dir, "p"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	server := cmdtest.Start(t, cmdtest.Build(t, "."), "-docs", dir, "-addr", "127.0.0.1:0")
	url := server.WaitFor(t, regexp.MustCompile(`http://\S+/mcp`))
	cs := mcptest.ConnectHTTP(t, url, "")
	mcptest.Script(t, cs, []mcptest.Exchange{
		{Tool: "list_documentation_files", Args: map[string]any{}, Want: `"total":1`},
	})
}
