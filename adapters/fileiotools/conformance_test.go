package fileiotools_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/adapters/adapterstest"
	"github.com/agentfiles/agentfiles/adapters/fileiotools"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
)

// TestConformance runs the conformance suite on the file tools built with limits that differ
// from every default, so that a description stating a default is caught.
func TestConformance(t *testing.T) {
	svc := storetest.NewService(t, memstore.New(memstore.Options{}), func(c *fileio.Config) {
		c.MaxPayloadBytes = 3 << 20
		c.MaxReadBytes = 5 << 10
		c.ListLimitDefault, c.ListLimitMax = 2, 7
		c.MaxEditsPerCall = 9
		c.MaxDiffBytes = 3 << 10
		c.MaxRenameFiles = 11
		c.GrepLimitDefault, c.GrepLimitMax = 3, 13
		c.GrepMaxAnswerBytes = 6 << 10
		c.HistoryVersions, c.HistoryRetention = 4, 3*24*time.Hour
		c.ShellTimeout, c.ShellMaxTimeout = 7*time.Second, 70*time.Second
		c.ShellMaxOutputBytes, c.ShellMaxWriteBytes = 9<<10, 5<<20
		c.ShellMaxSteps, c.ShellMaxPipes = 12345, 17
	})
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("key-a", "alice"))
	p := `"project": "p"`
	adapterstest.TestToolSet(t, fileiotools.Tools(svc), adapterstest.Options{
		Codes:   fileio.Codes(),
		Context: ctx,
		Calls: []adapterstest.ToolCall{
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/1.md", "content": "one TODO\ntwo TODO\n"}`},
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/2.md", "content": "TODO\n"}`},
			{Tool: "file_write", Args: `{` + p + `, "path": "/b/3.md", "content": "TODO\n", "mode": "TRUNCATE"}`},
			{Tool: "file_stat", Args: `{` + p + `, "path": "/a"}`},
			{Tool: "file_read", Args: `{` + p + `, "path": "/a/1.md", "length": 4}`},
			{Tool: "file_read", Args: `{` + p + `, "path": "/a/1.md", "start_line": 2, "line_numbers": true}`},
			{Tool: "file_list", Args: `{` + p + `, "depth": 2}`},
			{Tool: "file_list", Args: `{` + p + `, "path": "/a", "limit": 1}`},
			{Tool: "file_edit", Args: `{` + p + `, "path": "/a/2.md", "edits": [{"old_str": "TODO", "new_str": "DONE"}]}`},
			{Tool: "file_versions", Args: `{` + p + `, "path": "/a/2.md"}`},
			{Tool: "file_restore", Args: `{` + p + `, "path": "/a/2.md", "version": 1}`},
			{Tool: "file_grep", Args: `{` + p + `, "pattern": "TODO", "limit": 1}`},
			{Tool: "file_grep", Args: `{` + p + `, "pattern": "TODO", "output_mode": "count"}`},
			{Tool: "file_glob", Args: `{` + p + `, "pattern": "**/*.md", "limit": 1}`},
			{Tool: "file_rename", Args: `{` + p + `, "from": "/b", "to": "/c"}`},
			{Tool: "file_delete", Args: `{` + p + `, "path": "/c", "recursive": true}`},
			{Tool: "file_purge_history", Args: `{` + p + `, "path": ""}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": "read l < /a/1.md; echo \"$l\" > /a/copy.md; echo $l"}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": ["bash", "-lc", "pwd"], "workdir": "/a", "timeout_ms": 5000}`},
		},
		BadCalls: []adapterstest.ToolCall{
			{Tool: "file_stat", Args: `{"project": "", "path": "/a"}`},
			{Tool: "file_read", Args: `{` + p + `, "path": "/missing"}`},
			{Tool: "file_write", Args: `{` + p + `, "path": "/a/1.md", "content": "x", "mode": "TRUNCATE", "offset": 3}`},
			{Tool: "file_delete", Args: `{` + p + `, "path": "/a"}`},
			{Tool: "file_list", Args: `{` + p + `, "limit": -1}`},
			{Tool: "file_edit", Args: `{` + p + `, "path": "/a/1.md", "edits": [{"old_str": "absent", "new_str": "x"}]}`},
			{Tool: "file_rename", Args: `{` + p + `, "from": "/a", "to": "/a/inside"}`},
			{Tool: "file_versions", Args: `{` + p + `, "path": "bad\u0000path"}`},
			{Tool: "file_restore", Args: `{` + p + `, "path": "/a/1.md", "version": 99}`},
			{Tool: "file_grep", Args: `{` + p + `, "pattern": "("}`},
			{Tool: "file_glob", Args: `{` + p + `, "pattern": "[a"}`},
			{Tool: "file_purge_history", Args: `{"project": "", "path": ""}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": 5}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": "if then"}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": "ls", "workdir": "/nowhere"}`},
			{Tool: "file_shell", Args: `{` + p + `, "command": ["python3", "-c", "1"]}`},
		},
		Describe: map[string][]string{
			"file_write":    {"PAYLOAD_TOO_LARGE over 3 MiB"},
			"file_read":     {"5 KiB"},
			"file_list":     {"2 entries by default", "clamped to 7"},
			"file_edit":     {"9 edits per call", "3 KiB"},
			"file_rename":   {"more than 11 files"},
			"file_grep":     {"3 entries by default", "clamped to 13", "6 KiB"},
			"file_glob":     {"2 paths by default", "clamped to 7"},
			"file_versions": {"the last 4, for 3 days"},
			"file_shell":    {"7s by default", "at most 1m10s", "9 KiB of stdout", "5 MiB written", "12345 simple commands", "17 open pipes"},
		},
		NotDescribe: map[string][]string{
			"file_write":    {"2 MiB"},
			"file_read":     {"2 MiB"},
			"file_list":     {"256", "1024"},
			"file_edit":     {"100 edits", "256 KiB"},
			"file_grep":     {"100 entries", "1000", "256 KiB"},
			"file_glob":     {"256", "1024"},
			"file_versions": {"the last 10", "7 days"},
			"file_shell":    {"10s by default", "256 KiB", "32 MiB", "250000", " 64 "},
		},
	})
}
