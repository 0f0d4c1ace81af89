package search

import (
	"sort"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/search/indexdriver"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestActiveFilesDiff checks that the merge over sorted states (FileStateLister) and the map
// probe (plain FileStates) find the same stale, deleted and pending files.
func TestActiveFilesDiff(t *testing.T) {
	at := func(s int64) time.Time { return time.Unix(s, 0) }
	cur := func(s int64) indexdriver.FileState {
		return indexdriver.FileState{FileUpdatedAt: at(s), Tokenizer: indexdriver.TokenizerName}
	}
	tests := []struct {
		name        string
		active      []driver.FileInfo // sorted by path
		states      map[string]indexdriver.FileState
		wantExclude map[string]bool
		wantPending []string
	}{
		{name: "empty"},
		{name: "all current",
			active: []driver.FileInfo{{Path: "/a", UpdatedAt: at(1)}, {Path: "/b", UpdatedAt: at(2)}},
			states: map[string]indexdriver.FileState{"/a": cur(1), "/b": cur(2)}},
		{name: "nothing indexed yet",
			active:      []driver.FileInfo{{Path: "/a", UpdatedAt: at(1)}, {Path: "/b", UpdatedAt: at(2)}},
			wantPending: []string{"/a", "/b"}},
		{name: "everything deleted",
			states:      map[string]indexdriver.FileState{"/a": cur(1), "/b": cur(2)},
			wantExclude: map[string]bool{"/a": true, "/b": true}},
		{name: "stale, deleted and new files interleaved",
			active:      []driver.FileInfo{{Path: "/a", UpdatedAt: at(1)}, {Path: "/a/b", UpdatedAt: at(5)}, {Path: "/c", UpdatedAt: at(3)}, {Path: "/e", UpdatedAt: at(4)}},
			states:      map[string]indexdriver.FileState{"/a": cur(1), "/a/b": cur(2), "/b": cur(2), "/d": cur(9), "/e": cur(4), "/z": cur(1)},
			wantExclude: map[string]bool{"/a/b": true, "/b": true, "/d": true, "/z": true},
			wantPending: []string{"/a/b", "/c"}},
		{name: "indexed by an older analysis",
			active:      []driver.FileInfo{{Path: "/a", UpdatedAt: at(1)}, {Path: "/b", UpdatedAt: at(2)}},
			states:      map[string]indexdriver.FileState{"/a": cur(1), "/b": {FileUpdatedAt: at(2), Tokenizer: "unicode-lower-stop-snowball_en-v1"}},
			wantExclude: map[string]bool{"/b": true},
			wantPending: []string{"/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sorted []indexdriver.PathFileState
			for p, st := range tt.states {
				sorted = append(sorted, indexdriver.PathFileState{Path: p, FileState: st})
			}
			sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
			a := newActiveFiles(append([]driver.FileInfo(nil), tt.active...))
			for name, diff := range map[string]func() (map[string]bool, []driver.FileInfo){
				"map":    func() (map[string]bool, []driver.FileInfo) { return a.diff(tt.states) },
				"sorted": func() (map[string]bool, []driver.FileInfo) { return a.diffSorted(sorted) },
			} {
				exclude, pending := diff()
				var pendingPaths []string
				for _, f := range pending {
					pendingPaths = append(pendingPaths, f.Path)
				}
				sort.Strings(pendingPaths)
				if d := cmp.Diff(tt.wantExclude, exclude, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s: exclude (-want +got):\n%s", name, d)
				}
				if d := cmp.Diff(tt.wantPending, pendingPaths, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s: pending (-want +got):\n%s", name, d)
				}
			}
		})
	}
}

// TestActiveFilesUnsortedListing checks that a store listing out of order is sorted before
// binary searches rely on it.
func TestActiveFilesUnsortedListing(t *testing.T) {
	a := newActiveFiles([]driver.FileInfo{{Path: "/b", UpdatedAt: time.Unix(2, 0)}, {Path: "/a", UpdatedAt: time.Unix(1, 0)}})
	if !a.current("/a", time.Unix(1, 0)) || !a.current("/b", time.Unix(2, 0)) || a.current("/b", time.Unix(1, 0)) || a.current("/c", time.Unix(1, 0)) {
		t.Errorf("lookups in %v are wrong", a)
	}
}
