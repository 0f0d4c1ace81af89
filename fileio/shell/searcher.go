package shell

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
)

// searcher is the project's grep engine as rg and grep -r see it (commands.Searcher): the
// snapshot's candidates from the store's index (pgstore's trigram index, memstore's substring
// filter), less the files the command removed, plus every file it wrote below the directory.
// It reads the candidates' contents ahead, a window of aheadFiles at a time (in batches of a
// few dozen files per round trip), as the command reads them in order, and forgets each
// window once the command has moved past it: a search reads no file twice and holds one
// window in memory, whatever the number of candidates.
type searcher struct {
	r *run

	mu     sync.Mutex
	order  map[string]int // the position of each candidate still to read ahead
	paths  []string       // the candidates of the last Candidates, in order
	window []string       // the candidates read ahead and not yet forgotten
	next   int            // the position of the first candidate not read ahead
}

// aheadFiles is how many candidates one window reads ahead.
const aheadFiles = 256

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
	s.mu.Lock()
	s.paths, s.next, s.order = paths, 0, make(map[string]int, len(paths))
	for i, c := range paths {
		s.order[c] = i
	}
	s.mu.Unlock()
	if err := s.readAhead(ctx, 0); err != nil {
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

// beforeRead reads the next window ahead when the command is about to read a candidate that
// is past the current one.
func (s *searcher) beforeRead(ctx context.Context, p string) error {
	s.mu.Lock()
	i, ok := s.order[p]
	due := ok && i >= s.next
	s.mu.Unlock()
	if !due {
		return nil
	}
	return s.readAhead(ctx, i)
}

// readAhead forgets the current window and reads the window starting at candidate from.
func (s *searcher) readAhead(ctx context.Context, from int) error {
	s.mu.Lock()
	old := s.window
	end := min(from+aheadFiles, len(s.paths))
	s.window = s.paths[from:end]
	s.next = end
	s.mu.Unlock()
	sn := s.r.overlay.sn
	sn.Forget(old)
	_, err := sn.ReadFiles(ctx, s.window)
	return err
}
