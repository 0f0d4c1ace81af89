package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The configuration file (-config) holds every setting of the server in one YAML document: the
// keys below, each the twin of a flag, and the settings.mcp.files section (file limits,
// search, index, security), which fileio.LoadConfigFile and search.LoadConfigFile read. A flag
// given on the command line wins over its key. config.example.yaml lists them all, commented.

// fileKey ties a YAML key (dotted path) to the flag it sets.
type fileKey struct {
	key  string // e.g. "server.addr"
	flag string // e.g. "addr"
}

// fileKeys are the server's own keys; a key whose flag is repeatable takes a list.
var fileKeys = []fileKey{
	{"server.addr", "addr"},
	{"server.log_level", "log-level"},
	{"server.max_body_bytes", "max-body-bytes"},
	{"server.read_header_timeout", "read-header-timeout"},
	{"server.read_timeout", "read-timeout"},
	{"server.write_timeout", "write-timeout"},
	{"server.idle_timeout", "idle-timeout"},
	{"auth.dev_token", "dev-token"},
	{"auth.token_file", "token-file"},
	{"auth.accept_any_token", "accept-any-token"},
	{"auth.mcp_anonymous", "mcp-anonymous"},
	{"storage.database_url", "database-url"},
	{"storage.database_max_conns", "database-max-conns"},
	{"storage.grep_cache_mb", "grep-cache-mb"},
	{"storage.redis_url", "redis-url"},
	{"docs.dirs", "docs"},
	{"docs.tool_prefix", "docs-tool-prefix"},
	{"catalog.file", "catalog"},
	{"catalog.writable", "catalog-writable"},
	{"consult.model", "consult-model"},
	{"consult.base_url", "consult-base-url"},
	{"consult.context_tokens", "consult-context-tokens"},
	{"consult.roots", "consult-root"},
	{"embeddings.url", "embeddings-url"},
	{"embeddings.model", "embeddings-model"},
	{"embeddings.dims", "embeddings-dims"},
	{"embeddings.rerank", "rerank"},
}

// keyOfFlag returns the YAML key of a flag, or "" when it has none.
func keyOfFlag(name string) string {
	for _, k := range fileKeys {
		if k.flag == name {
			return k.key
		}
	}
	return ""
}

// flagRef names a setting for an error message: "-flag" or "-flag (YAML key a.b)".
func flagRef(name string) string {
	if k := keyOfFlag(name); k != "" {
		return "-" + name + " (" + k + ")"
	}
	return "-" + name
}

// applyConfigFile sets every flag not given on the command line (set) from the file's keys.
// Unknown keys and values a flag refuses are errors naming the key and its line.
func applyConfigFile(fs *flag.FlagSet, path string, set map[string]bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("-config %s is not valid YAML: %v", path, err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("-config %s: the document must be a mapping of keys (server:, auth:, settings:, …)", path)
	}
	sections := map[string][]string{"settings": nil}
	for _, k := range fileKeys {
		sec, name, _ := strings.Cut(k.key, ".")
		sections[sec] = append(sections[sec], name)
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		secName, sec := top.Content[i].Value, top.Content[i+1]
		names, ok := sections[secName]
		if !ok {
			hint := " (file limits, search, index and security go under settings.mcp.files; see config.example.yaml)"
			if home := sectionOf(secName); home != "" {
				hint = "; did you mean " + home + "." + secName + "?"
			}
			return fmt.Errorf("-config %s: unknown key %q (line %d); the keys are %s%s", path, secName, top.Content[i].Line, strings.Join(sortedKeys(sections), ", "), hint)
		}
		if secName == "settings" || sec.Tag == "!!null" {
			continue // settings.mcp.files: read by fileio and search
		}
		if sec.Kind != yaml.MappingNode {
			return fmt.Errorf("-config %s: %s (line %d) must be a mapping, e.g. %s: {%s: …}", path, secName, sec.Line, secName, names[0])
		}
		for j := 0; j+1 < len(sec.Content); j += 2 {
			name, val := sec.Content[j].Value, sec.Content[j+1]
			key := secName + "." + name
			if !slices.Contains(names, name) {
				hint := ""
				if home := sectionOf(name); home != "" {
					hint = "; did you mean " + home + "." + name + "?"
				}
				return fmt.Errorf("-config %s: unknown key %s (line %d); %s has %s%s", path, key, sec.Content[j].Line, secName, strings.Join(names, ", "), hint)
			}
			fl := ""
			for _, k := range fileKeys {
				if k.key == key {
					fl = k.flag
				}
			}
			if set[fl] || val.Tag == "!!null" {
				continue // the command line wins; an empty key means the default
			}
			values := []*yaml.Node{val}
			if val.Kind == yaml.SequenceNode {
				values = val.Content
			}
			for _, v := range values {
				if v.Kind != yaml.ScalarNode {
					return fmt.Errorf("-config %s: %s (line %d) must be a single value or a list of values", path, key, v.Line)
				}
				if err := fs.Set(fl, v.Value); err != nil {
					return fmt.Errorf("-config %s: %s (line %d): cannot use %q: %v; write %s (the key sets -%s)", path, key, v.Line, v.Value, unwrapFlagError(err), valueForm(fs.Lookup(fl)), fl)
				}
			}
		}
	}
	return nil
}

// sectionOf returns the section that holds a key named name (storage for database_url), or "".
func sectionOf(name string) string {
	for _, k := range fileKeys {
		if sec, n, _ := strings.Cut(k.key, "."); n == name {
			return sec
		}
	}
	return ""
}

// valueForm says, for a message, the form a flag's value takes.
func valueForm(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a value such as " + f.DefValue
	}
	switch g.Get().(type) {
	case time.Duration:
		return "a duration such as 30s or 2m"
	case bool:
		return "true or false"
	case int64, int:
		if strings.HasSuffix(f.Name, "-bytes") {
			return "a byte count such as 10485760"
		}
		return "a whole number such as 1536"
	}
	return "a value such as " + f.DefValue
}

// unwrapFlagError drops the flag package's wrapping ("parse error") to the cause.
func unwrapFlagError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
