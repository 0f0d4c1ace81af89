package memindex_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/search"
	"github.com/agentfiles/agentfiles/search/indextest"
	"github.com/agentfiles/agentfiles/search/memindex"
)

func TestIndexAcceptance(t *testing.T) {
	indextest.Exercise(t, func(t *testing.T) search.Index { return memindex.New() })
}

// TestIndexAcceptanceWithoutFileStateList runs the suite with memindex seen only as a plain
// search.Index, so the Searcher takes its FileStates (map) path, as it does for indexes that
// do not implement search.FileStateLister.
func TestIndexAcceptanceWithoutFileStateList(t *testing.T) {
	indextest.Exercise(t, func(t *testing.T) search.Index { return struct{ search.Index }{memindex.New()} })
}
