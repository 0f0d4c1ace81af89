package search

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// activeFiles is the store's listing of a project's active files, sorted by path, so a query
// looks versions up by binary search instead of building a map of every file.
type activeFiles []driver.FileInfo

func byPath(a, b driver.FileInfo) int { return strings.Compare(a.Path, b.Path) }

// newActiveFiles takes a Store.List result (sorted by path per the Store contract; sorted here
// if a store gets that wrong).
func newActiveFiles(files []driver.FileInfo) activeFiles {
	if !slices.IsSortedFunc(files, byPath) {
		slices.SortFunc(files, byPath)
	}
	return files
}

// listActive reads the active files of scope below prefix from store, in one read transaction.
func listActive(ctx context.Context, store driver.Store, scope driver.Scope, prefix string) (activeFiles, error) {
	var active activeFiles
	err := store.View(ctx, scope, func(tx driver.ReadTx) error {
		files, err := tx.List(ctx, prefix, 0)
		active = newActiveFiles(files)
		return err
	})
	return active, err
}

// current reports whether path is active at version v.
func (a activeFiles) current(path string, v time.Time) bool {
	i, ok := activeFileIndex(a, path)
	return ok && a[i].UpdatedAt.Equal(v)
}

// diff compares the listing with the index's file states. exclude holds the indexed files whose
// chunks must not be returned (deleted, or indexed at another version or by another analysis,
// see FileState.Current); pending holds the active files not indexed at their current version
// by today's analysis. It costs one map lookup per active file,
// plus one binary search per indexed file only when some indexed file is no longer active.
func (a activeFiles) diff(states map[string]indexdriver.FileState) (exclude map[string]bool, pending []driver.FileInfo) {
	exclude = make(map[string]bool)
	current := 0
	for _, f := range a {
		st, ok := states[f.Path]
		switch {
		case !ok:
			pending = append(pending, f)
		case !st.Current(f.UpdatedAt):
			pending = append(pending, f)
			exclude[f.Path] = true
		default:
			current++
		}
	}
	if current+len(exclude) == len(states) {
		return exclude, pending // every indexed file is active
	}
	for p := range states {
		if _, ok := activeFileIndex(a, p); !ok {
			exclude[p] = true
		}
	}
	return exclude, pending
}

// diffSorted is diff for states sorted by path (from a FileStateLister): one merge of the two
// sorted lists, with no map except the (usually small) exclusion set.
func (a activeFiles) diffSorted(states []indexdriver.PathFileState) (exclude map[string]bool, pending []driver.FileInfo) {
	exclude = make(map[string]bool)
	i, j := 0, 0
	for i < len(a) || j < len(states) {
		switch {
		case j == len(states) || i < len(a) && a[i].Path < states[j].Path: // not indexed
			pending = append(pending, a[i])
			i++
		case i == len(a) || states[j].Path < a[i].Path: // indexed, no longer active
			exclude[states[j].Path] = true
			j++
		default:
			if !states[j].Current(a[i].UpdatedAt) { // indexed at another version or analysis
				pending = append(pending, a[i])
				exclude[a[i].Path] = true
			}
			i++
			j++
		}
	}
	return exclude, pending
}

// activeFileIndex finds path in a by binary search.
func activeFileIndex(a activeFiles, path string) (int, bool) {
	return slices.BinarySearchFunc(a, path, func(f driver.FileInfo, p string) int { return strings.Compare(f.Path, p) })
}

// maxScopeJobs bounds how many of a project's pending index jobs a query reads (newest first).
// Beyond it, older pending files are neither scanned nor excluded up front; the liveness check
// of the candidates still drops every stale chunk, so only recall of a huge backlog suffers.
const maxScopeJobs = 10_000

