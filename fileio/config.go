package fileio

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Config holds the limits and switches of a Service. Start from DefaultConfig and change
// fields, or load the `settings.mcp.files` section of a service configuration file with
// LoadConfig. Environment variables are never consulted.
//
// The YAML key of each field is given in its comment.
type Config struct {
	// AllowRootWipe lets Delete("", recursive=true) remove every file of a project.
	// Key allow_root_wipe; default false (deleting the root is PERMISSION_DENIED).
	AllowRootWipe bool
	// MaxPayloadBytes caps the content of one write. Key max_payload_bytes; default 2 MiB.
	MaxPayloadBytes int64
	// MaxFileBytes caps the size of one file. Key max_file_bytes; default 10 MiB.
	MaxFileBytes int64
	// MaxProjectBytes caps the total size of a project's files. Key max_project_bytes;
	// default 100 MiB.
	MaxProjectBytes int64
	// MaxReadBytes caps the content returned by one read (longer reads are clamped and
	// report Truncated). Key max_read_bytes; default 2 MiB.
	MaxReadBytes int64
	// ListLimitDefault is the List limit when the caller gives none. Key list_limit_default;
	// default 256.
	ListLimitDefault int
	// ListLimitMax is the largest List limit; larger requests are clamped. Key list_limit_max;
	// default 1024.
	ListLimitMax int
	// LockTimeout bounds the wait for a project's write lock (RESOURCE_BUSY on expiry). The
	// Service does not use it itself: pass it to the store (memstore.WithLockTimeout,
	// pgstore options). Key lock_timeout_ms; default 5000.
	LockTimeout time.Duration
	// DeleteRetention is how long soft-deleted rows are kept before a store purges them.
	// Like LockTimeout it is for the store. Key delete_retention_days; default 7.
	DeleteRetention time.Duration
	// RateLimitPerSecond is the sustained number of operations per second allowed per tenant
	// (token bucket keyed by AuthContext.APIKeyHash); 0 disables rate limiting.
	// Key rate_limit_per_second; default 100.
	RateLimitPerSecond float64
	// RateLimitBurst is the bucket size: operations a tenant may make at once.
	// Key rate_limit_burst; default 200.
	RateLimitBurst int
	// LogContentSHA256 adds the SHA-256 of written content to log records.
	// Key log_content_sha256; default false.
	LogContentSHA256 bool
	// LogPreviewBytes adds a preview of at most this many bytes (0..256) of written content
	// to log records, marked truncated=true when cut. Key log_preview_bytes; default 0: no
	// content ever reaches the logs.
	LogPreviewBytes int
}

// Defaults, also the values DefaultConfig returns.
const (
	DefaultMaxPayloadBytes    = 2 << 20
	DefaultMaxFileBytes       = 10 << 20
	DefaultMaxProjectBytes    = 100 << 20
	DefaultMaxReadBytes       = 2 << 20
	DefaultListLimit          = 256
	DefaultListLimitMax       = 1024
	DefaultLockTimeout        = 5 * time.Second
	DefaultDeleteRetention    = 7 * 24 * time.Hour
	DefaultRateLimitPerSecond = 100
	DefaultRateLimitBurst     = 200
	// MaxLogPreviewBytes is the largest allowed LogPreviewBytes (seed §11).
	MaxLogPreviewBytes = 256
	// HardListLimitMax is the largest value list_limit_max may take.
	HardListLimitMax = 100000
)

// DefaultConfig returns the safe defaults listed on Config.
func DefaultConfig() Config {
	return Config{
		MaxPayloadBytes:    DefaultMaxPayloadBytes,
		MaxFileBytes:       DefaultMaxFileBytes,
		MaxProjectBytes:    DefaultMaxProjectBytes,
		MaxReadBytes:       DefaultMaxReadBytes,
		ListLimitDefault:   DefaultListLimit,
		ListLimitMax:       DefaultListLimitMax,
		LockTimeout:        DefaultLockTimeout,
		DeleteRetention:    DefaultDeleteRetention,
		RateLimitPerSecond: DefaultRateLimitPerSecond,
		RateLimitBurst:     DefaultRateLimitBurst,
	}
}

// ConfigPrefix is the YAML path of the section LoadConfig reads.
const ConfigPrefix = "settings.mcp.files"

// Sub-trees of settings.mcp.files owned by package search; LoadConfig skips them.
var foreignConfigKeys = map[string]bool{"search": true, "index": true, "security": true}

// LoadConfig reads a service configuration YAML document and returns the Config of its
// settings.mcp.files section: defaults for missing keys, then Validate. Keys outside that
// section, and its search, index and security sub-trees (package search's), are ignored;
// any other unknown key under settings.mcp.files is an error naming it. A missing section
// yields DefaultConfig. Errors are *Error with code INVALID_ARGUMENT.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, WrapError(CodeInvalidArgument, "cannot read the configuration", "", err)
	}
	cfg := DefaultConfig()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, WrapError(CodeInvalidArgument, "configuration is not valid YAML: "+err.Error(), "", err)
	}
	section, err := findSection(&doc, "settings", "mcp", "files")
	if err != nil || section == nil {
		return cfg, err
	}
	if section.Kind != yaml.MappingNode {
		return Config{}, configError(ConfigPrefix, "must be a mapping of keys to values")
	}
	for i := 0; i+1 < len(section.Content); i += 2 {
		key, val := section.Content[i].Value, section.Content[i+1]
		if foreignConfigKeys[key] {
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
		return Config{}, WrapError(CodeInvalidArgument, "cannot open the configuration file: "+err.Error(), path, err)
	}
	defer f.Close()
	return LoadConfig(f)
}

