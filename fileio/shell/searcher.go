package shell

import (
	"context"
	"slices"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
)

// searcher is the project's grep engine as rg and grep -r see it (commands.Searcher): the
// snapshot's candidates from the store's index (pgstore's trigram index, memstore's substring
// filter), less the files the command removed, plus every file it wrote below the directory.
// It reads the candidates' contents ahead in batches, so that the command's reads of them do
// not cost a round trip each.
type searcher struct{ r *run }

var _ commands.Searcher = (*searcher)(nil)

// Candidates implements commands.Searcher.
func (s *searcher) Candidates(ctx context.Context, dir, re string, ignoreCase bool) ([]string, bool, error) {
	o := s.r.overlay
	p := clean(dir)
	paths, complete, err := o.sn.Candidates(ctx, p, re, ignoreCase)
	if err != nil {
		err = o.snapErr("search", p, err)
		return nil, false, err
	}
	if !complete {
		return nil, false, nil
	}
	if _, err := o.sn.ReadFiles(ctx, paths); err != nil {
		return nil, false, o.snapErr("search", p, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	prefix := strings.TrimSuffix(p, "/") + "/"
	out := paths[:0:0]
	for _, c := range paths {
		if e := o.files[c]; e == nil {
			out = append(out, c)
		}
	}
	for q, e := range o.files {
		if !e.deleted && (q == p || strings.HasPrefix(q, prefix)) {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true, nil
}
