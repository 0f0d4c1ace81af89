package fileio_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/google/go-cmp/cmp"
)

func TestLoadConfig(t *testing.T) {
	yaml := `
server:
  port: 8080
settings:
  mcp:
    files:
      allow_root_wipe: true
      max_payload_bytes: 1000
      max_file_bytes: 2000
      max_project_bytes: 3000
      max_read_bytes: 500
      list_limit_default: 10
      list_limit_max: 20
      lock_timeout_ms: 250
      delete_retention_days: 3
      history_versions: 4
      history_retention_days: 2
      rate_limit_per_second: 5.5
      rate_limit_burst: 11
      grep_limit_default: 50
      grep_limit_max: 500
      grep_max_answer_bytes: 100000
      grep_max_scan_bytes: 1000000
      grep_timeout_ms: 1500
      log_content_sha256: true
      log_preview_bytes: 64
      call_timeout_ms: 1500
      max_edits_per_call: 7
      max_diff_cost: 9000
      max_diff_bytes: 4096
      max_rename_files: 12
      max_concurrent_calls: 3
      max_edit_work_bytes: 5000
      feed_max_wait_ms: 2000
      max_feed_waits: 6
      max_rewind_files: 50
      read_default_lines: 30
      read_default_bytes: 400
      max_patch_bytes: 6000
      max_patch_files: 9
      path_rule: portable
      max_archive_bytes: 1000000
      archive_timeout_ms: 60000
      max_archive_entries: 5000
      max_archive_directory_bytes: 700000
      max_concurrent_archives: 2
      max_project_files: 900
      max_tenant_files: 9000
      max_tenant_projects: 8
      max_checkpoints: 7
      shell_timeout_ms: 2000
      shell_max_timeout_ms: 9000
      shell_max_write_bytes: 7000
      shell_max_output_bytes: 8000
      shell_max_steps: 900
      shell_max_pipes: 5
      search:
        enabled: true
        anything: [goes, here]
      index: {workers: 4}
      security:
        encryption_keks: {k1: abc}
`
	got, err := fileio.LoadConfig(strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	want := fileio.Config{
		AllowRootWipe: true, MaxPayloadBytes: 1000, MaxFileBytes: 2000, MaxProjectBytes: 3000, MaxReadBytes: 500,
		ReadDefaultLines: 30, ReadDefaultBytes: 400, ListLimitDefault: 10, ListLimitMax: 20, LockTimeout: 250 * time.Millisecond, DeleteRetention: 3 * 24 * time.Hour,
		HistoryVersions: 4, HistoryRetention: 2 * 24 * time.Hour,
		RateLimitPerSecond: 5.5, RateLimitBurst: 11, LogContentSHA256: true, LogPreviewBytes: 64,
		CallTimeout: 1500 * time.Millisecond, MaxEditsPerCall: 7, MaxDiffCost: 9000, MaxDiffBytes: 4096, MaxRenameFiles: 12,
		MaxConcurrentCalls: 3, MaxEditWorkBytes: 5000,
		GrepLimitDefault: 50, GrepLimitMax: 500, GrepMaxAnswerBytes: 100000, GrepMaxScanBytes: 1000000, GrepTimeout: 1500 * time.Millisecond,
		FeedMaxWait: 2 * time.Second, MaxFeedWaits: 6, MaxRewindFiles: 50,
		MaxPatchBytes: 6000, MaxPatchFiles: 9,
		PathRule: fileio.PathRulePortable, MaxArchiveBytes: 1000000, ArchiveTimeout: time.Minute,
		MaxArchiveEntries: 5000, MaxArchiveDirectoryBytes: 700000, MaxConcurrentArchives: 2,
		MaxProjectFiles: 900, MaxTenantFiles: 9000, MaxTenantProjects: 8, MaxCheckpoints: 7,
		ShellTimeout: 2 * time.Second, ShellMaxTimeout: 9 * time.Second, ShellMaxWriteBytes: 7000, ShellMaxOutputBytes: 8000,
		ShellMaxSteps: 900, ShellMaxPipes: 5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	for _, doc := range []string{"", "settings:\n  mcp: {}\n", "settings:\n  mcp:\n    files:\n", "other: 1\n", "settings:\n  mcp:\n    files:\n      max_file_bytes: 10485760\n"} {
		got, err := fileio.LoadConfig(strings.NewReader(doc))
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		if diff := cmp.Diff(fileio.DefaultConfig(), got); diff != "" {
			t.Errorf("%q: not the defaults (-want +got):\n%s", doc, diff)
		}
	}
	d := fileio.DefaultConfig()
	if d.MaxPayloadBytes != 2<<20 || d.MaxFileBytes != 10<<20 || d.MaxProjectBytes != 100<<20 || d.ListLimitDefault != 256 || d.ListLimitMax != 1024 || d.AllowRootWipe || d.LogPreviewBytes != 0 {
		t.Errorf("defaults changed: %+v", d)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	files := func(body string) string { return "settings:\n  mcp:\n    files:\n" + body }
	tests := []struct{ doc, key, fragment string }{
		{files("      max_file_bytes: -1\n"), "settings.mcp.files.max_file_bytes", "must be > 0"},
		{files("      max_payload_bytes: 0\n"), "settings.mcp.files.max_payload_bytes", "must be > 0"},
		{files("      max_project_bytes: 5\n"), "settings.mcp.files.max_file_bytes", "must not exceed max_project_bytes"},
		{files("      list_limit_default: 2000\n"), "settings.mcp.files.list_limit_default", "between 1 and list_limit_max"},
		{files("      list_limit_max: 0\n"), "settings.mcp.files.list_limit_max", "between 1 and"},
		{files("      lock_timeout_ms: 0\n"), "settings.mcp.files.lock_timeout_ms", "must be > 0"},
		{files("      delete_retention_days: -1\n"), "settings.mcp.files.delete_retention_days", ">= 0"},
		{files("      history_versions: -1\n"), "settings.mcp.files.history_versions", ">= 0"},
		{files("      history_retention_days: -1\n"), "settings.mcp.files.history_retention_days", ">= 0"},
		{files("      rate_limit_per_second: -2\n"), "settings.mcp.files.rate_limit_per_second", ">= 0"},
		{files("      rate_limit_burst: 0\n"), "settings.mcp.files.rate_limit_burst", ">= 1"},
		{files("      log_preview_bytes: 300\n"), "settings.mcp.files.log_preview_bytes", "between 0 and 256"},
		{files("      path_rule: ascii\n"), "settings.mcp.files.path_rule", `must be "unicode" or "portable"`},
		{files("      max_archive_bytes: -1\n"), "settings.mcp.files.max_archive_bytes", ">= 0"},
		{files("      archive_timeout_ms: -1\n"), "settings.mcp.files.archive_timeout_ms", ">= 0"},
		{files("      shell_timeout_ms: -1\n"), "settings.mcp.files.shell_timeout_ms", ">= 0"},
		{files("      shell_timeout_ms: 5000\n      shell_max_timeout_ms: 1000\n"), "settings.mcp.files.shell_timeout_ms", "must not exceed shell_max_timeout_ms"},
		{files("      shell_max_write_bytes: -1\n"), "settings.mcp.files.shell_max_write_bytes", ">= 0"},
		{files("      shell_max_output_bytes: -1\n"), "settings.mcp.files.shell_max_output_bytes", ">= 0"},
		{files("      shell_max_steps: -1\n"), "settings.mcp.files.shell_max_steps", ">= 0"},
		{files("      shell_max_pipes: -1\n"), "settings.mcp.files.shell_max_pipes", ">= 0"},
		{files("      call_timeout_ms: 0\n"), "settings.mcp.files.call_timeout_ms", "must be > 0"},
		{files("      max_edits_per_call: 0\n"), "settings.mcp.files.max_edits_per_call", ">= 1"},
		{files("      max_diff_cost: 0\n"), "settings.mcp.files.max_diff_cost", ">= 1"},
		{files("      max_diff_bytes: 10\n"), "settings.mcp.files.max_diff_bytes", ">= 1024"},
		{files("      max_rename_files: 0\n"), "settings.mcp.files.max_rename_files", ">= 1"},
		{files("      max_concurrent_calls: -1\n"), "settings.mcp.files.max_concurrent_calls", ">= 0"},
		{files("      max_edit_work_bytes: 0\n"), "settings.mcp.files.max_edit_work_bytes", ">= 1"},
		{files("      max_read_bytes: 0\n"), "settings.mcp.files.max_read_bytes", "must be > 0"},
		{files("      max_file_size: 10\n"), "settings.mcp.files.max_file_size", "unknown key (line 4)"},
		{files("      allow_root_wipe: maybe\n"), "settings.mcp.files.allow_root_wipe", `cannot use "maybe" (line 4); write true or false`},
		{files("      max_file_bytes: 10MB\n"), "settings.mcp.files.max_file_bytes", `cannot use "10MB" (line 4); write a byte count such as 10485760`},
		{files("      lock_timeout_ms: 5s\n"), "settings.mcp.files.lock_timeout_ms", "write a whole number of milliseconds such as 5000"},
		{"max_file_bytes: 5\n", "max_file_bytes (line 1)", "is a key of settings.mcp.files, not of the top level; write it as settings: {mcp: {files: {max_file_bytes: …}}}"},
		{"files:\n  max_file_bytes: 5\n", "files (line 1)", "not of the top level"},
		{"settings:\n  files: {max_file_bytes: 5}\n", "settings.files (line 2)", "unknown key; settings holds only mcp"},
		{"settings:\n  mcp:\n    filez: {max_file_bytes: 5}\n", "settings.mcp.filez (line 3)", "unknown key; settings.mcp holds only files"},
		{"settings:\n  mcp: 5\n", "settings.mcp (line 2)", "must be a mapping"},
		{files("      grep_limit_max: -1\n"), "settings.mcp.files.grep_limit_max", "between 0"},
		{files("      grep_limit_max: 10\n      grep_limit_default: 11\n"), "settings.mcp.files.grep_limit_default", "grep_limit_max (10)"},
		{files("      grep_max_scan_bytes: -1\n"), "settings.mcp.files.grep_max_scan_bytes", ">= 0"},
		{files("      grep_max_answer_bytes: -1\n"), "settings.mcp.files.grep_max_answer_bytes", ">= 0"},
		{files("      grep_timeout_ms: -5\n"), "settings.mcp.files.grep_timeout_ms", ">= 0"},
		{"settings:\n  mcp:\n    files: [1, 2]\n", "settings.mcp.files", "must be a mapping"},
		{"settings: [1]\n", "settings", "must be a mapping"},
		{"settings: {mcp: {files: {a: 1}\n", "", "not valid YAML"},
	}
	for _, tc := range tests {
		_, err := fileio.LoadConfig(strings.NewReader(tc.doc))
		if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig {
			t.Errorf("%q: %v, want INVALID_CONFIG", tc.doc, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.fragment) {
			t.Errorf("%q: %q does not name %q and say %q", tc.doc, err, tc.key, tc.fragment)
		}
	}
}

func TestLoadConfigFileAndNoEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), "service.yaml")
	os.WriteFile(p, []byte("settings:\n  mcp:\n    files:\n      list_limit_default: 7\n"), 0o600)
	t.Setenv("SETTINGS_MCP_FILES_LIST_LIMIT_DEFAULT", "99")
	t.Setenv("MAX_FILE_BYTES", "1")
	cfg, err := fileio.LoadConfigFile(p)
	if err != nil || cfg.ListLimitDefault != 7 || cfg.MaxFileBytes != fileio.DefaultMaxFileBytes {
		t.Errorf("LoadConfigFile = %+v, %v; environment variables must not count", cfg, err)
	}
	if _, err := fileio.LoadConfigFile(filepath.Join(t.TempDir(), "missing.yaml")); agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig {
		t.Errorf("missing file: %v", err)
	}
}

func TestNewServiceValidates(t *testing.T) {
	cfg := fileio.DefaultConfig()
	cfg.ListLimitMax = 0
	if _, err := fileio.NewService(nil, fileio.Options{}); agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument {
		t.Errorf("nil store: %v", err)
	}
	_, err := fileio.NewService(newMem(), fileio.Options{Config: cfg})
	if agentfiles.ErrorCode(err) != agentfiles.CodeInvalidConfig || !strings.Contains(err.Error(), "list_limit_max") {
		t.Errorf("bad config: %v", err)
	}
}

// TestZeroConfigIsDefault: Options{} runs with DefaultConfig.
func TestZeroConfigIsDefault(t *testing.T) {
	svc, err := fileio.NewService(newMem(), fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fileio.DefaultConfig(), svc.Config()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
