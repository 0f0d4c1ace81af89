package fileio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/settingsdoc"
	"gopkg.in/yaml.v3"
)

// Config holds the limits and switches of a Service (Options.Config). Start from DefaultConfig
// and change fields, or load the `settings.mcp.files` section of a service configuration file
// with LoadConfig. Environment variables are never consulted.
//
// The YAML key of each field is given in its comment.
type Config struct {
	// AllowRootWipe lets a Recursive Delete of "" remove every file of a project.
	// Key allow_root_wipe; default false (deleting the root is PERMISSION_DENIED).
	AllowRootWipe bool
	// MaxPayloadBytes caps the content of one write. Key max_payload_bytes; default 2 MiB.
	MaxPayloadBytes int64
	// MaxFileBytes caps the size of one file. Key max_file_bytes; default 10 MiB.
	MaxFileBytes int64
	// MaxProjectBytes caps what a project keeps: its files, the versions its history keeps
	// (those checkpoints pin included) and its change-feed events (each counts as its path's
	// bytes plus 128). A change that would take the project past it is QUOTA_EXCEEDED whether
	// or not a file grows (replacing a file keeps its old content); one that only deletes
	// never is. Key max_project_bytes; default 100 MiB.
	MaxProjectBytes int64
	// MaxReadBytes caps the content returned by one read (longer reads are clamped and
	// report Truncated). Key max_read_bytes; default 2 MiB.
	MaxReadBytes int64
	// ReadDefaultLines and ReadDefaultBytes bound a read that names no end (Read without
	// LengthBytes, or with StartLine but no EndLine; file_read without length or end_line), so
	// that an agent's first look at a file fits its context: at most this many lines and bytes
	// (and never more than MaxReadBytes), cut at a line boundary, then Truncated with the
	// continuation (NextOffsetBytes, or the next start_line in the Note). A read with a length
	// or an end_line asks for more explicitly. Keys read_default_lines (default 2000) and
	// read_default_bytes (default 256 KiB).
	ReadDefaultLines int
	ReadDefaultBytes int64
	// ListLimitDefault is the List limit when the caller gives none. Key list_limit_default;
	// default 256.
	ListLimitDefault int
	// ListLimitMax is the largest List limit; larger requests are clamped. Key list_limit_max;
	// default 1024.
	ListLimitMax int
	// LockTimeout bounds the wait for a project's write lock (RESOURCE_BUSY on expiry). The
	// Service passes it to the store with every Update (UpdateOptions.LockTimeout).
	// Key lock_timeout_ms; default 5000.
	LockTimeout time.Duration
	// DeleteRetention is how long the rows of deleted files are kept before the store purges
	// them (pgstore; memstore deletes at once). The Service passes it to the store with every
	// Update (UpdateOptions.DeleteRetention). Key delete_retention_days; default 7.
	DeleteRetention time.Duration
	// HistoryVersions is how many previous versions of each file the store keeps: every write,
	// edit, rename and delete keeps the content it replaces (see Service.Versions); 0 turns
	// the history off. Kept versions count toward max_project_bytes. Key history_versions;
	// default 10.
	HistoryVersions int
	// HistoryRetention is how long a previous version is kept after it was replaced: a
	// version goes when it is older than this or no longer among the last HistoryVersions,
	// whichever comes first (pgstore's purge job removes it; memstore at its next write).
	// Deleted files can be restored while their last version is kept. Key
	// history_retention_days; default 7.
	HistoryRetention time.Duration
	// RateLimitPerSecond is the sustained number of operations per second allowed per tenant
	// (token bucket keyed by agentfiles.AuthContext.TenantID); 0 disables rate limiting.
	// Key rate_limit_per_second; default 100.
	RateLimitPerSecond float64
	// RateLimitBurst is the bucket size: operations a tenant may make at once.
	// Key rate_limit_burst; default 200.
	RateLimitBurst int
	// CallTimeout is the wall-time budget of one call: the Service runs each operation under
	// a context that ends after it (or earlier, with the caller's), so a store stops its
	// statements then (pgstore sends the time left as the statement_timeout of the
	// transaction). Key call_timeout_ms; default 30000.
	CallTimeout time.Duration
	// MaxEditsPerCall caps the replacements of one Edit (INVALID_ARGUMENT above it). Key
	// max_edits_per_call; default 100.
	MaxEditsPerCall int
	// MaxDiffCost caps the work of the unified diff an Edit returns, in steps of the line
	// diff (about one comparison of two lines each); past it the diff is coarser: one hunk
	// that replaces every line between the common head and tail, with DiffNote saying so.
	// The diff needs memory linear in the lines compared, whatever the cost. Key
	// max_diff_cost; default 1,000,000.
	MaxDiffCost int
	// MaxDiffBytes caps the diff text an Edit returns; a longer diff is cut at a line with
	// DiffTruncated set. Key max_diff_bytes; default 256 KiB.
	MaxDiffBytes int64
	// MaxConcurrentCalls is how many calls of one tenant run at once; a tenant's further calls
	// wait for one of its own to finish (until their deadline), so one tenant's parallel
	// calls never take every CPU or database connection. Key max_concurrent_calls; default 0:
	// half the CPUs the process may use, at least 1.
	MaxConcurrentCalls int
	// MaxEditWorkBytes caps the text one Edit may scan: the sum, over its edits, of the
	// file's size when each applies (a replace_all of a 1 MiB file scans 1 MiB).
	// INVALID_ARGUMENT above it: send fewer edits per call. Key max_edit_work_bytes; default
	// 32 MiB.
	MaxEditWorkBytes int64
	// MaxRenameFiles caps the files one Rename moves (INVALID_ARGUMENT above it: rename the
	// subdirectories one at a time). Key max_rename_files; default 2000.
	MaxRenameFiles int
	// GrepLimitDefault is the number of entries (matches, files or counts) Grep returns when
	// the caller gives no limit. Key grep_limit_default; default 100; 0 means the default.
	GrepLimitDefault int
	// GrepLimitMax is the largest Grep limit; larger requests are clamped. Key
	// grep_limit_max; default 1000; 0 means the default.
	GrepLimitMax int
	// GrepMaxAnswerBytes caps the size of one Grep answer (paths, lines and context lines);
	// a longer answer stops early with a cursor. Key grep_max_answer_bytes; default 256 KiB;
	// 0 means the default.
	GrepMaxAnswerBytes int64
	// GrepMaxScanBytes is the scan budget of one Grep call: the bytes of file content it may
	// read and match. A search that needs more (a pattern without literal text over a large
	// project) stops at a file boundary with a cursor. At least one file is always read. Key
	// grep_max_scan_bytes; default 64 MiB; 0 means the default.
	GrepMaxScanBytes int64
	// GrepTimeout is the time budget of one Grep or Glob call; when it runs out the call
	// returns what it found with a cursor (pgstore also bounds each statement by it with SET
	// LOCAL statement_timeout). Key grep_timeout_ms; default 10000; 0 means the default.
	GrepTimeout time.Duration
	// FeedMaxWait caps the wait_ms of one Events call (a long poll of the change feed); a
	// longer wait is shortened to it, and the call's own budget (CallTimeout) bounds it too.
	// Key feed_max_wait_ms; default 25000; 0 means the default.
	FeedMaxWait time.Duration
	// MaxFeedWaits caps the Events calls of one tenant that wait for a change at once (long
	// polls): each waits without a connection, but wakes on every write to look for its
	// project's changes. Past it an Events call with a wait is RESOURCE_BUSY. Key
	// max_feed_waits; default 16; 0 means the default.
	MaxFeedWaits int
	// MaxRewindFiles caps the files that differ from a checkpoint that one Changes or Rewind
	// considers (INVALID_ARGUMENT above it: name a directory with path). Key
	// max_rewind_files; default 10000; 0 means the default.
	MaxRewindFiles int
	// MaxPatchBytes caps the text of one ApplyPatch: the patch, or the paths and diffs of its
	// operations (PAYLOAD_TOO_LARGE above it). The bytes its chunks may compare while matching
	// are MaxEditWorkBytes. Key max_patch_bytes; default 4 MiB; 0 means the default.
	MaxPatchBytes int64
	// MaxPatchFiles caps the files one ApplyPatch changes, and the files one ReadMany returns
	// (INVALID_ARGUMENT above it). Key max_patch_files; default 100; 0 means the default.
	MaxPatchFiles int
	// LogContentSHA256 adds the SHA-256 of written content to log records.
	// Key log_content_sha256; default false.
	LogContentSHA256 bool
	// LogPreviewBytes adds a preview of at most this many bytes (0..256) of written content
	// to log records, marked truncated=true when cut. Key log_preview_bytes; default 0: no
	// content ever reaches the logs.
	LogPreviewBytes int
	// PathRule is the set of characters paths may hold: PathRuleUnicode ("unicode": any
	// UTF-8 text in NFC but controls, invisible formatting characters and backslash; see
	// ValidatePath) or PathRulePortable ("portable": only a-z A-Z 0-9 / _ - .). Key path_rule;
	// default "unicode" ("" means the default).
	PathRule PathRule
	// MaxArchiveBytes caps the archive stream one Import reads (as sent, compressed or not),
	// and so the request body of the HTTP import route; a zip stream is spooled to a temporary
	// file of at most this size. Key max_archive_bytes; default 512 MiB; 0 means the default.
	MaxArchiveBytes int64
	// ArchiveTimeout is the time budget of one Import or Export (instead of CallTimeout): the
	// whole stream is read (an import) or sent (an export) within it. The store's transaction
	// is not open meanwhile: an import reads and checks the whole archive first, an export
	// reads its files before it sends them. Key archive_timeout_ms; default 300000 (5
	// minutes); 0 means the default.
	ArchiveTimeout time.Duration
	// MaxArchiveEntries caps the entries of one archive an Import reads (files, directories
	// and links), counted as they are read; a zip's are counted before its directory is
	// parsed, which holds about 250 bytes per entry in memory. PAYLOAD_TOO_LARGE above it. Key
	// max_archive_entries; default 125,000 (a quarter more than max_project_files' default:
	// directories count too); 0 means the default.
	MaxArchiveEntries int
	// MaxArchiveDirectoryBytes caps the central directory of a zip archive (the list of its
	// entries at its end, which a zip reader holds in memory), checked before it is parsed.
	// PAYLOAD_TOO_LARGE above it. Key max_archive_directory_bytes; default 32 MiB; 0 means the
	// default.
	MaxArchiveDirectoryBytes int64
	// MaxConcurrentArchives is how many imports and exports one tenant runs at once; a
	// further one waits for its turn at most LockTimeout, then is RESOURCE_BUSY. Key
	// max_concurrent_archives; default 1; 0 means the default.
	MaxConcurrentArchives int
	// MaxProjectFiles caps the active files of one project, empty ones included
	// (QUOTA_EXCEEDED). Key max_project_files; default 100,000; 0 means the default.
	MaxProjectFiles int64
	// MaxTenantFiles caps the active files of all the projects of one tenant together
	// (QUOTA_EXCEEDED). Key max_tenant_files; default 1,000,000; 0 means the default.
	MaxTenantFiles int64
	// MaxTenantProjects caps the projects of one tenant that hold a file or a kept version
	// (QUOTA_EXCEEDED for the write that would start one more). Key max_tenant_projects;
	// default 1000; 0 means the default.
	MaxTenantProjects int64
	// MaxCheckpoints caps the checkpoints of one project (QUOTA_EXCEEDED: delete old ones).
	// What they pin counts toward MaxProjectBytes. Key max_checkpoints; default 200; 0 means
	// the default.
	MaxCheckpoints int
	// ShellTimeout is the time budget of a file_shell command that names no timeout_ms, and
	// ShellMaxTimeout the largest timeout_ms one may name (larger ones are clamped). A command
	// still running at its budget is stopped and changes nothing. Keys shell_timeout_ms
	// (default 10000) and shell_max_timeout_ms (default 60000); 0 means the default.
	ShellTimeout    time.Duration
	ShellMaxTimeout time.Duration
	// ShellMaxWriteBytes caps the bytes one file_shell command writes to files (every write
	// and append counted); past it the command fails with QUOTA_EXCEEDED and writes nothing.
	// Key shell_max_write_bytes; default 32 MiB; 0 means the default.
	ShellMaxWriteBytes int64
	// ShellMaxOutputBytes caps the standard output and error one file_shell answer carries,
	// counted as sent (JSON with its escapes); the rest is cut with a note. Key
	// shell_max_output_bytes; default 256 KiB; 0 means the default.
	ShellMaxOutputBytes int64
	// ShellMaxSteps caps the simple commands (builtins, functions and commands) one file_shell
	// command runs; past it the command stops with INVALID_ARGUMENT and changes nothing. Key
	// shell_max_steps; default 250000; 0 means the default.
	ShellMaxSteps int64
	// ShellMaxPipes caps the pipes (pipeline stages, process substitutions, here-documents)
	// one file_shell command holds open at once, and so its goroutines; past it the command
	// stops with INVALID_ARGUMENT and changes nothing. Key shell_max_pipes; default 64; 0
	// means the default.
	ShellMaxPipes int
}

