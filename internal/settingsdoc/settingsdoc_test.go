package settingsdoc_test

import (
	"fmt"
	"testing"

	"github.com/agentfiles/agentfiles/internal/settingsdoc"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// Files finds settings.mcp.files or says, naming key and line, which level holds a mistake.
func TestFiles(t *testing.T) {
	tests := []struct {
		name, doc string
		want      string // the error, or the section's keys
	}{
		{"empty", "", "<nil>"},
		{"no settings", "server: {addr: x}\n", "<nil>"},
		{"section", "server: {addr: x}\nsettings:\n  mcp:\n    files: {max_file_bytes: 5}\n", "[max_file_bytes]"},
		{"empty section", "settings:\n  mcp:\n    files:\n", "<nil>"},
		{"misplaced", "max_file_bytes: 5\n", "INVALID_CONFIG: max_file_bytes (line 1): is a key of settings.mcp.files, not of the top level; write it as settings: {mcp: {files: {max_file_bytes: …}}} (max_file_bytes)"},
		{"unknown under settings", "settings:\n  files: {a: 1}\n", "INVALID_CONFIG: settings.files (line 2): unknown key; settings holds only mcp, as in settings: {mcp: {files: {…}}} (settings.files)"},
		{"unknown under settings.mcp", "settings:\n  mcp:\n    tools: [a]\n    files: {}\n", "INVALID_CONFIG: settings.mcp.tools (line 3): unknown key; settings.mcp holds only files, as in settings: {mcp: {files: {…}}} (settings.mcp.tools)"},
		{"settings not a mapping", "settings: [1]\n", "INVALID_CONFIG: settings (line 1): must be a mapping, as in settings: {mcp: {files: {…}}} (settings)"},
		{"files not a mapping", "settings: {mcp: {files: 3}}\n", "INVALID_CONFIG: settings.mcp.files (line 1): must be a mapping, as in settings: {mcp: {files: {…}}} (settings.mcp.files)"},
		{"document not a mapping", "- a\n", "INVALID_CONFIG: (document) (line 1): must be a mapping of keys, as in settings: {mcp: {files: {…}}} ((document))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			n, err := settingsdoc.Files(&doc, "max_file_bytes")
			got := fmt.Sprint(err)
			if err == nil && n != nil {
				var keys []string
				for i := 0; i < len(n.Content); i += 2 {
					keys = append(keys, n.Content[i].Value)
				}
				got = fmt.Sprint(keys)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
		})
	}
}
