package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConsolePatch: a patch pasted into the console is previewed (a dry run: every file's diff,
// nothing changed), then applied; a patch that does not match shows the error and changes
// nothing.
func TestConsolePatch(t *testing.T) {
	b := startBrowser(t, 1400, 900)
	srv := startServer(t)
	const project = "console-patch"
	read := func(path string) any {
		t.Helper()
		return mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": path})["content"]
	}
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/src/app.py", "content": "def main():\r\n    print(\"hi\")\r\n"})
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/old.txt", "content": "bye\n"})

	b.navigate(srv.base + "/#token=dev")
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("tree loaded", `!!document.querySelector('#tree li[data-path="/src"]')`)

	patch := "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    print(\"hi\")\n+    print(\"hello\")\n" +
		"*** Add File: docs/notes.md\n+# Notes <b>x</b>\n*** Delete File: old.txt\n*** End Patch\n"
	b.retype("#patch-text", patch)
	b.click("#patch-preview")
	b.waitFor("preview shown", `!document.querySelector("#patch-diff").hidden && !document.querySelector("#patch-apply").disabled`)
	var preview struct {
		Added, Removed []string
		Elements       int
		Summary        string
	}
	if err := b.eval(`(() => {
		const d = document.querySelector("#patch-diff");
		const lines = (sel) => Array.from(d.querySelectorAll(sel), (e) => e.textContent);
		return {Added: lines(".d-add"), Removed: lines(".d-del"), Elements: d.querySelectorAll("b").length,
			Summary: document.querySelector("#patch-summary").textContent};
	})()`, &preview); err != nil {
		t.Fatal(err)
	}
	want := struct {
		Added, Removed []string
		Elements       int
		Summary        string
	}{
		Added:    []string{"+    print(\"hello\")\r\n", "+# Notes <b>x</b>\n"},
		Removed:  []string{"-    print(\"hi\")\r\n", "-bye\n"},
		Summary:  "Preview: update /src/app.py, add /docs/notes.md, delete /old.txt. Nothing is changed until you press Apply.",
		Elements: 0,
	}
	if d := cmp.Diff(want, preview); d != "" {
		t.Errorf("preview (-want +got):\n%s", d)
	}
	if got := read("/src/app.py"); got != "def main():\r\n    print(\"hi\")\r\n" {
		t.Fatalf("after Preview the file is %q, want it unchanged", got)
	}
	shot := filepath.Join(artifactDir(t), "console-patch-preview.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)

	b.click("#patch-apply")
	b.waitFor("applied", `document.querySelector("#status").textContent === "Applied the patch to 3 files"`)
	if got := read("/src/app.py"); got != "def main():\r\n    print(\"hello\")\r\n" {
		t.Errorf("after Apply /src/app.py is %q", got)
	}
	if got := read("/docs/notes.md"); got != "# Notes <b>x</b>\n" {
		t.Errorf("after Apply /docs/notes.md is %q", got)
	}
	b.waitFor("tree shows the new directory", `!!document.querySelector('#tree li[data-path="/docs"]')`)

	// A patch whose chunk is not in the file: the error names the chunk, nothing changes.
	b.retype("#patch-text", "*** Begin Patch\n*** Update File: src/app.py\n@@\n-    print(\"nope\")\n+    x\n*** End Patch\n")
	b.click("#patch-preview")
	b.waitFor("error shown", `document.querySelector("#error").textContent.startsWith("NO_MATCH")`)
	if e := strings.Join(strings.Fields(b.text("#error")), " "); !strings.Contains(e, "chunk 1 of 1") || !strings.Contains(e, `print(\"nope\")`) {
		t.Errorf("error box = %q", e)
	}
	var disabled bool
	if err := b.eval(`document.querySelector("#patch-apply").disabled`, &disabled); err != nil || !disabled {
		t.Errorf("Apply is enabled after a failed preview (%v)", err)
	}
}