// Defaults, also the values DefaultConfig returns.
const (
	DefaultMaxPayloadBytes    = 2 << 20
	DefaultMaxFileBytes       = 10 << 20
	DefaultMaxProjectBytes    = 100 << 20
	DefaultMaxReadBytes       = 2 << 20
	DefaultReadDefaultLines   = 2000
	DefaultReadDefaultBytes   = 256 << 10
	DefaultListLimit          = 256
	DefaultListLimitMax       = 1024
	DefaultLockTimeout        = 5 * time.Second
	DefaultDeleteRetention    = 7 * 24 * time.Hour
	DefaultRateLimitPerSecond = 100
	DefaultHistoryVersions    = 10
	DefaultHistoryRetention   = 7 * 24 * time.Hour
	DefaultRateLimitBurst     = 200
	DefaultCallTimeout        = 30 * time.Second
	DefaultMaxEditsPerCall    = 100
	DefaultMaxDiffCost        = 1_000_000
	DefaultMaxDiffBytes       = 256 << 10
	DefaultMaxRenameFiles     = 2000
	DefaultMaxEditWorkBytes   = 32 << 20
	DefaultGrepLimit          = 100
	DefaultGrepLimitMax       = 1000
	DefaultGrepMaxAnswerBytes = 256 << 10
	DefaultGrepMaxScanBytes   = 64 << 20
	DefaultGrepTimeout        = 10 * time.Second
	DefaultFeedMaxWait        = 25 * time.Second
	DefaultMaxFeedWaits       = 16
	DefaultMaxRewindFiles     = 10000
	DefaultMaxPatchBytes      = 4 << 20
	DefaultMaxPatchFiles      = 100
	DefaultMaxArchiveBytes    = 512 << 20
	DefaultArchiveTimeout     = 5 * time.Minute
	DefaultShellTimeout       = 10 * time.Second
	DefaultShellMaxTimeout    = 60 * time.Second
	DefaultShellMaxWriteBytes = 32 << 20
	DefaultShellMaxOutput     = 256 << 10
	DefaultShellMaxSteps      = 250_000
	DefaultShellMaxPipes      = 64
	// MaxLogPreviewBytes is the largest allowed LogPreviewBytes: a log line never shows more of a file than this.
	MaxLogPreviewBytes = 256
	// HardListLimitMax is the largest value list_limit_max may take.
	HardListLimitMax = 100000
)

