package search

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
)

// FileStateLister is an optional extension of [Index] for indexes that keep their files sorted
// by path. The Searcher then merges the index's states with the store's sorted listing instead
// of building and probing a map of every file on each query. search/memindex implements it.
type FileStateLister interface {
	// FileStateList returns the same states as FileStates(ctx, scope, prefix), as a slice
	// sorted by path ascending (bytewise). The slice may be shared between calls and with other
	// callers: it must not be modified.
	FileStateList(ctx context.Context, scope fileio.Scope, prefix string) ([]PathFileState, error)
}

// PathFileState is one file of a FileStateList answer.
type PathFileState struct {
	Path string
	FileState
}

// FileStatesOf implements Index.FileStates for an index that implements FileStateLister: the
// states of l.FileStateList(ctx, scope, prefix), as a map.
func FileStatesOf(ctx context.Context, l FileStateLister, scope fileio.Scope, prefix string) (map[string]FileState, error) {
	list, err := l.FileStateList(ctx, scope, prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]FileState, len(list))
	for _, s := range list {
		out[s.Path] = s.FileState
	}
	return out, nil
}

// StatesWithPrefix returns the sub-slice of sorted (sorted by path) whose paths start with
// prefix, found by binary search, for FileStateList implementations. Its capacity ends with it,
// so appending to it never writes into sorted.
func StatesWithPrefix(sorted []PathFileState, prefix string) []PathFileState {
	lo, _ := slices.BinarySearchFunc(sorted, prefix, func(s PathFileState, prefix string) int { return strings.Compare(s.Path, prefix) })
	n := sort.Search(len(sorted)-lo, func(i int) bool { return !strings.HasPrefix(sorted[lo+i].Path, prefix) })
	return sorted[lo : lo+n : lo+n]
}

// activeFiles is the store's listing of a project's active files, sorted by path, so a query
// looks versions up by binary search instead of building a map of every file.
type activeFiles []fileio.FileInfo

func byPath(a, b fileio.FileInfo) int { return strings.Compare(a.Path, b.Path) }

// newActiveFiles takes a Store.List result (sorted by path per the Store contract; sorted here
// if a store gets that wrong).
func newActiveFiles(files []fileio.FileInfo) activeFiles {
	if !slices.IsSortedFunc(files, byPath) {
		slices.SortFunc(files, byPath)
	}
	return files
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
func (a activeFiles) diff(states map[string]FileState) (exclude map[string]bool, pending []fileio.FileInfo) {
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
func (a activeFiles) diffSorted(states []PathFileState) (exclude map[string]bool, pending []fileio.FileInfo) {
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
	return slices.BinarySearchFunc(a, path, func(f fileio.FileInfo, p string) int { return strings.Compare(f.Path, p) })
}
