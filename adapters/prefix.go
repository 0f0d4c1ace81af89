package adapters

import (
	"regexp"
	"strings"
)

// WithPrefix returns copies of tools whose names start with prefix, for a server that serves
// several tool families side by side: WithPrefix(fileidtools.Tools(reg), "docs_") serves
// docs_search next to file_search. Mentions of the set's own tools in the descriptions follow
// (read_sections becomes docs_read_sections) when the name has an underscore; a one-word name
// such as search is left alone in prose, where it is also an ordinary word. An empty prefix
// returns tools unchanged. The prefix should be snake_case and end in "_".
func WithPrefix(tools []Tool, prefix string) []Tool {
	if prefix == "" {
		return tools
	}
	var names []string
	for _, t := range tools {
		if strings.Contains(t.Name, "_") {
			names = append(names, regexp.QuoteMeta(t.Name))
		}
	}
	var mention *regexp.Regexp
	if len(names) > 0 {
		mention = regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	}
	out := make([]Tool, len(tools))
	for i, t := range tools {
		t.Name = prefix + t.Name
		if mention != nil {
			t.Description = mention.ReplaceAllString(t.Description, prefix+"$1")
		}
		out[i] = t
	}
	return out
}