// Defaults of the quotas and of the archive limits, also the values DefaultConfig returns.
const (
	DefaultMaxArchiveEntries     = 125_000
	DefaultMaxArchiveDirBytes    = 32 << 20
	DefaultMaxConcurrentArchives = 1
	DefaultMaxProjectFiles       = 100_000
	DefaultMaxTenantFiles        = 1_000_000
	DefaultMaxTenantProjects     = 1000
	DefaultMaxCheckpoints        = 200
)

// DefaultConfig returns the safe defaults listed on Config.
func DefaultConfig() Config {
	c := Config{
		MaxPayloadBytes:     DefaultMaxPayloadBytes,
		MaxFileBytes:        DefaultMaxFileBytes,
		MaxProjectBytes:     DefaultMaxProjectBytes,
		MaxReadBytes:        DefaultMaxReadBytes,
		ReadDefaultLines:    DefaultReadDefaultLines,
		ReadDefaultBytes:    DefaultReadDefaultBytes,
		ListLimitDefault:    DefaultListLimit,
		ListLimitMax:        DefaultListLimitMax,
		LockTimeout:         driver.DefaultLockTimeout,
		DeleteRetention:     DefaultDeleteRetention,
		HistoryVersions:     DefaultHistoryVersions,
		HistoryRetention:    DefaultHistoryRetention,
		RateLimitPerSecond:  DefaultRateLimitPerSecond,
		RateLimitBurst:      DefaultRateLimitBurst,
		CallTimeout:         DefaultCallTimeout,
		MaxEditsPerCall:     DefaultMaxEditsPerCall,
		MaxDiffCost:         DefaultMaxDiffCost,
		MaxDiffBytes:        DefaultMaxDiffBytes,
		MaxRenameFiles:      DefaultMaxRenameFiles,
		MaxEditWorkBytes:    DefaultMaxEditWorkBytes,
		GrepLimitDefault:    DefaultGrepLimit,
		GrepLimitMax:        DefaultGrepLimitMax,
		GrepMaxAnswerBytes:  DefaultGrepMaxAnswerBytes,
		GrepMaxScanBytes:    DefaultGrepMaxScanBytes,
		GrepTimeout:         DefaultGrepTimeout,
		FeedMaxWait:         DefaultFeedMaxWait,
		MaxFeedWaits:        DefaultMaxFeedWaits,
		MaxRewindFiles:      DefaultMaxRewindFiles,
		MaxPatchBytes:       DefaultMaxPatchBytes,
		MaxPatchFiles:       DefaultMaxPatchFiles,
		PathRule:            PathRuleUnicode,
		MaxArchiveBytes:     DefaultMaxArchiveBytes,
		ArchiveTimeout:      DefaultArchiveTimeout,
		ShellTimeout:        DefaultShellTimeout,
		ShellMaxTimeout:     DefaultShellMaxTimeout,
		ShellMaxWriteBytes:  DefaultShellMaxWriteBytes,
		ShellMaxOutputBytes: DefaultShellMaxOutput,
		ShellMaxSteps:       DefaultShellMaxSteps,
		ShellMaxPipes:       DefaultShellMaxPipes,
	}
	c.MaxArchiveEntries, c.MaxArchiveDirectoryBytes, c.MaxConcurrentArchives = DefaultMaxArchiveEntries, DefaultMaxArchiveDirBytes, DefaultMaxConcurrentArchives
	c.MaxProjectFiles, c.MaxTenantFiles, c.MaxTenantProjects = DefaultMaxProjectFiles, DefaultMaxTenantFiles, DefaultMaxTenantProjects
	c.MaxCheckpoints = DefaultMaxCheckpoints
	return c
}

