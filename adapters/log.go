package adapters

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
)

// alwaysRedacted are argument names whose values no binding ever logs.
var alwaysRedacted = []string{"content", "api_key", "apiKey", "token"}

// LogArgs returns a log value for a tool call's arguments with every redacted field replaced
// by its length in bytes, so that logs show the shape of a call but never file contents or keys.
// Arguments that are not a JSON object are logged only by size.
func LogArgs(t Tool, args json.RawMessage) slog.Value {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return slog.GroupValue(slog.Int("bytes", len(args)))
	}
	attrs := make([]slog.Attr, 0, len(m))
	for _, k := range sortedKeys(m) {
		v := m[k]
		if slices.Contains(alwaysRedacted, k) || slices.Contains(t.RedactArgs, k) {
			attrs = append(attrs, slog.String(k, "[redacted "+strconv.Itoa(len(v))+" bytes]"))
			continue
		}
		s := string(v)
		if len(s) > 256 {
			s = s[:256] + "…(truncated=true)"
		}
		attrs = append(attrs, slog.String(k, s))
	}
	return slog.GroupValue(attrs...)
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
