// Package settingsdoc finds the settings.mcp.files section of a service configuration document
// for the two packages that read it (fileio and search), refusing the same mistakes on the way
// down in both: a key under settings: other than mcp, a key under settings.mcp: other than
// files, and a settings.mcp.files key written at the top level.
package settingsdoc

import (
	"fmt"
	"slices"

	"github.com/agentfiles/agentfiles"
	"gopkg.in/yaml.v3"
)

// Example is the shape of the section, for messages.
const Example = "settings: {mcp: {files: {…}}}"

// Files returns the settings.mcp.files mapping of doc (a document node or its root mapping),
// or nil when the document has no such section. Top-level keys other than settings belong to the
// application and are left alone, except the names in misplaced: keys of settings.mcp.files
// written at the top level. Errors are INVALID_CONFIG *agentfiles.Error values whose Arg is the
// key and whose message names the key, its line, and where the key belongs.
func Files(doc *yaml.Node, misplaced ...string) (*yaml.Node, error) {
	n := doc
	if n.Kind == 0 { // an empty document
		return nil, nil
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, nil
		}
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		if n.Tag == "!!null" {
			return nil, nil
		}
		return nil, keyError("(document)", n.Line, "must be a mapping of keys, as in "+Example)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; slices.Contains(misplaced, k.Value) {
			return nil, keyError(k.Value, k.Line, fmt.Sprintf("is a key of settings.mcp.files, not of the top level; write it as settings: {mcp: {files: {%s: …}}}", k.Value))
		}
	}
	for _, level := range []struct{ parent, only string }{{"", "settings"}, {"settings", "mcp"}, {"settings.mcp", "files"}} {
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			switch {
			case k.Value == level.only:
				next = n.Content[i+1]
			case level.parent != "":
				return nil, keyError(level.parent+"."+k.Value, k.Line, fmt.Sprintf("unknown key; %s holds only %s, as in %s", level.parent, level.only, Example))
			}
		}
		if next == nil || next.Tag == "!!null" {
			return nil, nil
		}
		name := level.only
		if level.parent != "" {
			name = level.parent + "." + level.only
		}
		if next.Kind != yaml.MappingNode {
			return nil, keyError(name, next.Line, "must be a mapping, as in "+Example)
		}
		n = next
	}
	return n, nil
}

func keyError(key string, line int, msg string) *agentfiles.Error {
	return agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("%s (line %d): %s", key, line, msg), key)
}
