package fileiotools_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/adapters/httpapi"
	"github.com/agentfiles/agentfiles/adapters/mcpsdk"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/google/go-cmp/cmp"
)

var archiveFiles = []storetest.ArchiveEntry{
	{Name: "notes/meeting notes.md", Content: "agenda\n"},
	{Name: "notes/caf\u00e9.md", Content: "cr\u00e8me\n"},
	{Name: "logo.png", Content: "\x89PNG\r\n\x1a\n\x00"},
}

// TestArchiveToolsOverMCP imports an archive with file_import and exports it with file_export
// through a real MCP client session.
func TestArchiveToolsOverMCP(t *testing.T) {
	ac := agentfiles.NewAuthContext("sk-archive", "archive-user")
	cs := adapterstest.Connect(t, fileioTools(t), mcpsdk.Options{Auth: &ac})
	b64 := base64.StdEncoding.EncodeToString(storetest.BuildArchive(t, archive.Zip, archiveFiles))
	mcptest.Script(t, cs, []mcptest.Exchange{
		{Tool: "file_import", Args: map[string]any{"project": "p", "path": "/site", "archive": b64}, Want: `"entry":"logo.png"`},
		{Tool: "file_read", Args: map[string]any{"project": "p", "path": "/site/notes/cafe\u0301.md"}, Want: "cr\u00e8me"},
		{Tool: "file_import", Args: map[string]any{"project": "p", "archive": "not base64!"}, Want: "not valid Base64", IsError: true},
		{Tool: "file_import", Args: map[string]any{"project": "p", "archive": base64.StdEncoding.EncodeToString(
			storetest.BuildArchive(t, archive.Tar, []storetest.ArchiveEntry{{Name: "../x", Content: "x"}}))}, Want: "would lead outside the import directory", IsError: true},
	})
	res, text := mcptest.CallTool(t, cs, "file_export", map[string]any{"project": "p", "path": "/site", "format": "tar.gz"})
	var out struct {
		Files   int    `json:"files"`
		Archive string `json:"archive"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError {
		t.Fatalf("file_export: %s (%v)", text, err)
	}
	data, err := base64.StdEncoding.DecodeString(out.Archive)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"notes/meeting notes.md": "agenda\n", "notes/caf\u00e9.md": "cr\u00e8me\n"}
	if diff := cmp.Diff(want, storetest.ReadArchive(t, data)); diff != "" || out.Files != 2 {
		t.Errorf("file_export: %d files (-want +got):\n%s", out.Files, diff)
	}
}

// TestExportTooLargeForATool checks that file_export refuses an archive over the payload
// limit and points to the HTTP route.
func TestExportTooLargeForATool(t *testing.T) {
	svc := storetest.NewService(t, memstore.New(memstore.Options{}), func(c *fileio.Config) { c.MaxPayloadBytes = 1024 })
	ctx := agentfiles.WithAuth(t.Context(), agentfiles.NewAuthContext("k", "u"))
	for i := range 3 {
		if _, err := svc.Write(ctx, fileio.WriteRequest{Project: "p", Path: "/f" + string(rune('a'+i)), Content: strings.Repeat("x", 1000)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := adapterstest.CallContext(ctx, t, fileiotools.Tools(svc), "file_export", `{"project":"p"}`)
	if te, _ := adapters.ErrorOf(err); te.Code != "PAYLOAD_TOO_LARGE" || !strings.Contains(te.Message, "GET /archive/{project}") {
		t.Errorf("file_export over the limit: %v", err)
	}
}

// TestArchiveRoutes imports with PUT /archive/{project} and exports with GET, authenticated
// with the bearer token as /tools is.
func TestArchiveRoutes(t *testing.T) {
	svc := storetest.NewService(t, memstore.New(memstore.Options{}), func(c *fileio.Config) { c.MaxArchiveBytes = 64 << 10 })
	mux := http.NewServeMux()
	mux.Handle("/archive/", httpapi.NewArchiveHandler(svc, httpapi.ArchiveOptions{Authenticator: adapters.BearerAuth(nil)}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	do := func(method, target, token string, body []byte) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+target, bytes.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	project := "/archive/" + url.PathEscape("my project")
	tgz := storetest.BuildArchive(t, archive.TarGz, archiveFiles)
	if resp, _ := do(http.MethodPut, project, "", tgz); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("PUT without a token: %d, want 401", resp.StatusCode)
	}
	resp, body := do(http.MethodPut, project+"?path=/site&mode=replace", "tok", tgz)
	var res fileio.ImportResult
	if err := json.Unmarshal(body, &res); err != nil || resp.StatusCode != http.StatusOK || res.Files != 2 || len(res.Skipped) != 1 {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	resp, body = do(http.MethodPut, project+"?strict=true", "tok", tgz)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "logo.png") {
		t.Errorf("PUT strict with a binary file: %d %s", resp.StatusCode, body)
	}
	big := storetest.BuildArchive(t, archive.Tar, []storetest.ArchiveEntry{{Name: "big.md", Content: strings.Repeat("x", 70<<10)}})
	resp, body = do(http.MethodPut, project, "tok", big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT over max_archive_bytes: %d %s", resp.StatusCode, body)
	}
	for _, format := range []string{"tar", "tar.gz", "zip"} {
		resp, body = do(http.MethodGet, project+"?path=/site&format="+format, "tok", nil)
		want := map[string]string{"notes/meeting notes.md": "agenda\n", "notes/caf\u00e9.md": "cr\u00e8me\n"}
		if diff := cmp.Diff(want, storetest.ReadArchive(t, body)); resp.StatusCode != http.StatusOK || diff != "" {
			t.Errorf("GET %s: %d (-want +got):\n%s", format, resp.StatusCode, diff)
		}
		if cd := resp.Header.Get("Content-Disposition"); cd != "attachment; filename*=UTF-8''my%20project-site."+format {
			t.Errorf("GET %s: Content-Disposition %q", format, cd)
		}
	}
	resp, body = do(http.MethodGet, project+"?path=/nope", "tok", nil)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "NOT_FOUND") {
		t.Errorf("GET of a missing path: %d %s", resp.StatusCode, body)
	}
	resp, _ = do(http.MethodGet, project+"?glob=*.md&format=zip", "tok", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" {
		t.Errorf("GET zip with a glob: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := do(http.MethodDelete, project, "tok", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d, want 405", resp.StatusCode)
	}
}
