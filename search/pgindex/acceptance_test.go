package pgindex_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// TestIndexAcceptance runs the shared suite on pgindex (one fresh database per subtest): as
// configured by default, and merging after every write, so that every case also meets chunks in
// segments, dead chunks and merges running under the queries.
func TestIndexAcceptance(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts pgindex.Options
	}{
		{"default", pgindex.Options{}},
		{"merging after every write", pgindex.Options{MergePendingChunks: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indextest.Exercise(t, func(t *testing.T) indexdriver.Index {
				ix, _ := newIndex(t, tc.opts)
				return ix
			})
		})
	}
}
