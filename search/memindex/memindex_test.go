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
