package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

// TestArchiveRoutesOnTheServer uploads a project with PUT /archive/{project}, reads a file of
// it through /tools, and downloads it again with GET, with the server's bearer tokens, in
// memory and on PostgreSQL; on PostgreSQL an upload with index_now=true answers once its files
// are in the trigram index.
func TestArchiveRoutesOnTheServer(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testArchiveRoutes(t) })
	t.Run("postgres", func(t *testing.T) {
		db := pgtest.New(t)
		do := testArchiveRoutes(t, "-database-url", db)
		entries := []storetest.ArchiveEntry{{Name: "a.md", Content: "alpha\n"}, {Name: "b.md", Content: "beta\n"}}
		if code, body := do(http.MethodPut, "/archive/indexed?index_now=true", "alice-key", storetest.BuildArchive(t, archive.Tar, entries)); code != http.StatusOK {
			t.Fatalf("PUT with index_now: %d %s", code, body)
		}
		conn, err := pgx.Connect(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var indexed, unindexed int
		err = conn.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE grep_indexed), count(*) FILTER (WHERE NOT grep_indexed)
			FROM mcp_files WHERE project = 'indexed' AND NOT deleted`).Scan(&indexed, &unindexed)
		if err != nil || indexed != 2 || unindexed != 0 {
			t.Errorf("right after an upload with index_now=true: %d indexed, %d unindexed files, %v; want 2, 0", indexed, unindexed, err)
		}
	})
}

// testArchiveRoutes runs the test on a server started with args and returns the function that
// sends it requests.
func testArchiveRoutes(t *testing.T, args ...string) func(method, target, token string, body []byte) (int, []byte) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("alice-key alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, append([]string{"-token-file", tokens, "-log-level", "off"}, args...)...)
	files := []storetest.ArchiveEntry{{Name: "notes/meeting notes.md", Content: "agenda\n"}, {Name: "notes/caf\u00e9.md", Content: "cr\u00e8me\n"}}
	do := func(method, target, token string, body []byte) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.base+target, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	target := "/archive/" + url.PathEscape("my docs") + "?path=/site&mode=replace"
	if code, body := do(http.MethodPut, target, "", storetest.BuildArchive(t, archive.Zip, files)); code != http.StatusUnauthorized {
		t.Errorf("PUT without a token: %d %s", code, body)
	}
	code, body := do(http.MethodPut, target, "alice-key", storetest.BuildArchive(t, archive.Zip, files))
	var res struct{ Files int }
	if err := json.Unmarshal(body, &res); err != nil || code != http.StatusOK || res.Files != 2 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	got := mustCall(t, srv.base, "alice-key", "file_read", map[string]any{"project": "my docs", "path": "/site/notes/cafe\u0301.md"})
	if got["content"] != "cr\u00e8me\n" {
		t.Errorf("file_read of an imported file by its NFD name = %v", got)
	}
	code, body = do(http.MethodGet, "/archive/"+url.PathEscape("my docs")+"?path=/site&format=tar.gz", "alice-key", nil)
	want := map[string]string{"notes/meeting notes.md": "agenda\n", "notes/caf\u00e9.md": "cr\u00e8me\n"}
	if diff := cmp.Diff(want, storetest.ReadArchive(t, body)); code != http.StatusOK || diff != "" {
		t.Errorf("GET: %d (-want +got):\n%s", code, diff)
	}
	return do
}

// TestConsoleArchiveUploadDownload drives the console's Upload (a file chosen in the file
// input) and Download buttons in headless Chromium: the archive's files, spaces and accents in
// their names, appear in the tree and through the JSON API, and the download names its file.
func TestConsoleArchiveUploadDownload(t *testing.T) {
	b := startBrowser(t, 1366, 860)
	srv := startServer(t)
	const project = "console-archive"
	mustCall(t, srv.base, "dev", "file_write", map[string]any{"project": project, "path": "/site/index.md", "content": "# Site\n"})
	upload := filepath.Join(t.TempDir(), "notes.tar.gz")
	files := []storetest.ArchiveEntry{{Name: "notes/meeting notes.md", Content: "agenda\n"}, {Name: "notes/caf\u00e9.md", Content: "cr\u00e8me\n"}, {Name: "logo.png", Content: "\x89PNG\x00"}}
	if err := os.WriteFile(upload, storetest.BuildArchive(t, archive.TarGz, files), 0o600); err != nil {
		t.Fatal(err)
	}

	b.navigate(srv.base + "/#token=dev")
	b.retype("#project", project)
	b.pressEnter()
	b.waitFor("tree loaded", `!!document.querySelector('#tree li[data-path="/site"]')`)
	b.click(`#tree li[data-path="/site"] .name`) // select the directory: Upload imports into it
	var input struct {
		Result struct {
			ObjectID string `json:"objectId"`
		} `json:"result"`
	}
	b.call("Runtime.evaluate", map[string]any{"expression": `document.querySelector("#upload-input")`}, &input)
	b.call("DOM.setFileInputFiles", map[string]any{"files": []string{upload}, "objectId": input.Result.ObjectID}, nil)
	b.waitFor("import reported", `document.querySelector("#status").textContent.startsWith("Imported 2 files")`)
	if got := b.text("#status"); !strings.Contains(got, "skipped 1 that are not text: logo.png") {
		t.Errorf("status after the upload = %q", got)
	}
	b.waitFor("imported directory in the tree", `!!document.querySelector('#tree li[data-path="/site/notes"]')`)
	got := mustCall(t, srv.base, "dev", "file_read", map[string]any{"project": project, "path": "/site/notes/meeting notes.md"})
	if got["content"] != "agenda\n" {
		t.Errorf("file_read of the uploaded file = %v", got)
	}

	b.click("#download-btn")
	b.waitFor("download reported", `document.querySelector("#status").textContent.startsWith("Downloaded ")`)
	if got := b.text("#status"); !strings.HasPrefix(got, "Downloaded console-archive-site.zip (") {
		t.Errorf("status after the download = %q", got)
	}
	shot := filepath.Join(artifactDir(t), "console-archive.png")
	b.screenshot(shot)
	t.Logf("console screenshot: %s", shot)
}
