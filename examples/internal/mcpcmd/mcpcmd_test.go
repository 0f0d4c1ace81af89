package mcpcmd

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The HTTP server has read and idle timeouts besides the header timeout: a client
// trickling its body or parking idle connections does not hold them.
func TestHTTPServerTimeouts(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("timeouts: header %v, read %v, idle %v; want all set", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout)
	}
}

// The common flags: -h starts with what the command is; -version prints on stdout; -log-level
// takes agentfiles-server's values; -stdio and -addr exclude each other; an argument is refused;
// a mistake is one short line, without the usage.
func TestCommonFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    string
		wantStdout string
		wantStderr string // a prefix
	}{
		{"help", []string{"-h"}, "flag: help requested", "", "demo-server: serves demos over MCP\n\nUsage: demo-server [flags]\n\nFlags:\n  -addr string\n"},
		{"version", []string{"-version"}, "version printed", "demo-server " + Version() + "\n", ""},
		{"log level", []string{"-log-level", "loud"}, `-log-level "loud": use debug, info, warn, error or off`, "", ""},
		{"stdio and addr", []string{"-stdio", "-addr", "127.0.0.1:0"}, "-stdio and -addr exclude each other: -stdio serves MCP on stdin/stdout, -addr over HTTP", "", ""},
		{"argument", []string{"docs"}, `unexpected argument "docs"; all options are flags (see -h)`, "", ""},
		{"unknown flag", []string{"-dir", "x"}, "flag provided but not defined: -dir (see -h)", "", ""},
		{"bad value", []string{"-stdio=maybe"}, `invalid boolean value "maybe" for -stdio: parse error (see -h)`, "", ""},
		{"fine", []string{"-stdio", "-log-level", "debug"}, "<nil>", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			c := New("demo-server", &stderr)
			c.About = "serves demos over MCP"
			c.Stdout = &stdout
			err := c.Parse(tc.args)
			gotStderr := stderr.String()
			if tc.wantStderr != "" { // a prefix; otherwise nothing at all
				gotStderr = gotStderr[:min(len(tc.wantStderr), len(gotStderr))]
			}
			got := []string{fmt.Sprint(err), stdout.String(), gotStderr}
			if diff := cmp.Diff([]string{tc.wantErr, tc.wantStdout, tc.wantStderr}, got); diff != "" {
				t.Errorf("Parse(%q): error, stdout, stderr (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}
