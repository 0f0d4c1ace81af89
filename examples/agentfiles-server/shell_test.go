package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// TestShellOverHTTP calls file_shell through POST /tools/file_shell on memory and on
// PostgreSQL: a command writes and reads back, the argv form works, a host binary is not
// found, a tenant sees nothing of another's project, a syntax error is INVALID_ARGUMENT and a
// command over its time budget is TIMEOUT with nothing written.
func TestShellOverHTTP(t *testing.T) {
	for _, store := range []string{"memory", "postgresql"} {
		t.Run(store, func(t *testing.T) {
			args := []string{"-accept-any-token", "-log-level", "off"}
			if store == "postgresql" {
				args = append(args, "-database-url", pgtest.New(t))
			}
			srv := startServer(t, args...)
			out := mustCall(t, srv.base, "alice", "file_shell", map[string]any{"project": "p",
				"command": "echo secret > /s.txt; read l < /s.txt; echo \"[$l]\"; python3 -V"})
			if out["stdout"] != "[secret]\n" || out["exit_code"] != float64(127) || !strings.Contains(out["stderr"].(string), "command not found") {
				t.Errorf("file_shell answered %v", out)
			}
			if created, _ := out["created"].([]any); len(created) != 1 || created[0] != "/s.txt" {
				t.Errorf("created %v", out["created"])
			}
			out = mustCall(t, srv.base, "alice", "file_shell", map[string]any{"project": "p", "command": []any{"bash", "-lc", "cd / && pwd"}})
			if out["stdout"] != "/\n" {
				t.Errorf("argv form answered %v", out)
			}
			out = mustCall(t, srv.base, "mallory", "file_shell", map[string]any{"project": "p", "command": "read l < /s.txt; echo \"[$l]\"; echo mine > /s.txt"})
			if out["stdout"] != "[]\n" {
				t.Errorf("another tenant read %v", out)
			}
			read := mustCall(t, srv.base, "alice", "file_read", map[string]any{"project": "p", "path": "/s.txt"})
			if read["content"] != "secret\n" {
				t.Errorf("alice's file is %v after mallory's command", read["content"])
			}
			for _, bad := range []struct {
				args   map[string]any
				status int
				code   string
			}{
				{map[string]any{"project": "p", "command": "if then"}, http.StatusBadRequest, "INVALID_ARGUMENT"},
				{map[string]any{"project": "p", "command": "echo x > /t.txt; sleep 30", "timeout_ms": 200}, http.StatusGatewayTimeout, "TIMEOUT"},
			} {
				r := callAPI(t, srv.base, "alice", "file_shell", bad.args)
				if r.Status != bad.status || r.errorCode() != bad.code {
					t.Errorf("%v: %d %s", bad.args, r.Status, r.Raw)
				}
			}
			if st := mustCall(t, srv.base, "alice", "file_stat", map[string]any{"project": "p", "path": "/t.txt"}); st["exists"] != false {
				t.Errorf("a command stopped by its timeout wrote /t.txt")
			}
		})
	}
}
