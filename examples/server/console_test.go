package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleInChromium drives the FileIO console in headless Chromium with the keyboard and
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
	b.focus("#project")
	b.clear()
	b.typeText(project)
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
	shot := filepath.Join(artifactDir(t), "console.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)

	// A bad path shows the coded error from the API.
	b.focus("#write-path")
	b.clear()
	b.typeText("no-leading-slash")
	b.focus("#write-content")
	b.typeText("x")
	b.click("#write-form button[type=submit]")
	b.waitFor("error shown", `!document.querySelector("#error").hidden`)
	if e := b.text("#error"); !strings.HasPrefix(e, "INVALID_PATH ") || !strings.Contains(e, "HTTP 400") {
		t.Fatalf("error box = %q, want INVALID_PATH with HTTP 400", e)
	}

	// Delete the directory recursively: the confirmation dialog comes first.
	b.focus("#delete-path")
	b.clear()
	b.typeText("/notes")
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