// ConfigPrefix is the YAML path of the section LoadConfig reads.
const ConfigPrefix = "settings.mcp.files"

// Sub-trees of settings.mcp.files owned by package search; LoadConfig skips them.
var foreignConfigKeys = map[string]bool{"search": true, "index": true, "security": true}

// LoadConfig reads a service configuration YAML document and returns the Config of its
// settings.mcp.files section: defaults for missing keys, then Validate. The section's search,
// index and security sub-trees (package search's) are skipped, and so are top-level keys other
// than settings, which belong to the application. Every other mistake is an error naming the key
// and its line: an unknown key under settings.mcp.files, a key under settings: other than mcp or
// under settings.mcp: other than files, a settings.mcp.files key written at the top level, and a
// value of the wrong form (the message says the form, e.g. "a byte count such as 10485760"). A
// missing section yields DefaultConfig. Errors are *agentfiles.Error with code INVALID_CONFIG.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "cannot read the configuration", "", err)
	}
	cfg := DefaultConfig()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "configuration is not valid YAML: "+err.Error(), "", err)
	}
	misplaced := []string{"mcp", "files"}
	for _, k := range configKeys {
		misplaced = append(misplaced, k.name)
	}
	section, err := settingsdoc.Files(&doc, misplaced...)
	if err != nil || section == nil {
		return cfg, err
	}
	for i := 0; i+1 < len(section.Content); i += 2 {
		key, val := section.Content[i], section.Content[i+1]
		if foreignConfigKeys[key.Value] {
			continue
		}
		if err := cfg.setKey(key, val); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// LoadConfigFile is LoadConfig on the named file.
func LoadConfigFile(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "cannot open the configuration file: "+err.Error(), path, err)
	}
	defer f.Close()
	return LoadConfig(f)
}

