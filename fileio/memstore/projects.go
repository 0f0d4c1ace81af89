package memstore

import (
	"context"
	"slices"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

var _ driver.ProjectLister = (*Store)(nil)

// ListProjects implements driver.ProjectLister: the projects of tenant with at least one
// committed active file, sorted, at most limit (limit <= 0: all).
func (s *Store) ListProjects(ctx context.Context, tenant string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	var candidates []*project
	var names []string
	for scope, p := range s.projects {
		if scope.Tenant == tenant {
			candidates = append(candidates, p)
			names = append(names, scope.Project)
		}
	}
	s.mu.Unlock()
	out := []string{}
	for i, p := range candidates {
		p.mu.RLock()
		n := len(p.files)
		p.mu.RUnlock()
		if n > 0 {
			out = append(out, names[i])
		}
	}
	slices.Sort(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
