package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/cmdtest"
	"github.com/agentfiles/agentfiles/internal/mcptest"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// TestPostgresSharedAcrossProcesses runs two servers on one PostgreSQL database: this process
// serves the HTTP API, a second process (the built binary) serves MCP on stdio to the Go SDK
// client. Writes through either are visible through the other, search in the second process
// finds a file the first one wrote, and tenants stay apart.
func TestPostgresSharedAcrossProcesses(t *testing.T) {
	dbURL := pgtest.New(t)
	bin := cmdtest.Build(t, ".")
	httpSrv := startServer(t, "-database-url", dbURL, "-log-level", "off")
	if out := httpSrv.output.String(); !strings.Contains(out, "files: PostgreSQL") || !strings.Contains(out, "PostgreSQL index") {
		t.Errorf("banner does not report the PostgreSQL store and index:\n%s", out)
	}

	// Write through the HTTP API (what the console does), as the dev tenant.
	doc := "Deployment notes\n\nThe canary runs in the Frankfurt region before every rollout.\n"
	mustCall(t, httpSrv.base, "dev", "file_write", map[string]any{"project": "ops", "path": "/runbooks/deploy.md", "content": doc})
	mustCall(t, httpSrv.base, "dev", "file_write", map[string]any{"project": "ops", "path": "/runbooks/deploy.md", "content": "Rollback: redeploy the previous tag.\n"})
	want := doc + "Rollback: redeploy the previous tag.\n"

	// The second process, same database, same tenant (the stdio tenant is the -dev-token).
	cs := mcptest.ConnectCommand(t, bin, "-stdio", "-database-url", dbURL, "-log-level", "off")
	got := mcptest.MustCall(t, cs, "file_read", map[string]any{"project": "ops", "path": "/runbooks/deploy.md"})
	if got["content"] != want {
		t.Fatalf("file_read in the second process = %q, want %q", got["content"], want)
	}
	list := mcptest.MustCall(t, cs, "file_list", map[string]any{"project": "ops", "path": "/runbooks"})
	if entries := list["entries"].([]any); len(entries) != 1 || entries[0].(map[string]any)["path"] != "/runbooks/deploy.md" {
		t.Fatalf("file_list in the second process = %v", list)
	}
	hits := mcptest.MustCall(t, cs, "file_search", map[string]any{"project": "ops", "query": "canary Frankfurt"})
	chunks, _ := hits["chunks"].([]any)
	if len(chunks) == 0 || chunks[0].(map[string]any)["file_path"] != "/runbooks/deploy.md" {
		t.Fatalf("file_search in the second process = %v", hits)
	}

	// And back: a write over MCP in the second process is read over HTTP in the first.
	mcptest.MustCall(t, cs, "file_write", map[string]any{"project": "ops", "path": "/runbooks/oncall.md", "content": "Page the SRE on duty.\n"})
	read := mustCall(t, httpSrv.base, "dev", "file_read", map[string]any{"project": "ops", "path": "/runbooks/oncall.md"})
	if read["content"] != "Page the SRE on duty.\n" {
		t.Fatalf("file_read over HTTP of the MCP write = %v", read)
	}

	// Another tenant on the same database sees none of it.
	other := mcptest.ConnectCommand(t, bin, "-stdio", "-database-url", dbURL, "-dev-token", "someone-else", "-log-level", "off")
	out, ok := mcptest.Call(t, other, "file_read", map[string]any{"project": "ops", "path": "/runbooks/deploy.md"})
	if ok || out["code"] != "NOT_FOUND" {
		t.Fatalf("another tenant's file_read = ok %v %v, want NOT_FOUND", ok, out)
	}
	if msg, _ := out["message"].(string); strings.Contains(msg, "postgres") {
		t.Errorf("error message leaks the backend: %q", msg)
	}
}

// A -database-url naming a database that does not exist is a configuration error that names the
// database and says how to fix it, before anything else (no TLS handshake noise in front).
func TestMissingDatabaseIsAConfigurationError(t *testing.T) {
	u, err := url.Parse(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_db"
	u.RawQuery = "" // pgx's default sslmode tries TLS first
	_, err = newTestApp(t, "-database-url", u.String())
	want := `-database-url (storage.database_url): INVALID_CONFIG: pgstore: the database "no_such_db" does not exist on ` +
		u.Host + "; create it (createdb no_such_db) or name an existing database in the database URL"
	if diff := cmp.Diff(want, fmt.Sprint(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}