// configKeys lists the keys of settings.mcp.files in documentation order, each with the field
// it sets.
var configKeys = []struct {
	name  string
	field func(c *Config) any // a pointer yaml.Node.Decode can fill
}{
	{"allow_root_wipe", func(c *Config) any { return &c.AllowRootWipe }},
	{"max_payload_bytes", func(c *Config) any { return &c.MaxPayloadBytes }},
	{"max_file_bytes", func(c *Config) any { return &c.MaxFileBytes }},
	{"max_project_bytes", func(c *Config) any { return &c.MaxProjectBytes }},
	{"max_read_bytes", func(c *Config) any { return &c.MaxReadBytes }},
	{"read_default_lines", func(c *Config) any { return &c.ReadDefaultLines }},
	{"read_default_bytes", func(c *Config) any { return &c.ReadDefaultBytes }},
	{"list_limit_default", func(c *Config) any { return &c.ListLimitDefault }},
	{"list_limit_max", func(c *Config) any { return &c.ListLimitMax }},
	{"lock_timeout_ms", func(c *Config) any { return &durationIn{&c.LockTimeout, time.Millisecond} }},
	{"delete_retention_days", func(c *Config) any { return &durationIn{&c.DeleteRetention, 24 * time.Hour} }},
	{"history_versions", func(c *Config) any { return &c.HistoryVersions }},
	{"history_retention_days", func(c *Config) any { return &durationIn{&c.HistoryRetention, 24 * time.Hour} }},
	{"rate_limit_per_second", func(c *Config) any { return &c.RateLimitPerSecond }},
	{"rate_limit_burst", func(c *Config) any { return &c.RateLimitBurst }},
	{"call_timeout_ms", func(c *Config) any { return &durationIn{&c.CallTimeout, time.Millisecond} }},
	{"max_edits_per_call", func(c *Config) any { return &c.MaxEditsPerCall }},
	{"max_diff_cost", func(c *Config) any { return &c.MaxDiffCost }},
	{"max_diff_bytes", func(c *Config) any { return &c.MaxDiffBytes }},
	{"max_rename_files", func(c *Config) any { return &c.MaxRenameFiles }},
	{"max_concurrent_calls", func(c *Config) any { return &c.MaxConcurrentCalls }},
	{"max_edit_work_bytes", func(c *Config) any { return &c.MaxEditWorkBytes }},
	{"grep_limit_default", func(c *Config) any { return &c.GrepLimitDefault }},
	{"grep_limit_max", func(c *Config) any { return &c.GrepLimitMax }},
	{"grep_max_answer_bytes", func(c *Config) any { return &c.GrepMaxAnswerBytes }},
	{"grep_max_scan_bytes", func(c *Config) any { return &c.GrepMaxScanBytes }},
	{"grep_timeout_ms", func(c *Config) any { return &durationIn{&c.GrepTimeout, time.Millisecond} }},
	{"feed_max_wait_ms", func(c *Config) any { return &durationIn{&c.FeedMaxWait, time.Millisecond} }},
	{"max_feed_waits", func(c *Config) any { return &c.MaxFeedWaits }},
	{"max_rewind_files", func(c *Config) any { return &c.MaxRewindFiles }},
	{"max_patch_bytes", func(c *Config) any { return &c.MaxPatchBytes }},
	{"max_patch_files", func(c *Config) any { return &c.MaxPatchFiles }},
	{"log_content_sha256", func(c *Config) any { return &c.LogContentSHA256 }},
	{"log_preview_bytes", func(c *Config) any { return &c.LogPreviewBytes }},
	{"path_rule", func(c *Config) any { return &c.PathRule }},
	{"max_archive_bytes", func(c *Config) any { return &c.MaxArchiveBytes }},
	{"archive_timeout_ms", func(c *Config) any { return &durationIn{&c.ArchiveTimeout, time.Millisecond} }},
	{"max_archive_entries", func(c *Config) any { return &c.MaxArchiveEntries }},
	{"max_archive_directory_bytes", func(c *Config) any { return &c.MaxArchiveDirectoryBytes }},
	{"max_concurrent_archives", func(c *Config) any { return &c.MaxConcurrentArchives }},
	{"max_project_files", func(c *Config) any { return &c.MaxProjectFiles }},
	{"max_tenant_files", func(c *Config) any { return &c.MaxTenantFiles }},
	{"max_tenant_projects", func(c *Config) any { return &c.MaxTenantProjects }},
	{"max_checkpoints", func(c *Config) any { return &c.MaxCheckpoints }},
	{"shell_timeout_ms", func(c *Config) any { return &durationIn{&c.ShellTimeout, time.Millisecond} }},
	{"shell_max_timeout_ms", func(c *Config) any { return &durationIn{&c.ShellMaxTimeout, time.Millisecond} }},
	{"shell_max_write_bytes", func(c *Config) any { return &c.ShellMaxWriteBytes }},
	{"shell_max_output_bytes", func(c *Config) any { return &c.ShellMaxOutputBytes }},
	{"shell_max_steps", func(c *Config) any { return &c.ShellMaxSteps }},
	{"shell_max_pipes", func(c *Config) any { return &c.ShellMaxPipes }},
}

// durationIn decodes a whole number of units into a time.Duration.
type durationIn struct {
	d    *time.Duration
	unit time.Duration
}

func (d *durationIn) UnmarshalYAML(n *yaml.Node) error {
	var v int64
	if err := n.Decode(&v); err != nil {
		return err
	}
	*d.d = time.Duration(v) * d.unit
	return nil
}

