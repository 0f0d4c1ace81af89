package consult

import (
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/gobwas/glob"
)

// DefaultIgnore is the ignore list every [Expander] starts from. Each item is a file-name
// pattern (gobwas/glob syntax) matched against every element of a path, so ".git" hides
// /repo/.git/config as well as a file named .git. It applies to explicit paths too: secrets and
// build output are never sent to a model by accident. Extend it with [ExpanderOptions.Ignore] or
// replace it with [ExpanderOptions.NoDefaultIgnore].
var DefaultIgnore = []string{
	".git", ".hg", ".svn",
	"__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
	"node_modules", ".venv",
	".env", ".env.*", "secrets.*", "*.pem", "id_rsa", "id_ed25519", ".netrc",
	".DS_Store", "Thumbs.db",
}

// ignoreSet matches names against an ignore list: plain names through a map, patterns through
// compiled globs.
type ignoreSet struct {
	exact    map[string]string // name -> the list item that names it
	patterns []*glob.Pattern
}

func newIgnoreSet(items []string) (ignoreSet, error) {
	s := ignoreSet{exact: make(map[string]string)}
	for _, it := range items {
		if it == "" || strings.Contains(it, "/") {
			return s, agentfiles.NewError(agentfiles.CodeInvalidArgument,
				"ignore items are single file names or name patterns such as node_modules or *.pyc", it)
		}
		if !strings.ContainsAny(it, `*?[{\`) {
			s.exact[it] = it
			continue
		}
		g, err := glob.Compile(it)
		if err != nil {
			return s, agentfiles.WrapError(agentfiles.CodeInvalidArgument, "ignore pattern does not compile: "+err.Error(), it, err)
		}
		s.patterns = append(s.patterns, g)
	}
	return s, nil
}

// match returns the ignore item that matches name, or "".
func (s ignoreSet) match(name string) string {
	if it, ok := s.exact[name]; ok {
		return it
	}
	for _, g := range s.patterns {
		if g.Match(name) {
			return g.String()
		}
	}
	return ""
}

// matchPath returns the ignore item matching any element of the absolute path p, or "".
func (s ignoreSet) matchPath(p string) string {
	for p != "" {
		i := strings.LastIndexByte(p, '/')
		if it := s.match(p[i+1:]); it != "" {
			return it
		}
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}
