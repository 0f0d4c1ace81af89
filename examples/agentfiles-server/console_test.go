package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConsoleInChromium drives the agentfiles console in headless Chromium with the keyboard and
// the mouse: create a file, browse the lazily loaded tree, open it, append, search and open the
// hit at its byte range, see a coded error, delete recursively after confirming. Every step
// asserts what the page shows; the server is checked through the JSON API as well.
func TestConsoleInChromium(t *testing.T) {
	b := startBrowser(t, 1366, 860)
	srv := startServer(t)
	const project = "console-e2e"

	// The start-up URL carries the dev token in its fragment; the page stores it.
	b.navigate(srv.base + "/#token=dev")
	b.waitFor("token stored and removed from the URL",
		`localStorage.getItem("agentfiles.token") === "dev" && location.hash === ""`)

	// Switch project with the keyboard: type into the project field, press Enter.
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("project opened", fmt.Sprintf(`document.querySelector("#status").textContent === "Project %s"`, project))
	b.waitFor("empty project hint", `!document.querySelector("#tree-empty").hidden`)

	// Create a file through the write form (append mode creates it). It is a few kilobytes, so
	// the search index cuts it into several chunks.
	first := groceryList()
	b.focus("#write-path")
	b.typeText("/notes/todo.md")
	b.focus("#write-content")
	b.typeText(first)
	b.click("#write-form button[type=submit]")
	b.waitFor("write reported", `document.querySelector("#status").textContent.startsWith("Opened /notes/todo.md")`)
	if got := b.text("#view"); got != first {
		t.Fatalf("file view after create = %q, want %q", got, first)
	}
	got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": "/notes/todo.md"})
	if got["content"] != first {
		t.Fatalf("file_read through the API = %q, want %q", got["content"], first)
	}

	// Reload: the tree starts collapsed and loads each directory when it is expanded.
	b.navigate(srv.base + "/")
	b.waitFor("tree loaded", `document.querySelectorAll("#tree > li[role=treeitem]").length === 1`)
	if n := b.text(`#tree > li[data-path="/notes"] .name`); n != "notes" {
		t.Fatalf("root tree item = %q, want notes", n)
	}
	b.waitFor("directory collapsed and not loaded",
		`document.querySelector('#tree li[data-path="/notes"]').getAttribute("aria-expanded") === "false" && !document.querySelector('#tree li[data-path="/notes/todo.md"]')`)
	b.focus(`#tree li[data-path="/notes"]`)
	b.pressEnter() // expands /notes: file_list depth 1
	b.waitFor("directory expanded", `!!document.querySelector('#tree li[data-path="/notes/todo.md"]')`)
	b.pressArrowDown()
	b.waitFor("focus moved to the file", `document.activeElement.dataset.path === "/notes/todo.md"`)
	b.pressEnter() // opens the file
	b.waitFor("file opened from the tree", `document.querySelector("#view-path").textContent === "/notes/todo.md"`)
	if got := b.text("#view"); got != first {
		t.Fatalf("file view from the tree = %q, want %q", got, first)
	}

	// Append with the form (opening the file filled in its path; the mode defaults to append).
	second := "\nLast: bananas for the smoothie, ripe ones.\n"
	b.focus("#write-content")
	b.typeText(second)
	b.click("#write-form button[type=submit]")
	b.waitFor("append shown", fmt.Sprintf(`document.querySelector("#view").textContent === %q`, first+second))
	if s := b.text("#view-meta"); !strings.HasPrefix(s, fmt.Sprintf("%d bytes", len(first+second))) {
		t.Errorf("view meta = %q, want the new size %d bytes", s, len(first+second))
	}

	// Search, then open the hit: the chunk's byte range is highlighted.
	b.focus("#search-query")
	b.typeText("bananas smoothie")
	b.pressEnter()
	b.waitFor("search results", `document.querySelectorAll("#results button.result").length > 0`)
	if head := b.text("#results .result-head"); !strings.HasPrefix(head, "/notes/todo.md") {
		t.Fatalf("first result = %q, want /notes/todo.md", head)
	}
	b.click("#results button.result")
	b.waitFor("hit highlighted", `!!document.querySelector("#view mark#hit")`)
	hits := mustCall(t, srv.base, "dev", "file_search", map[string]any{"project": project, "query": "bananas smoothie"})
	chunk := hits["chunks"].([]any)[0].(map[string]any)
	mark := b.text("#view mark#hit")
	if mark != chunk["chunk_content"] || !strings.Contains(mark, "bananas for the smoothie") {
		t.Fatalf("highlighted range = %q, want the chunk %q (bytes %v-%v) with the matching line",
			mark, chunk["chunk_content"], chunk["file_seek_start_bytes"], chunk["file_seek_end_bytes"])
	}
	if mark == first+second {
		t.Fatalf("the whole file is highlighted; want one chunk of several")
	}
	// Exact search (file_grep) beside it: the matching line opens its file at that line.
	b.click("#search-kind-exact")
	b.waitFor("grep options shown", `!document.querySelector("#grep-options").hidden`)
	b.click("#search-ignore-case")
	b.retype("#search-query", "BANANAS FOR")
	b.pressEnter()
	b.waitFor("grep results", `document.querySelector("#search-summary").textContent.startsWith("1 matching line")`)
	grep := mustCall(t, srv.base, "dev", "file_grep", map[string]any{"project": project, "pattern": "bananas for", "fixed_strings": true})
	match := grep["matches"].([]any)[0].(map[string]any)
	wantHead := fmt.Sprintf("/notes/todo.md:%v", match["line_number"])
	if head := b.text("#results .result-head"); head != wantHead {
		t.Fatalf("grep result = %q, want %q", head, wantHead)
	}
	b.click("#results button.result")
	b.waitFor("line highlighted", `document.querySelector("#status").textContent.endsWith("at line `+fmt.Sprint(match["line_number"])+`")`)
	if mark := b.text("#view mark#hit"); mark != "Last: bananas for the smoothie, ripe ones." || mark != match["line"] {
		t.Fatalf("highlighted line = %q, want %q", mark, match["line"])
	}
	b.click("#search-kind-meaning")

	shot := filepath.Join(artifactDir(t), "console.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)

	// A bad path shows the coded error from the API.
	b.retype("#write-path", "no-leading-slash")
	b.focus("#write-content")
	b.typeText("x")
	b.click("#write-form button[type=submit]")
	b.waitFor("error shown", `!document.querySelector("#error").hidden`)
	if e := b.text("#error"); !strings.HasPrefix(e, "INVALID_PATH ") || !strings.Contains(e, "HTTP 400") {
		t.Fatalf("error box = %q, want INVALID_PATH with HTTP 400", e)
	}

	// Delete the directory recursively: the confirmation dialog comes first.
	b.retype("#delete-path", "/notes")
	b.click("#delete-recursive")
	b.click("#delete-form button[type=submit]")
	b.waitFor("confirmation open", `document.querySelector("#confirm-delete").open`)
	if q := b.text("#confirm-text"); !strings.Contains(q, "/notes and everything below it") {
		t.Fatalf("confirmation text = %q", q)
	}
	b.click("#confirm-yes")
	b.waitFor("deleted", `document.querySelector("#status").textContent.startsWith("Deleted /notes")`)
	b.waitFor("tree empty again", `!document.querySelector("#tree-empty").hidden && document.querySelectorAll("#tree li[role=treeitem]").length === 0`)
	if v := b.text("#view"); v != "" {
		t.Errorf("file view after deleting the open file = %q, want it cleared", v)
	}
	if e := b.text("#error"); e != "" {
		t.Errorf("error box after a successful delete = %q, want it cleared", e)
	}
	stat := mustCall(t, srv.base, "dev", "file_stat", map[string]any{"project": project, "path": "/notes/todo.md"})
	if stat["exists"] != false {
		t.Fatalf("file_stat after the console's delete = %v, want exists=false", stat)
	}
}

// groceryList is a file of about 3 KB in short paragraphs.
func groceryList() string {
	var sb strings.Builder
	sb.WriteString("# Groceries\n\n")
	items := []string{"apples", "pears", "oat milk", "rye bread", "lentils", "tomatoes", "basil", "olive oil",
		"rice", "coffee", "black tea", "yoghurt", "onions", "garlic", "lemons", "spinach"}
	for i, item := range items {
		fmt.Fprintf(&sb, "Item %d: %s. Check the pantry first; buy the %s only if the shelf is empty, and prefer the market on Saturday.\n", i+1, item, item)
		if i%3 == 2 {
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// TestConsoleEditRenameHistory drives the console's edit, rename and history actions in headless Chromium: edit a
// file and see the diff before saving; a save after someone else changed the file shows the
// conflict and keeps both changes apart; the history lists the versions and restores an old
// one; rename refuses an existing destination and then moves the file; a deleted file comes
// back by typing its path into the history view. Every result is checked through the JSON API.
func TestConsoleEditRenameHistory(t *testing.T) {
	b := startBrowser(t, 1400, 900)
	srv := startServer(t)
	const project = "console-edit"
	read := func(path string) any {
		t.Helper()
		return mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": path})["content"]
	}
	original := "# Plan\n\nline one\nline two <b>bold</b>\nline three\n"
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/notes/plan.md", "content": original})

	b.navigate(srv.base + "/#token=dev")
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("tree loaded", `!!document.querySelector('#tree li[data-path="/notes"]')`)
	b.click(`#tree li[data-path="/notes"] .name`)
	b.waitFor("directory expanded", `!!document.querySelector('#tree li[data-path="/notes/plan.md"]')`)
	b.click(`#tree li[data-path="/notes/plan.md"] .name`)
	b.waitFor("file opened", `document.querySelector("#view-path").textContent === "/notes/plan.md" && !document.querySelector("#edit-btn").disabled`)

	// Edit: the diff comes first (a dry run that changes nothing), then Save.
	b.click("#edit-btn")
	b.waitFor("editor open", fmt.Sprintf(`!document.querySelector("#editor").hidden && document.querySelector("#view").hidden && document.querySelector("#edit-text").value === %q`, original))
	edited := "# Plan\n\nline one\nline 2 <i>edited</i>\nline three\nline four\n"
	b.retype("#edit-text", edited)
	b.click("#edit-review")
	b.waitFor("diff shown", `!document.querySelector("#review").hidden`)
	var diff struct {
		Text     string
		Added    []string
		Removed  []string
		Elements int
	}
	if err := b.eval(`(() => {
		const d = document.querySelector("#diff");
		const lines = (sel) => Array.from(d.querySelectorAll(sel), (e) => e.textContent);
		return {Text: d.textContent, Added: lines(".d-add"), Removed: lines(".d-del"), Elements: d.querySelectorAll("b, i").length};
	})()`, &diff); err != nil {
		t.Fatal(err)
	}
	wantDiff := struct{ Added, Removed []string }{
		Added:   []string{"+line 2 <i>edited</i>\n", "+line four\n"},
		Removed: []string{"-line two <b>bold</b>\n"},
	}
	if d := cmp.Diff(wantDiff, struct{ Added, Removed []string }{diff.Added, diff.Removed}); d != "" {
		t.Errorf("coloured diff lines (-want +got):\n%s\nwhole diff:\n%s", d, diff.Text)
	}
	if !strings.HasPrefix(diff.Text, "--- a/notes/plan.md\n+++ b/notes/plan.md\n@@ ") || diff.Elements != 0 {
		t.Errorf("diff view = %q with %d HTML elements from the text, want a unified diff shown as text", diff.Text, diff.Elements)
	}
	if got := read("/notes/plan.md"); got != original {
		t.Fatalf("after Review changes the file is %q, want it unchanged %q", got, original)
	}
	shot := filepath.Join(artifactDir(t), "console-edit-diff.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)
	b.click("#edit-save")
	b.waitFor("saved", `document.querySelector("#status").textContent.startsWith("Saved /notes/plan.md")`)
	b.waitFor("view shows the saved text", fmt.Sprintf(`!document.querySelector("#view").hidden && document.querySelector("#view").textContent === %q`, edited))
	if got := read("/notes/plan.md"); got != edited {
		t.Fatalf("after Save the file is %q, want %q", got, edited)
	}

	// A conflicting save: the file changes through the API between opening the editor and Save.
	b.click("#edit-btn")
	b.waitFor("editor open again", fmt.Sprintf(`!document.querySelector("#editor").hidden && document.querySelector("#edit-text").value === %q`, edited))
	b.retype("#edit-text", "# Plan\n\nreplaced by the console\n")
	b.click("#edit-review")
	b.waitFor("second diff shown", `!document.querySelector("#review").hidden`)
	other := edited + "line five, from an agent\n"
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/notes/plan.md", "content": other, "mode": "TRUNCATE"})
	b.click("#edit-save")
	b.waitFor("conflict shown", `!document.querySelector("#conflict").hidden && document.querySelector("#review").hidden`)
	if c := strings.Join(strings.Fields(b.text("#conflict")), " "); !strings.HasPrefix(c, "CONFLICT /notes/plan.md changed") || !strings.Contains(c, "nothing was saved") {
		t.Errorf("conflict box = %q", c)
	}
	if got := read("/notes/plan.md"); got != other {
		t.Fatalf("after the conflicting save the file is %q, want the agent's %q", got, other)
	}
	b.click("#conflict-reload")
	b.waitFor("editor reloaded", fmt.Sprintf(`document.querySelector("#conflict").hidden && document.querySelector("#edit-text").value === %q`, other))
	b.click("#edit-cancel")
	b.waitFor("editor closed", `document.querySelector("#editor").hidden && !document.querySelector("#view").hidden`)

	// History: the versions, newest first; View shows an old one; Restore brings it back.
	versions := mustCall(t, srv.base, "dev", "file_versions", map[string]any{"project": project, "path": "/notes/plan.md"})["versions"].([]any)
	oldest := versions[len(versions)-1].(map[string]any)
	v1 := fmt.Sprint(oldest["version"])
	b.click("#history-btn")
	b.waitFor("versions listed", fmt.Sprintf(`document.querySelectorAll("#versions tbody tr").length === %d && !document.querySelector("#history").hidden`, len(versions)))
	var rows []string
	if err := b.eval(`Array.from(document.querySelectorAll("#versions tbody tr"), (tr) => tr.dataset.version + " " + tr.querySelector(".kind").textContent)`, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 3 || !strings.HasSuffix(rows[0], " current content") || rows[len(rows)-1] != v1+" replaced by a later version" {
		t.Errorf("history rows = %q, want the current version first and at least three after the writes", rows)
	}
	if s := b.text(fmt.Sprintf(`#versions tr[data-version="%s"] td:nth-child(4)`, v1)); s != oldest["sha256"].(string)[:12]+"…" {
		t.Errorf("sha256 cell of v%s = %q, want the prefix of %v", v1, s, oldest["sha256"])
	}
	b.click(fmt.Sprintf(`#versions tr[data-version="%s"] button[data-action=view]`, v1))
	b.waitFor("old version shown", fmt.Sprintf(`!document.querySelector("#version-view").hidden && document.querySelector("#version-view").textContent === %q`, original))
	b.click(fmt.Sprintf(`#versions tr[data-version="%s"] button[data-action=restore]`, v1))
	b.waitFor("restored", `document.querySelector("#status").textContent.startsWith("Restored version `+v1+` of /notes/plan.md")`)
	b.waitFor("history reloaded", fmt.Sprintf(`document.querySelectorAll("#versions tbody tr").length === %d`, len(versions)+1))
	if got := read("/notes/plan.md"); got != original {
		t.Fatalf("after Restore the file is %q, want version %s %q", got, v1, original)
	}
	shot = filepath.Join(artifactDir(t), "console-history.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)

	// Rename: an existing destination is refused with the API's code; then the file moves.
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/archive/taken.md", "content": "taken\n"})
	rename := func(to string) {
		t.Helper()
		b.click("#rename-btn")
		b.waitFor("rename dialog open", `document.querySelector("#rename-dialog").open && document.querySelector("#rename-from").value === "/notes/plan.md"`)
		b.retype("#rename-to", to)
		b.pressEnter()
	}
	rename("/archive/taken.md")
	b.waitFor("ALREADY_EXISTS shown", `!document.querySelector("#error").hidden`)
	if e := b.text("#error"); !strings.HasPrefix(e, "ALREADY_EXISTS ") {
		t.Errorf("error box = %q, want ALREADY_EXISTS", e)
	}
	if got := read("/archive/taken.md"); got != "taken\n" {
		t.Fatalf("the refused rename changed the destination to %q", got)
	}
	rename("/archive/plan.md")
	b.waitFor("renamed", `document.querySelector("#status").textContent.startsWith("Renamed /notes/plan.md to /archive/plan.md")`)
	b.waitFor("tree and view follow", `!!document.querySelector('#tree li[data-path="/archive/plan.md"]') && !document.querySelector('#tree li[data-path="/notes/plan.md"]') && document.querySelector("#view-path").textContent === "/archive/plan.md"`)
	if e := b.text("#error"); e != "" {
		t.Errorf("error box after the rename = %q, want it cleared", e)
	}
	if got := read("/archive/plan.md"); got != original {
		t.Fatalf("renamed file = %q, want %q", got, original)
	}
	if st := mustCall(t, srv.base, "dev", "file_stat", map[string]any{"project": project, "path": "/notes/plan.md"}); st["exists"] != false {
		t.Fatalf("file_stat of the old path after the rename = %v, want exists=false", st)
	}

	// A deleted file: type its path into the history view and restore its last version.
	mustCall(t, srv.base, "dev", "file_delete", map[string]any{"project": project, "path": "/archive/taken.md"})
	b.click("#history-btn")
	b.waitFor("history of the open file", `!document.querySelector("#history").hidden && document.querySelector("#status").textContent === "History of /archive/plan.md"`)
	b.retype("#history-path", "/archive/taken.md")
	b.pressEnter()
	b.waitFor("deleted file's versions", `document.querySelectorAll("#versions tbody tr").length === 1 && document.querySelector("#history-summary").textContent.includes("does not exist now")`)
	b.click("#versions tbody tr button[data-action=restore]")
	b.waitFor("deleted file restored", `document.querySelector("#status").textContent.includes("the deleted file exists again")`)
	if got := read("/archive/taken.md"); got != "taken\n" {
		t.Fatalf("restored deleted file = %q, want %q", got, "taken\n")
	}

	// A directory selected in the tree is renamed with everything below it; the open file follows.
	b.click(`#tree li[data-path="/archive"] > .label .name`)
	b.click("#rename-btn")
	b.waitFor("rename dialog for the directory", `document.querySelector("#rename-dialog").open && document.querySelector("#rename-from").value === "/archive"`)
	b.retype("#rename-to", "/old")
	b.pressEnter()
	b.waitFor("directory renamed", `document.querySelector("#status").textContent === "Renamed /archive to /old (2 files)"`)
	b.waitFor("tree and view follow the directory", `!!document.querySelector('#tree li[data-path="/old"]') && !document.querySelector('#tree li[data-path="/archive"]') && document.querySelector("#view-path").textContent === "/old/taken.md"`)
	if got := read("/old/plan.md"); got != original {
		t.Fatalf("/old/plan.md after the directory rename = %q, want %q", got, original)
	}
}

// TestConsoleEditForMatchesFileEdit checks the console's own part of an edit against the
// server: for each change, editFor (in the page) picks a short old_str that occurs exactly once,
// sha256Hex hashes as the server does, and file_edit with both turns the old text into the new.
// Then a file with \r\n line breaks goes through the editor and keeps them.
func TestConsoleEditForMatchesFileEdit(t *testing.T) {
	b := startBrowser(t, 1000, 700)
	srv := startServer(t)
	const project = "edit-for"
	b.navigate(srv.base + "/#token=dev")
	b.waitFor("console script loaded", `typeof editFor === "function"`)
	long := strings.Repeat("same line\n", 200)
	tests := []struct {
		name, old, new string
		want           string // the file after the edit; "" means new
		wholeFile      bool   // old_str may be the whole file
	}{
		{name: "middle line", old: "a\nb\nc\n", new: "a\nB\nc\n"},
		{name: "repeated lines widen to a unique context", old: "x\nsame\nsame\ny\n", new: "x\nsame\nother\ny\n"},
		{name: "insert a line", old: "one\ntwo\n", new: "one\none and a half\ntwo\n"},
		{name: "first line", old: "head\nbody\n", new: "HEAD\nbody\n"},
		{name: "last line without a newline", old: "a\nb", new: "a\nb and more"},
		{name: "append a newline", old: "a\nb", new: "a\nb\n"},
		{name: "delete everything", old: "a\nb\n", new: "", wholeFile: true},
		{name: "empty file gets lines", old: "", new: "first", want: "first\n"},
		{name: "unicode", old: "née 😀\nçà\n", new: "née 😁\nçà\n"},
		{name: "one line in a long repetitive file", old: "start\n" + long + "end\n", new: "start\n" + long + "END\n"},
		{name: "html is text", old: "<p>x</p>\n", new: "<p>y</p>\n", wholeFile: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := fmt.Sprintf("/t/%d.md", i)
			mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": path, "content": tt.old, "mode": "TRUNCATE"})
			var args map[string]any
			expr := fmt.Sprintf(`(async () => {
				const c = editFor(%q, %q);
				return Object.assign({project: %q, path: %q, expected_sha256: await sha256Hex(%q)}, c);
			})()`, tt.old, tt.new, project, path, tt.old)
			if err := b.eval(expr, &args); err != nil {
				t.Fatal(err)
			}
			if edits, ok := args["edits"].([]any); ok && !tt.wholeFile {
				if old := edits[0].(map[string]any)["old_str"].(string); len(old) >= len(tt.old) && len(tt.old) > 6 {
					t.Errorf("old_str is the whole file (%d bytes); want only the changed lines", len(old))
				}
			}
			mustCall(t, srv.base, "dev", "file_edit", args)
			want := tt.want
			if want == "" {
				want = tt.new
			}
			got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": path})["content"]
			if got != want {
				t.Errorf("after file_edit with %v the file is %q, want %q", args, got, want)
			}
		})
	}
	var same bool
	if err := b.eval(`editFor("a\n", "a\n") === null`, &same); err != nil || !same {
		t.Errorf("editFor of unchanged text = not null (err %v); want null, nothing to save", err)
	}

	// A file with \r\n line breaks: the text area shows \n, the diff has only the changed line
	// and the saved file keeps its \r\n.
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/crlf.txt", "content": "one\r\ntwo\r\nthree\r\n"})
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("tree loaded", `!!document.querySelector('#tree li[data-path="/crlf.txt"]')`)
	b.click(`#tree li[data-path="/crlf.txt"] .name`)
	b.waitFor("file opened", `document.querySelector("#view-path").textContent === "/crlf.txt"`)
	b.click("#edit-btn")
	b.waitFor("editor open", `document.querySelector("#edit-text").value === "one\ntwo\nthree\n"`)
	b.retype("#edit-text", "one\nTWO\nthree\n")
	b.click("#edit-review")
	b.waitFor("diff shown", `!document.querySelector("#review").hidden`)
	var changed []string
	if err := b.eval(`Array.from(document.querySelectorAll("#diff .d-add, #diff .d-del"), (e) => e.textContent)`, &changed); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"-two\r\n", "+TWO\r\n"}, changed); d != "" {
		t.Errorf("changed lines of the CRLF file (-want +got):\n%s", d)
	}
	b.click("#edit-save")
	b.waitFor("saved", `document.querySelector("#status").textContent.startsWith("Saved /crlf.txt")`)
	if got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": "/crlf.txt"})["content"]; got != "one\r\nTWO\r\nthree\r\n" {
		t.Errorf("saved CRLF file = %q, want its \\r\\n kept", got)
	}
}

// TestConsoleTreeFollowsCursors: with a list limit of 2, the tree still shows every entry of a
// directory, continuing each truncated file_list with its next_cursor.
func TestConsoleTreeFollowsCursors(t *testing.T) {
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, []byte("settings:\n  mcp:\n    files:\n      list_limit_default: 2\n      list_limit_max: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "-config", config)
	const project = "console-paging"
	var want []string
	for i := range 5 {
		path := fmt.Sprintf("/many/%d.md", i)
		mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": path, "content": "x"})
		want = append(want, path)
	}
	page := mustCall(t, srv.base, "dev", "file_list", map[string]any{"project": project, "path": "/many"})
	if page["truncated"] != true || page["next_cursor"] == nil || len(page["entries"].([]any)) != 2 {
		t.Fatalf("file_list with limit 2 = %v, want 2 entries, truncated, next_cursor", page)
	}

	b := startBrowser(t, 1200, 800)
	b.navigate(srv.base + "/#token=dev")
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("tree loaded", `!!document.querySelector('#tree li[data-path="/many"]')`)
	b.focus(`#tree li[data-path="/many"]`)
	b.pressEnter()
	b.waitFor("every entry shown", `document.querySelectorAll('#tree li[data-path^="/many/"]').length === 5`)
	var got []string
	if err := b.eval(`Array.from(document.querySelectorAll('#tree li[data-path^="/many/"]')).map((li) => li.dataset.path)`, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tree entries (-want +got):\n%s", diff)
	}
	if more := b.text("#tree li.more"); more != "" {
		t.Errorf("tree says %q, want no cut", more)
	}
}
