package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// TestArchiveRoutesOnTheServer uploads a project with PUT /archive/{project}, reads a file of
// it through /tools, and downloads it again with GET, with the server's bearer tokens, in
// memory and on PostgreSQL.
func TestArchiveRoutesOnTheServer(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testArchiveRoutes(t) })
	t.Run("postgres", func(t *testing.T) { testArchiveRoutes(t, "-database-url", pgtest.New(t)) })
}

func testArchiveRoutes(t *testing.T, args ...string) {
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
}