// findSection walks mapping keys from the document root; nil when a level is missing.
func findSection(doc *yaml.Node, keys ...string) (*yaml.Node, error) {
	n := doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, nil
		}
		n = n.Content[0]
	}
	for depth, k := range keys {
		if n.Kind != yaml.MappingNode {
			if n.Tag == "!!null" {
				return nil, nil
			}
			return nil, configError(joinKeys(keys[:depth]), "must be a mapping")
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil || next.Tag == "!!null" {
			return nil, nil
		}
		n = next
	}
	return n, nil
}

func joinKeys(keys []string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += "."
		}
		s += k
	}
	if s == "" {
		return "(document)"
	}
	return s
}

func (c *Config) setKey(key string, val *yaml.Node) error {
	full := ConfigPrefix + "." + key
	var err error
	switch key {
	case "allow_root_wipe":
		err = val.Decode(&c.AllowRootWipe)
	case "max_payload_bytes":
		err = val.Decode(&c.MaxPayloadBytes)
	case "max_file_bytes":
		err = val.Decode(&c.MaxFileBytes)
	case "max_project_bytes":
		err = val.Decode(&c.MaxProjectBytes)
	case "max_read_bytes":
		err = val.Decode(&c.MaxReadBytes)
	case "list_limit_default":
		err = val.Decode(&c.ListLimitDefault)
	case "list_limit_max":
		err = val.Decode(&c.ListLimitMax)
	case "lock_timeout_ms":
		var ms int64
		if err = val.Decode(&ms); err == nil {
			c.LockTimeout = time.Duration(ms) * time.Millisecond
		}
	case "delete_retention_days":
		var days int64
		if err = val.Decode(&days); err == nil {
			c.DeleteRetention = time.Duration(days) * 24 * time.Hour
		}
	case "rate_limit_per_second":
		err = val.Decode(&c.RateLimitPerSecond)
	case "rate_limit_burst":
		err = val.Decode(&c.RateLimitBurst)
	case "log_content_sha256":
		err = val.Decode(&c.LogContentSHA256)
	case "log_preview_bytes":
		err = val.Decode(&c.LogPreviewBytes)
	default:
		return configError(full, "unknown key; valid keys are allow_root_wipe, max_payload_bytes, max_file_bytes, "+
			"max_project_bytes, max_read_bytes, list_limit_default, list_limit_max, lock_timeout_ms, "+
			"delete_retention_days, rate_limit_per_second, rate_limit_burst, log_content_sha256, log_preview_bytes "+
			"(and the search, index and security sections)")
	}
	if err != nil {
		return configError(full, fmt.Sprintf("cannot use %q (line %d): wrong type for this key", val.Value, val.Line))
	}
	return nil
}

// Validate checks the ranges of every field and returns an INVALID_ARGUMENT *Error naming
// the YAML key of the first bad one.
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
	case c.ListLimitMax < 1 || c.ListLimitMax > HardListLimitMax:
		return configError(k("list_limit_max"), fmt.Sprintf("must be between 1 and %d, got %d", HardListLimitMax, c.ListLimitMax))
	case c.ListLimitDefault < 1 || c.ListLimitDefault > c.ListLimitMax:
		return configError(k("list_limit_default"), fmt.Sprintf("must be between 1 and list_limit_max (%d), got %d", c.ListLimitMax, c.ListLimitDefault))
	case c.LockTimeout <= 0:
		return configError(k("lock_timeout_ms"), fmt.Sprintf("must be > 0 milliseconds, got %d", c.LockTimeout.Milliseconds()))
	case c.DeleteRetention < 0:
		return configError(k("delete_retention_days"), fmt.Sprintf("must be >= 0, got %d", int64(c.DeleteRetention/(24*time.Hour))))
	case c.RateLimitPerSecond < 0:
		return configError(k("rate_limit_per_second"), fmt.Sprintf("must be >= 0 (0 disables), got %g", c.RateLimitPerSecond))
	case c.RateLimitPerSecond > 0 && c.RateLimitBurst < 1:
		return configError(k("rate_limit_burst"), fmt.Sprintf("must be >= 1 when rate_limit_per_second is set, got %d", c.RateLimitBurst))
	case c.LogPreviewBytes < 0 || c.LogPreviewBytes > MaxLogPreviewBytes:
		return configError(k("log_preview_bytes"), fmt.Sprintf("must be between 0 and %d, got %d", MaxLogPreviewBytes, c.LogPreviewBytes))
	}
	return nil
}

func configError(key, msg string) *Error {
	return NewError(CodeInvalidArgument, key+": "+msg, key)
}
