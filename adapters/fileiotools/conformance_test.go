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
		},
		NotDescribe: map[string][]string{
			"file_write":    {"2 MiB"},
			"file_read":     {"2 MiB"},
			"file_list":     {"256", "1024"},
			"file_edit":     {"100 edits", "256 KiB"},
			"file_grep":     {"100 entries", "1000", "256 KiB"},
			"file_glob":     {"256", "1024"},
			"file_versions": {"the last 10", "7 days"},
		},
	})
}
