package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters"
	"github.com/google/go-cmp/cmp"
)

// newTestApp builds the app of args (no serving) and stops it with the test.
func newTestApp(t *testing.T, args ...string) (*app, error) {
	t.Helper()
	c, err := parseFlags(args, io.Discard)
	if err != nil {
		return nil, err
	}
	a, err := newApp(t.Context(), c, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = a.stop(context.Background()) })
	return a, nil
}

// TestConfigExampleLoads: config.example.yaml loads, builds a server, and changes nothing (its
// values are the defaults, as it says).
func TestConfigExampleLoads(t *testing.T) {
	withFile, err := parseFlags([]string{"-config", "config.example.yaml"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	withFile.configFile = ""
	if diff := cmp.Diff(plain, withFile, cmp.AllowUnexported(config{})); diff != "" {
		t.Errorf("config.example.yaml is not the defaults (-flags +file):\n%s", diff)
	}
	if _, err := newTestApp(t, "-config", "config.example.yaml"); err != nil {
		t.Fatal(err)
	}
}

// Every key of fileKeys names a flag, and every flag but -config, -stdio and -version has a key
// that config.example.yaml shows.
func TestConfigKeysCoverFlags(t *testing.T) {
	example, err := os.ReadFile("config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	newFlagSet(&config{}, io.Discard).VisitAll(func(f *flag.Flag) {
		if f.Name == "config" || f.Name == "stdio" || f.Name == "version" {
			return
		}
		key := keyOfFlag(f.Name)
		if key == "" {
			t.Errorf("flag -%s has no YAML key", f.Name)
			return
		}
		if _, name, _ := strings.Cut(key, "."); !strings.Contains(string(example), "  "+name+":") {
			t.Errorf("config.example.yaml lacks %s", key)
		}
	})
}

func TestConfigFlagsOverrideFile(t *testing.T) {
	file := writeConfig(t, "server:\n  addr: 127.0.0.1:9999\n  log_level: debug\ndocs:\n  dirs: [/a, /b]\n")
	c, err := parseFlags([]string{"-config", file, "-addr", "127.0.0.1:7777", "-docs", "/c"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{c.addr, c.logLevel, strings.Join(c.docs, ",")}
	if diff := cmp.Diff([]string{"127.0.0.1:7777", "debug", "/c"}, got); diff != "" {
		t.Errorf("addr, log level, docs (-want +got):\n%s", diff)
	}
}

// Every configuration error names the YAML key (with its line) or the flag.
func TestConfigErrorsNameTheKey(t *testing.T) {
	tests := []struct {
		yaml string
		args []string
		want string
	}{
		{"server:\n  adr: x\n", nil, "unknown key server.adr (line 2)"},
		{"srv:\n  addr: x\n", nil, `unknown key "srv" (line 1)`},
		{"server:\n  read_timeout: soon\n", nil, "server.read_timeout (line 2)"},
		{"embeddings:\n  dims: many\n", nil, "embeddings.dims (line 2)"},
		{"server:\n  log_level: loud\n", nil, "-log-level (server.log_level)"},
		{"server:\n  addr: 0.0.0.0:1\n", nil, "-addr (server.addr) 0.0.0.0:1 listens beyond loopback"},
		{"settings:\n  mcp:\n    files:\n      max_file_bytes: -1\n", nil, "settings.mcp.files.max_file_bytes"},
		{"storage:\n  redis_url: redis://127.0.0.1:1\n", nil, "-redis-url (storage.redis_url)"},
		{"", []string{"-embeddings-url", "http://127.0.0.1:1/v1/embeddings"}, "-embeddings-model (embeddings.model)"},
		{"catalog:\n  writable: true\n", nil, "-catalog-writable (catalog.writable) needs -catalog (catalog.file)"},
		{"", []string{"-stdio", "-addr", "127.0.0.1:0"}, "-stdio and -addr exclude each other: -stdio serves MCP on stdin/stdout, -addr over HTTP"},
		// A mistake at every level of the file, each named with its line and what to write.
		{"server:\n  database_url: postgres://x\n", nil, "unknown key server.database_url (line 2); server has addr, log_level, max_body_bytes, read_header_timeout, read_timeout, write_timeout, idle_timeout; did you mean storage.database_url?"},
		{"database_url: postgres://x\n", nil, `unknown key "database_url" (line 1); the keys are auth, catalog, consult, docs, embeddings, server, settings, storage; did you mean storage.database_url?`},
		{"max_file_bytes: 5\n", nil, `unknown key "max_file_bytes" (line 1); the keys are auth, catalog, consult, docs, embeddings, server, settings, storage (file limits, search, index and security go under settings.mcp.files; see config.example.yaml)`},
		{"server:\n  max_body_bytes: 10MB\n", nil, `server.max_body_bytes (line 2): cannot use "10MB": parse error; write a byte count such as 10485760 (the key sets -max-body-bytes)`},
		{"server:\n  read_timeout: 30\n", nil, `server.read_timeout (line 2): cannot use "30": parse error; write a duration such as 30s or 2m (the key sets -read-timeout)`},
		{"auth:\n  mcp_anonymous: maybe\n", nil, `auth.mcp_anonymous (line 2): cannot use "maybe": parse error; write true or false`},
		{"settings:\n  files: {max_file_bytes: 5}\n", nil, "settings.files (line 2): unknown key; settings holds only mcp, as in settings: {mcp: {files: {…}}}"},
		{"settings:\n  mcp:\n    filez: {max_file_bytes: 5}\n", nil, "settings.mcp.filez (line 3): unknown key; settings.mcp holds only files"},
		{"settings:\n  mcp:\n    files:\n      max_file_bytes: 10MB\n", nil, `settings.mcp.files.max_file_bytes: cannot use "10MB" (line 4); write a byte count such as 10485760`},
		{"settings:\n  mcp:\n    files:\n      max_fil_bytes: 5\n", nil, "settings.mcp.files.max_fil_bytes: unknown key (line 4); valid keys are"},
		{"settings:\n  mcp:\n    files:\n      search: {limt_max: 3}\n", nil, "unknown key (line 4); valid keys here are"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := newTestApp(t, append([]string{"-config", writeConfig(t, tt.yaml)}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
			for _, goName := range []string{"(Model)", "(Dimensions)", "(Endpoint)", "main.", "SealKEK"} {
				if strings.Contains(err.Error(), goName) {
					t.Errorf("error names a Go identifier %s: %v", goName, err)
				}
			}
		})
	}
}

// -redis-url alone once was refused, then three errors came one at a time. Now one error
// lists everything still missing.
func TestRedisURLAloneSaysEverythingAtOnce(t *testing.T) {
	_, err := newTestApp(t, "-redis-url", "redis://127.0.0.1:1/0")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"-embeddings-url (embeddings.url)", "-embeddings-model (embeddings.model)", "-embeddings-dims (embeddings.dims)", "settings.mcp.files.security.encryption_keks"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}

// With no flags all five families are on: files, search, documentation (bundled,
// prefixed docs_), the catalog (bundled, read-only) and consultation (saying how to configure
// a model).
func TestAllFamiliesByDefault(t *testing.T) {
	a, err := newTestApp(t)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range a.tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"file_read", "file_search", "docs_search", "docs_read_sections", "get_content", "consultation"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing: %v", want, names)
		}
	}
	for _, unwanted := range []string{"search", "category_add"} {
		if slices.Contains(names, unwanted) {
			t.Errorf("tool %s offered by default: %v", unwanted, names)
		}
	}
	cons, _ := adapters.Find(a.tools, "consultation")
	_, err = cons.Call(t.Context(), []byte(`{"files": ["/etc/hostname"], "query": "q"}`))
	te, _ := adapters.ErrorOf(err)
	if te.Code != "INVALID_CONFIG" || !strings.Contains(te.Message, "-consult-model NAME") || !strings.Contains(te.Message, "consult.model") {
		t.Errorf("consultation without a model = %+v", te)
	}
	getContent, _ := adapters.Find(a.tools, "get_content")
	out, err := getContent.Call(t.Context(), []byte(`{"expression": "onboarding"}`))
	if err != nil {
		t.Fatalf("get_content on the bundled catalog: %v", err)
	}
	if b, _ := json.Marshal(out); !strings.Contains(string(b), "docs/intro.md") {
		t.Errorf("get_content = %s", b)
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A command-line mistake is one short line that points at -h; -h alone prints the usage, which
// starts with what the command is.
func TestFlagMistakesAreShort(t *testing.T) {
	tests := []struct {
		args          []string
		wantErr       string
		wantUsageHead string // "" for no output at all
	}{
		{[]string{"-dcos", "x"}, "flag provided but not defined: -dcos (see -h)", ""},
		{[]string{"-read-timeout", "30"}, `invalid value "30" for flag -read-timeout: parse error; write a duration such as 30s or 2m (see -h)`, ""},
		{[]string{"-max-body-bytes", "3MB"}, `invalid value "3MB" for flag -max-body-bytes: parse error; write a byte count such as 10485760 (see -h)`, ""},
		{[]string{"-h"}, "flag: help requested", "agentfiles-server: the agentfiles all-in-one server"},
	}
	for _, tc := range tests {
		var stderr strings.Builder
		_, err := parseFlags(tc.args, &stderr)
		head := stderr.String()
		if tc.wantUsageHead != "" {
			head = head[:min(len(head), len(tc.wantUsageHead))]
		}
		if diff := cmp.Diff([]string{tc.wantErr, tc.wantUsageHead}, []string{fmt.Sprint(err), head}); diff != "" {
			t.Errorf("%q: error and stderr (-want +got):\n%s", tc.args, diff)
		}
	}
}

// -rerank has no default endpoint: without settings.mcp.files.search.rerank.endpoint the server
// refuses to start with one INVALID_CONFIG line naming the key; with it, it starts.
func TestRerankNeedsAnEndpoint(t *testing.T) {
	_, err := newTestApp(t, "-rerank")
	if got := agentfiles.ErrorCode(err); got != agentfiles.CodeInvalidConfig {
		t.Fatalf("-rerank without an endpoint: code %v (%v), want INVALID_CONFIG", got, err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "settings.mcp.files.search.rerank.endpoint") {
		t.Errorf("error is not one line naming the key:\n%s", msg)
	}
	file := writeConfig(t, "settings:\n  mcp:\n    files:\n      search:\n        rerank:\n          endpoint: http://127.0.0.1:1/v1/rerank\n")
	if _, err := newTestApp(t, "-config", file, "-rerank"); err != nil {
		t.Fatalf("-rerank with an endpoint: %v", err)
	}
}