// notCurrent returns the indexed files whose chunks a query must not serve (exclude) and the
// files to scan lexically instead (pending): those with a pending index job (from the store's
// outbox, driver.ScopeJobLister) and those indexed by an older analysis than today's. Neither
// lists the project's files, so the cost follows the backlog, not the project's size. A store
// without ScopeJobLister gets the portable path: the project's listing diffed with the index's
// file states.
func (s *Searcher) notCurrent(ctx context.Context, scope driver.Scope, prefix string) (map[string]bool, []driver.FileInfo, error) {
	jl, ok := s.store.(driver.ScopeJobLister)
	if !ok {
		active, err := listActive(ctx, s.store, scope, prefix)
		if err != nil {
			return nil, nil, backendError("listing the project's files failed", err)
		}
		exclude, pending, err := s.staleAndPending(ctx, scope, prefix, active)
		if err != nil {
			return nil, nil, backendError("reading the search index failed", err)
		}
		return exclude, pending, nil
	}
	// The store's jobs and the index's states are independent reads: run them concurrently.
	var (
		jobs    []driver.Job
		jobsErr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		jobs, jobsErr = jl.ScopeJobs(ctx, scope, prefix, maxScopeJobs)
	}()
	lookup, older, err := s.indexedStates(ctx, scope, prefix)
	<-done
	if jobsErr != nil {
		return nil, nil, backendError("reading the project's pending index jobs failed", jobsErr)
	}
	if err != nil {
		return nil, nil, backendError("reading the search index failed", err)
	}
	exclude := make(map[string]bool)
	var pending []driver.FileInfo
	seen := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		seen[j.Path] = true
		st, indexed := lookup(j.Path)
		switch {
		case j.Op == driver.JobDelete:
			if indexed {
				exclude[j.Path] = true
			}
		case indexed && st.Current(j.FileUpdatedAt):
			// Indexed already (the job is being completed, or retried to add vectors).
		default:
			pending = append(pending, driver.FileInfo{Path: j.Path, UpdatedAt: j.FileUpdatedAt})
			if indexed {
				exclude[j.Path] = true
			}
		}
	}
	for _, st := range older {
		if !seen[st.Path] {
			pending = append(pending, driver.FileInfo{Path: st.Path, UpdatedAt: st.FileUpdatedAt})
			exclude[st.Path] = true
		}
	}
	return exclude, pending, nil
}

// indexedStates returns a lookup of the index's state of a path, and the files under prefix
// indexed by another analysis than today's (TokenizerName). With a FileStateLister both come
// from its shared sorted list: a binary search per lookup, and the other-analysis files computed
// once per list the index hands out (it hands out the same slice until the project changes).
func (s *Searcher) indexedStates(ctx context.Context, scope driver.Scope, prefix string) (func(string) (indexdriver.FileState, bool), []indexdriver.PathFileState, error) {
	if l, ok := s.index.(indexdriver.FileStateLister); ok {
		list, err := l.FileStateList(ctx, scope, "")
		if err != nil {
			return nil, nil, err
		}
		lookup := func(path string) (indexdriver.FileState, bool) {
			i, ok := slices.BinarySearchFunc(list, path, func(s indexdriver.PathFileState, p string) int { return strings.Compare(s.Path, p) })
			if !ok {
				return indexdriver.FileState{}, false
			}
			return list[i].FileState, true
		}
		older := s.olderAnalysis.of(scope, list)
		if prefix != "" {
			older = indexdriver.StatesWithPrefix(older, prefix)
		}
		return lookup, older, nil
	}
	states, err := s.index.FileStates(ctx, scope, prefix)
	if err != nil {
		return nil, nil, err
	}
	var older []indexdriver.PathFileState
	for p, st := range states {
		if st.Tokenizer != indexdriver.TokenizerName {
			older = append(older, indexdriver.PathFileState{Path: p, FileState: st})
		}
	}
	slices.SortFunc(older, func(a, b indexdriver.PathFileState) int { return strings.Compare(a.Path, b.Path) })
	return func(path string) (indexdriver.FileState, bool) { st, ok := states[path]; return st, ok }, older, nil
}

// olderAnalysisMemo remembers, per project, the files of the last FileStateList answer that were
// indexed by another analysis, keyed by the identity of that answer's backing array: an index
// hands out the same immutable slice while the project does not change, so the scan for them
// runs once per change, not once per query. It holds that array through a weak pointer, so
// that the memo never keeps an index's evicted list alive (a list that is still alive cannot
// share its address with a new one), and at most maxOlderAnalysisStates files of another
// analysis in all. Safe for concurrent use.
type olderAnalysisMemo struct {
	mu      sync.Mutex
	entries map[driver.Scope]olderAnalysisEntry
	states  int // of every entry's older
}

