package pgindex_test

import (
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newIndex returns an Index on a fresh database, closed when the test ends, and the database URL.
func newIndex(t testing.TB, opts pgindex.Options) (*pgindex.Index, string) {
	t.Helper()
	url := pgtest.New(t)
	return pgtest.Open(t, url, pgindex.Open, opts), url
}
