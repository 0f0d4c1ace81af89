package pgindex_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// TestIndexAcceptance runs the shared suite on pgindex (one fresh database per subtest).
func TestIndexAcceptance(t *testing.T) {
	indextest.Exercise(t, func(t *testing.T) search.Index {
		ix, _ := newIndex(t, pgindex.Options{})
		return ix
	})
}
