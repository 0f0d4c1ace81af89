package indexdriver

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// FileStateLister is an optional extension of [Index] for indexes that keep their files sorted
// by path. The Searcher then merges the index's states with the store's sorted listing instead
// of building and probing a map of every file on each query. search/memindex implements it.
type FileStateLister interface {
	// FileStateList returns the same states as FileStates(ctx, scope, prefix), as a slice
	// sorted by path ascending (bytewise). The slice may be shared between calls and with other
	// callers: it must not be modified.
	FileStateList(ctx context.Context, scope driver.Scope, prefix string) ([]PathFileState, error)
}

// PathFileState is one file of a FileStateList answer.
type PathFileState struct {
	Path string
	FileState
}

// FileStatesOf implements Index.FileStates for an index that implements FileStateLister: the
// states of l.FileStateList(ctx, scope, prefix), as a map.
func FileStatesOf(ctx context.Context, l FileStateLister, scope driver.Scope, prefix string) (map[string]FileState, error) {
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
