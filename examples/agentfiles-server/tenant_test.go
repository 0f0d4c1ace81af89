package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// writeTokens writes a -token-file with the given lines and returns its path.
func writeTokens(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Tokens whose lines name the same tenant share its files; a token without tenant= is its own
// tenant and sees none of them.
func TestTokensOfOneTenantShareFiles(t *testing.T) {
	tokens := writeTokens(t, "# acme has two keys", "acme-key-1 alice tenant=acme", "acme-key-2 bob at acme tenant=acme", "solo-key carol")
	srv := startServer(t, "-token-file", tokens, "-log-level", "off")
	mustCall(t, srv.base, "acme-key-1", "file_write", map[string]any{"project": "p", "path": "/plan.md", "content": "ship it\n"})
	if got := mustCall(t, srv.base, "acme-key-2", "file_read", map[string]any{"project": "p", "path": "/plan.md"}); got["content"] != "ship it\n" {
		t.Errorf("the second key of the tenant reads %v, want the first key's file", got)
	}
	if r := callAPI(t, srv.base, "solo-key", "file_read", map[string]any{"project": "p", "path": "/plan.md"}); r.errorCode() != "NOT_FOUND" {
		t.Errorf("another tenant's read: %d %s, want NOT_FOUND", r.Status, r.Raw)
	}
}

// A key is rotated without losing files, both ways the documentation gives: a key that was its
// own tenant hands its files on by naming the old key's hash, and a key of a named tenant is
// replaced by a new line with the same tenant. The servers run one after the other on one
// PostgreSQL database, as a restart with a new token file does.
func TestKeyRotationKeepsFiles(t *testing.T) {
	dbURL := pgtest.New(t)
	sum := sha256.Sum256([]byte("old-key"))
	oldTenant := hex.EncodeToString(sum[:])
	before := startServer(t, "-database-url", dbURL, "-log-level", "off",
		"-token-file", writeTokens(t, "old-key ops", "old-named-key ops tenant=ops-team"))
	mustCall(t, before.base, "old-key", "file_write", map[string]any{"project": "p", "path": "/a.md", "content": "from the old key\n"})
	mustCall(t, before.base, "old-named-key", "file_write", map[string]any{"project": "p", "path": "/b.md", "content": "from the team's old key\n"})
	before.stop()
	if err := before.wait(); err != nil {
		t.Fatal(err)
	}

	after := startServer(t, "-database-url", dbURL, "-log-level", "off",
		"-token-file", writeTokens(t, "new-key ops tenant="+oldTenant, "new-named-key ops tenant=ops-team"))
	for token, want := range map[string][2]string{"new-key": {"/a.md", "from the old key\n"}, "new-named-key": {"/b.md", "from the team's old key\n"}} {
		if got := mustCall(t, after.base, token, "file_read", map[string]any{"project": "p", "path": want[0]}); got["content"] != want[1] {
			t.Errorf("%s reads %s = %v, want %q", token, want[0], got["content"], want[1])
		}
	}
	if r := callAPI(t, after.base, "old-key", "file_list", map[string]any{"project": "p"}); r.errorCode() != "UNAUTHENTICATED" {
		t.Errorf("the retired key: %d %s, want UNAUTHENTICATED", r.Status, r.Raw)
	}
}

// A bad tenant= in the token file stops the server at start-up with the line named.
func TestTokenFileBadTenant(t *testing.T) {
	for _, line := range []string{"k1 alice tenant=", "k1 tenant=has/slash", "k1 tenant=" + strings.Repeat("x", 65)} {
		c, err := parseFlags([]string{"-token-file", writeTokens(t, "k0", line)}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		_, err = newAuth(c)
		if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "INVALID_CONFIG") {
			t.Errorf("%q: error %v, want INVALID_CONFIG naming line 2", line, err)
		}
	}
}
