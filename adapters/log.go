package adapters

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles/internal/redact"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// alwaysRedacted are argument names whose values no binding ever logs.
var alwaysRedacted = []string{"content", "api_key", "apiKey", "token"}

// Bounds of what LogArgs and LogError write: a log record shows the shape of a call, never a
// payload.
const (
	maxLogArgs       = 32   // arguments logged; the rest are counted
	maxLogValueBytes = 256  // preview of an argument value that is not redacted
	maxLogErrorBytes = 1024 // error text
)

// LogArgs returns a log value for a tool call's arguments with every redacted field replaced
// by its length in bytes, so that logs show the shape of a call but never file contents or keys.
// Names are redacted whatever their case ("Content" as "content"), since JSON decoding matches
// field names without regard to case. Other values, and names, are cut to a short preview in
// which anything that looks like a key or bearer token is redacted; at most 32 arguments are
// listed. Arguments that are not a JSON object are logged only by size.
func LogArgs(t Tool, args json.RawMessage) slog.Value {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return slog.GroupValue(slog.Int("bytes", len(args)))
	}
	attrs := make([]slog.Attr, 0, min(len(m), maxLogArgs+1))
	for i, k := range sortedKeys(m) {
		if i == maxLogArgs {
			attrs = append(attrs, slog.Int("more_args", len(m)-maxLogArgs))
			break
		}
		v := m[k]
		name := utf8cut.Shorten(k, maxNameBytes, "…")
		if redactedName(t, k) {
			attrs = append(attrs, slog.String(name, "[redacted "+strconv.Itoa(len(v))+" bytes]"))
			continue
		}
		// A preview, with anything that looks like a key or bearer token redacted.
		preview := utf8cut.Shorten(string(v), maxLogValueBytes, "…(truncated=true)")
		attrs = append(attrs, slog.String(name, redact.Secrets(preview, "")))
	}
	return slog.GroupValue(attrs...)
}

// LogError is the text of a tool call's error for a log record: err.Error() cut to 1 KiB.
func LogError(err error) string {
	if err == nil {
		return ""
	}
	return utf8cut.Shorten(err.Error(), maxLogErrorBytes, "…(truncated=true)")
}

func redactedName(t Tool, k string) bool {
	for _, list := range [][]string{alwaysRedacted, t.RedactArgs} {
		if slices.ContainsFunc(list, func(r string) bool { return strings.EqualFold(r, k) }) {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