// configFormats says, for a message, the form each key of configKeys takes.
var configFormats = map[string]string{
	"allow_root_wipe":        "true or false",
	"max_payload_bytes":      "a byte count such as 2097152",
	"max_file_bytes":         "a byte count such as 10485760",
	"max_project_bytes":      "a byte count such as 104857600",
	"max_read_bytes":         "a byte count such as 2097152",
	"list_limit_default":     "a whole number such as 256",
	"list_limit_max":         "a whole number such as 1024",
	"lock_timeout_ms":        "a whole number of milliseconds such as 5000",
	"delete_retention_days":  "a whole number of days such as 7",
	"history_versions":       "a whole number such as 20",
	"history_retention_days": "a whole number of days such as 30",
	"rate_limit_per_second":  "a number such as 100",
	"rate_limit_burst":       "a whole number such as 200",
	"max_patch_bytes":        "a byte count such as 4194304",
	"max_patch_files":        "a whole number such as 100",
	"log_content_sha256":     "true or false",
	"log_preview_bytes":      "a byte count such as 256",
	"path_rule":              "unicode or portable",
	"max_archive_bytes":      "a byte count such as 536870912",
	"archive_timeout_ms":     "a whole number of milliseconds such as 300000",
	"shell_timeout_ms":       "a whole number of milliseconds such as 10000",
	"shell_max_timeout_ms":   "a whole number of milliseconds such as 60000",
	"shell_max_write_bytes":  "a byte count such as 33554432",
	"shell_max_output_bytes": "a byte count such as 262144",
	"shell_max_steps":        "a whole number such as 250000",
	"shell_max_pipes":        "a whole number such as 64",

	// The quotas and the archive limits.
	"max_archive_entries":         "a whole number such as 125000",
	"max_archive_directory_bytes": "a byte count such as 33554432",
	"max_concurrent_archives":     "a whole number such as 1",
	"max_project_files":           "a whole number such as 100000",
	"max_tenant_files":            "a whole number such as 1000000",
	"max_tenant_projects":         "a whole number such as 1000",
	"max_checkpoints":             "a whole number such as 200",
}

func (c *Config) setKey(key, val *yaml.Node) error {
	full := ConfigPrefix + "." + key.Value
	for _, k := range configKeys {
		if k.name != key.Value {
			continue
		}
		if err := val.Decode(k.field(c)); err != nil {
			format, ok := configFormats[k.name]
			if !ok {
				format = "a value of this key's type"
			}
			return configError(full, fmt.Sprintf("cannot use %q (line %d); write %s", val.Value, val.Line, format))
		}
		return nil
	}
	names := make([]string, len(configKeys))
	for i, k := range configKeys {
		names[i] = k.name
	}
	return configError(full, fmt.Sprintf("unknown key (line %d); valid keys are %s (and the search, index and security sections)", key.Line, strings.Join(names, ", ")))
}