type olderAnalysisEntry struct {
	list  weak.Pointer[indexdriver.PathFileState] // the first element of the FileStateList answer
	n     int                                     // its length
	older []indexdriver.PathFileState             // its files of another analysis, sorted by path
}

// maxOlderAnalysisEntries and maxOlderAnalysisStates bound the memo (entries, and files of
// another analysis in all, about 100 bytes each); beyond either, it starts over.
const (
	maxOlderAnalysisEntries = 4096
	maxOlderAnalysisStates  = 1 << 18
)

func (m *olderAnalysisMemo) of(scope driver.Scope, list []indexdriver.PathFileState) []indexdriver.PathFileState {
	if len(list) == 0 {
		return nil
	}
	m.mu.Lock()
	e, ok := m.entries[scope]
	m.mu.Unlock()
	if ok && e.n == len(list) && e.list.Value() == &list[0] {
		return e.older
	}
	var older []indexdriver.PathFileState
	for _, st := range list {
		if st.Tokenizer != indexdriver.TokenizerName {
			older = append(older, st)
		}
	}
	older = slices.Clip(older)
	if len(older) > maxOlderAnalysisStates {
		return older // too many to remember: found again by the next query
	}
	m.mu.Lock()
	if m.entries == nil || len(m.entries) >= maxOlderAnalysisEntries || m.states+len(older) > maxOlderAnalysisStates {
		m.entries, m.states = make(map[driver.Scope]olderAnalysisEntry), 0
	}
	m.states += len(older) - len(m.entries[scope].older)
	m.entries[scope] = olderAnalysisEntry{list: weak.Make(&list[0]), n: len(list), older: older}
	m.mu.Unlock()
	return older
}

// liveFiles is the store's info of some files, keyed by path.
type liveFiles map[string]driver.FileInfo

// current reports whether path is active at version v.
func (l liveFiles) current(path string, v time.Time) bool {
	info, ok := l[path]
	return ok && info.UpdatedAt.Equal(v)
}

// statMany reads the store's info of paths in one read (driver.StatMany: one statement on
// pgstore).
func (s *Searcher) statMany(ctx context.Context, scope driver.Scope, paths []string) (liveFiles, error) {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var live map[string]driver.FileInfo
	err := s.store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		live, err = driver.StatMany(ctx, tx, paths)
		return err
	})
	if err != nil {
		return nil, backendError("checking the results against the store failed", err)
	}
	return live, nil
}

// liveChunks reads, in one store read (driver.ReadRanges: one statement on pgstore), whether
// the files of the indexed candidates are active at the candidates' versions, and the text of
// every such chunk: indexes keep each chunk's offsets, not its text, and the file is the source
// of truth for both. Only the chunks' bytes are read, never whole files. The answer maps the key
// of each live candidate to its text; a chunk whose bytes cannot be read at its version (the
// file changed since it was indexed) is not live.
func (s *Searcher) liveChunks(ctx context.Context, scope driver.Scope, cands []*candidate) (map[candKey]string, error) {
	ranges := make([]driver.ByteRange, 0, len(cands))
	for _, c := range cands {
		ranges = append(ranges, driver.ByteRange{Path: c.path, Version: c.version, Start: c.chunk.StartByte, End: c.chunk.EndByte})
	}
	live := make(map[candKey]string, len(ranges))
	if len(ranges) == 0 {
		return live, nil
	}
	var texts [][]byte
	err := s.store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		_, texts, err = driver.ReadRanges(ctx, tx, ranges)
		return err
	})
	if err != nil {
		return nil, backendError("reading the results from the store failed", err)
	}
	if len(texts) != len(ranges) {
		return nil, agentfiles.NewError(CodeSearchBackendError, "the store read a different number of ranges than asked", "")
	}
	for i, c := range cands {
		if texts[i] != nil {
			live[c.key()] = string(texts[i])
		}
	}
	return live, nil
}
