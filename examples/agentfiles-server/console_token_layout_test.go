package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleTokenLayoutAndStaleResults covers the console's token and layout in headless Chromium at
// 1400×900: a new #token= pasted into the open page replaces the old token and its 401 banner;
// search results are visible without scrolling; a write clears results that may be stale.
func TestConsoleTokenLayoutAndStaleResults(t *testing.T) {
	b := startBrowser(t, 1400, 900)
	srv := startServer(t)
	const project = "layout"
	for _, p := range []string{"/a.md", "/b.md", "/c.md", "/d.md", "/e.md"} {
		mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": p,
			"content": "# Shopping\n\nOat milk, rye bread and coffee for the week; " + strings.Repeat("check the pantry first. ", 12) + "\n"})
	}

	// A wrong token: the API answers 401 and the page says so.
	b.navigate(srv.base + "/#token=wrong")
	b.waitFor("401 banner", `!document.querySelector("#error").hidden && document.querySelector("#error").textContent.startsWith("UNAUTHENTICATED")`)

	// The right token pasted into the address bar of the same page (only the fragment changes,
	// so the page is not reloaded): stored, removed from the URL, the banner gone.
	if err := b.eval(`window.notReloaded = true; location.hash = "#token=dev"`, nil); err != nil {
		t.Fatal(err)
	}
	b.waitFor("new token taken", `window.notReloaded === true && localStorage.getItem("agentfiles.token") === "dev" && location.hash === "" && document.querySelector("#token").value === "dev"`)
	b.waitFor("banner gone", `document.querySelector("#error").hidden`)

	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("project opened", `document.querySelectorAll("#tree > li[role=treeitem]").length === 5`)

	b.focus("#search-query")
	b.typeText("oat milk coffee")
	b.pressEnter()
	b.waitFor("five results", `document.querySelectorAll("#results button.result").length === 5`)
	var layout struct {
		ScrollY, PanelScroll, Bottom, PanelBottom, Height float64
	}
	if err := b.eval(`(() => {
		const rs = document.querySelectorAll("#results button.result");
		const panel = document.querySelector(".actions");
		return {ScrollY: window.scrollY, PanelScroll: panel.scrollTop, Bottom: rs[rs.length - 1].getBoundingClientRect().bottom,
			PanelBottom: panel.getBoundingClientRect().bottom, Height: window.innerHeight};
	})()`, &layout); err != nil {
		t.Fatal(err)
	}
	if layout.ScrollY != 0 || layout.PanelScroll != 0 || layout.Bottom > layout.PanelBottom || layout.PanelBottom > layout.Height {
		t.Errorf("search results need scrolling at 1400×900: %+v", layout)
	}
	shot := filepath.Join(artifactDir(t), "console-1400x900.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)

	// A write through the form clears the results, whose ranges may be stale now.
	b.retype("#write-path", "/a.md")
	b.focus("#write-content")
	b.typeText("More milk.\n")
	b.click("#write-form button[type=submit]")
	b.waitFor("write done", `document.querySelector("#status").textContent.startsWith("Opened /a.md")`)
	b.waitFor("results cleared", `document.querySelectorAll("#results li").length === 0 && document.querySelector("#search-summary").textContent.includes("search again")`)
}