// Validate checks the ranges of every field and returns an INVALID_CONFIG
// *agentfiles.Error naming the YAML key of the first bad one.
func (c Config) Validate() error {
	k := func(key string) string { return ConfigPrefix + "." + key }
	switch {
	case c.MaxPayloadBytes <= 0:
		return configError(k("max_payload_bytes"), fmt.Sprintf("must be > 0, got %d", c.MaxPayloadBytes))
	case c.MaxFileBytes <= 0:
		return configError(k("max_file_bytes"), fmt.Sprintf("must be > 0, got %d", c.MaxFileBytes))
	case c.MaxProjectBytes <= 0:
		return configError(k("max_project_bytes"), fmt.Sprintf("must be > 0, got %d", c.MaxProjectBytes))
	case c.MaxFileBytes > c.MaxProjectBytes:
		return configError(k("max_file_bytes"), fmt.Sprintf("must not exceed max_project_bytes (%d), got %d", c.MaxProjectBytes, c.MaxFileBytes))
	case c.MaxReadBytes <= 0:
		return configError(k("max_read_bytes"), fmt.Sprintf("must be > 0, got %d", c.MaxReadBytes))
	case c.ReadDefaultLines <= 0:
		return configError(k("read_default_lines"), fmt.Sprintf("must be > 0, got %d", c.ReadDefaultLines))
	case c.ReadDefaultBytes <= 0:
		return configError(k("read_default_bytes"), fmt.Sprintf("must be > 0 (at most max_read_bytes applies), got %d", c.ReadDefaultBytes))
	case c.ListLimitMax < 1 || c.ListLimitMax > HardListLimitMax:
		return configError(k("list_limit_max"), fmt.Sprintf("must be between 1 and %d, got %d", HardListLimitMax, c.ListLimitMax))
	case c.ListLimitDefault < 1 || c.ListLimitDefault > c.ListLimitMax:
		return configError(k("list_limit_default"), fmt.Sprintf("must be between 1 and list_limit_max (%d), got %d", c.ListLimitMax, c.ListLimitDefault))
	case c.LockTimeout <= 0:
		return configError(k("lock_timeout_ms"), fmt.Sprintf("must be > 0 milliseconds, got %d", c.LockTimeout.Milliseconds()))
	case c.DeleteRetention < 0:
		return configError(k("delete_retention_days"), fmt.Sprintf("must be >= 0, got %d", int64(c.DeleteRetention/(24*time.Hour))))
	case c.HistoryVersions < 0:
		return configError(k("history_versions"), fmt.Sprintf("must be >= 0 (0 turns the history off), got %d", c.HistoryVersions))
	case c.HistoryRetention < 0:
		return configError(k("history_retention_days"), fmt.Sprintf("must be >= 0, got %d", int64(c.HistoryRetention/(24*time.Hour))))
	case c.RateLimitPerSecond < 0:
		return configError(k("rate_limit_per_second"), fmt.Sprintf("must be >= 0 (0 disables), got %g", c.RateLimitPerSecond))
	case c.RateLimitPerSecond > 0 && c.RateLimitBurst < 1:
		return configError(k("rate_limit_burst"), fmt.Sprintf("must be >= 1 when rate_limit_per_second is set, got %d", c.RateLimitBurst))
	case c.CallTimeout <= 0:
		return configError(k("call_timeout_ms"), fmt.Sprintf("must be > 0 milliseconds, got %d", c.CallTimeout.Milliseconds()))
	case c.MaxEditsPerCall < 1:
		return configError(k("max_edits_per_call"), fmt.Sprintf("must be >= 1, got %d", c.MaxEditsPerCall))
	case c.MaxDiffCost < 1:
		return configError(k("max_diff_cost"), fmt.Sprintf("must be >= 1, got %d", c.MaxDiffCost))
	case c.MaxDiffBytes < 1024:
		return configError(k("max_diff_bytes"), fmt.Sprintf("must be >= 1024, got %d", c.MaxDiffBytes))
	case c.MaxRenameFiles < 1:
		return configError(k("max_rename_files"), fmt.Sprintf("must be >= 1, got %d", c.MaxRenameFiles))
	case c.MaxConcurrentCalls < 0:
		return configError(k("max_concurrent_calls"), fmt.Sprintf("must be >= 0 (0: half the CPUs), got %d", c.MaxConcurrentCalls))
	case c.MaxEditWorkBytes < 1:
		return configError(k("max_edit_work_bytes"), fmt.Sprintf("must be >= 1, got %d", c.MaxEditWorkBytes))
	case c.GrepLimitMax < 0 || c.GrepLimitMax > HardListLimitMax:
		return configError(k("grep_limit_max"), fmt.Sprintf("must be between 0 (the default %d) and %d, got %d", DefaultGrepLimitMax, HardListLimitMax, c.GrepLimitMax))
	case c.GrepLimitDefault < 0 || c.GrepLimitDefault > c.grepLimits().max:
		return configError(k("grep_limit_default"), fmt.Sprintf("must be between 0 (the default %d) and grep_limit_max (%d), got %d", DefaultGrepLimit, c.grepLimits().max, c.GrepLimitDefault))
	case c.GrepMaxAnswerBytes < 0:
		return configError(k("grep_max_answer_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultGrepMaxAnswerBytes, c.GrepMaxAnswerBytes))
	case c.GrepMaxScanBytes < 0:
		return configError(k("grep_max_scan_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultGrepMaxScanBytes, c.GrepMaxScanBytes))
	case c.GrepTimeout < 0:
		return configError(k("grep_timeout_ms"), fmt.Sprintf("must be >= 0 milliseconds (0: the default %d), got %d", DefaultGrepTimeout.Milliseconds(), c.GrepTimeout.Milliseconds()))
	case c.FeedMaxWait < 0:
		return configError(k("feed_max_wait_ms"), fmt.Sprintf("must be >= 0 milliseconds (0: the default %d), got %d", DefaultFeedMaxWait.Milliseconds(), c.FeedMaxWait.Milliseconds()))
	case c.MaxFeedWaits < 0:
		return configError(k("max_feed_waits"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxFeedWaits, c.MaxFeedWaits))
	case c.MaxRewindFiles < 0:
		return configError(k("max_rewind_files"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxRewindFiles, c.MaxRewindFiles))
	case c.MaxPatchBytes < 0:
		return configError(k("max_patch_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxPatchBytes, c.MaxPatchBytes))
	case c.MaxPatchFiles < 0:
		return configError(k("max_patch_files"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxPatchFiles, c.MaxPatchFiles))
	case c.LogPreviewBytes < 0 || c.LogPreviewBytes > MaxLogPreviewBytes:
		return configError(k("log_preview_bytes"), fmt.Sprintf("must be between 0 and %d, got %d", MaxLogPreviewBytes, c.LogPreviewBytes))
	case c.PathRule != "" && c.PathRule != PathRuleUnicode && c.PathRule != PathRulePortable:
		return configError(k("path_rule"), fmt.Sprintf("must be %q or %q, got %q", PathRuleUnicode, PathRulePortable, c.PathRule))
	case c.MaxArchiveBytes < 0:
		return configError(k("max_archive_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxArchiveBytes, c.MaxArchiveBytes))
	case c.ArchiveTimeout < 0:
		return configError(k("archive_timeout_ms"), fmt.Sprintf("must be >= 0 milliseconds (0: the default %d), got %d", DefaultArchiveTimeout.Milliseconds(), c.ArchiveTimeout.Milliseconds()))
	case c.MaxArchiveEntries < 0:
		return configError(k("max_archive_entries"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxArchiveEntries, c.MaxArchiveEntries))
	case c.MaxArchiveDirectoryBytes < 0:
		return configError(k("max_archive_directory_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxArchiveDirBytes, c.MaxArchiveDirectoryBytes))
	case c.MaxConcurrentArchives < 0:
		return configError(k("max_concurrent_archives"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxConcurrentArchives, c.MaxConcurrentArchives))
	case c.MaxProjectFiles < 0:
		return configError(k("max_project_files"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxProjectFiles, c.MaxProjectFiles))
	case c.MaxTenantFiles < 0:
		return configError(k("max_tenant_files"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxTenantFiles, c.MaxTenantFiles))
	case c.MaxTenantProjects < 0:
		return configError(k("max_tenant_projects"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxTenantProjects, c.MaxTenantProjects))
	case c.MaxCheckpoints < 0:
		return configError(k("max_checkpoints"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultMaxCheckpoints, c.MaxCheckpoints))
	case c.ShellTimeout < 0:
		return configError(k("shell_timeout_ms"), fmt.Sprintf("must be >= 0 milliseconds (0: the default %d), got %d", DefaultShellTimeout.Milliseconds(), c.ShellTimeout.Milliseconds()))
	case c.ShellMaxTimeout < 0:
		return configError(k("shell_max_timeout_ms"), fmt.Sprintf("must be >= 0 milliseconds (0: the default %d), got %d", DefaultShellMaxTimeout.Milliseconds(), c.ShellMaxTimeout.Milliseconds()))
	case c.ShellTimeout > 0 && c.ShellMaxTimeout > 0 && c.ShellTimeout > c.ShellMaxTimeout:
		return configError(k("shell_timeout_ms"), fmt.Sprintf("must not exceed shell_max_timeout_ms (%d), got %d", c.ShellMaxTimeout.Milliseconds(), c.ShellTimeout.Milliseconds()))
	case c.ShellMaxWriteBytes < 0:
		return configError(k("shell_max_write_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultShellMaxWriteBytes, c.ShellMaxWriteBytes))
	case c.ShellMaxOutputBytes < 0:
		return configError(k("shell_max_output_bytes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultShellMaxOutput, c.ShellMaxOutputBytes))
	case c.ShellMaxSteps < 0:
		return configError(k("shell_max_steps"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultShellMaxSteps, c.ShellMaxSteps))
	case c.ShellMaxPipes < 0:
		return configError(k("shell_max_pipes"), fmt.Sprintf("must be >= 0 (0: the default %d), got %d", DefaultShellMaxPipes, c.ShellMaxPipes))
	}
	return nil
}

// ConcurrentCalls is MaxConcurrentCalls, or half of GOMAXPROCS (at least 1) when it is 0:
// the number of calls of one tenant that run at once.
func (c Config) ConcurrentCalls() int {
	if c.MaxConcurrentCalls > 0 {
		return c.MaxConcurrentCalls
	}
	return max(runtime.GOMAXPROCS(0)/2, 1)
}

func configError(key, msg string) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeInvalidConfig, key+": "+msg, key)
}

// grepBounds are the Grep and Glob limits in effect.
type grepBounds struct {
	limitDefault, max int
	answerBytes       int64
	scanBytes         int64
	timeout           time.Duration
}

// withGrepDefaults returns c with the default of every field left 0 whose 0 means the default
// (the Grep, archive, patch, feed, rewind, count-quota and checkpoint fields).
func (c Config) withGrepDefaults() Config {
	or := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	c.GrepLimitMax = int(or(int64(c.GrepLimitMax), DefaultGrepLimitMax))
	c.GrepLimitDefault = min(int(or(int64(c.GrepLimitDefault), DefaultGrepLimit)), c.GrepLimitMax)
	c.GrepMaxAnswerBytes = or(c.GrepMaxAnswerBytes, DefaultGrepMaxAnswerBytes)
	c.GrepMaxScanBytes = or(c.GrepMaxScanBytes, DefaultGrepMaxScanBytes)
	c.GrepTimeout = time.Duration(or(int64(c.GrepTimeout), int64(DefaultGrepTimeout)))
	c.FeedMaxWait = time.Duration(or(int64(c.FeedMaxWait), int64(DefaultFeedMaxWait)))
	c.MaxFeedWaits = int(or(int64(c.MaxFeedWaits), DefaultMaxFeedWaits))
	c.MaxRewindFiles = int(or(int64(c.MaxRewindFiles), DefaultMaxRewindFiles))
	c.MaxPatchBytes = or(c.MaxPatchBytes, DefaultMaxPatchBytes)
	c.MaxPatchFiles = int(or(int64(c.MaxPatchFiles), DefaultMaxPatchFiles))
	c.MaxArchiveBytes = or(c.MaxArchiveBytes, DefaultMaxArchiveBytes)
	c.ArchiveTimeout = time.Duration(or(int64(c.ArchiveTimeout), int64(DefaultArchiveTimeout)))
	c.MaxArchiveEntries = int(or(int64(c.MaxArchiveEntries), DefaultMaxArchiveEntries))
	c.MaxArchiveDirectoryBytes = or(c.MaxArchiveDirectoryBytes, DefaultMaxArchiveDirBytes)
	c.MaxConcurrentArchives = int(or(int64(c.MaxConcurrentArchives), DefaultMaxConcurrentArchives))
	c.MaxProjectFiles = or(c.MaxProjectFiles, DefaultMaxProjectFiles)
	c.MaxTenantFiles = or(c.MaxTenantFiles, DefaultMaxTenantFiles)
	c.MaxTenantProjects = or(c.MaxTenantProjects, DefaultMaxTenantProjects)
	c.MaxCheckpoints = int(or(int64(c.MaxCheckpoints), DefaultMaxCheckpoints))
	c.ShellMaxTimeout = time.Duration(or(int64(c.ShellMaxTimeout), int64(DefaultShellMaxTimeout)))
	c.ShellTimeout = min(time.Duration(or(int64(c.ShellTimeout), int64(DefaultShellTimeout))), c.ShellMaxTimeout)
	c.ShellMaxWriteBytes = or(c.ShellMaxWriteBytes, DefaultShellMaxWriteBytes)
	c.ShellMaxOutputBytes = or(c.ShellMaxOutputBytes, DefaultShellMaxOutput)
	c.ShellMaxSteps = or(c.ShellMaxSteps, DefaultShellMaxSteps)
	c.ShellMaxPipes = int(or(int64(c.ShellMaxPipes), DefaultShellMaxPipes))
	return c
}

func (c Config) grepLimits() grepBounds {
	c = c.withGrepDefaults()
	return grepBounds{limitDefault: c.GrepLimitDefault, max: c.GrepLimitMax, answerBytes: c.GrepMaxAnswerBytes,
		scanBytes: c.GrepMaxScanBytes, timeout: c.GrepTimeout}
}
