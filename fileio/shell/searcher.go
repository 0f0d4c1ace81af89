package shell

import "context"

// searcher is the project's grep engine as rg and grep -r see it (commands.Searcher).
type searcher struct{ r *run }

// Candidates implements commands.Searcher.
func (s *searcher) Candidates(ctx context.Context, dir, re string, ignoreCase bool) ([]string, bool, error) {
	return nil, false, nil
}
