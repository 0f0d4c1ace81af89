package pgindex_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newIndex returns an Index on a fresh database, closed when the test ends, and the database URL.
func newIndex(t testing.TB, opts pgindex.Options) (*pgindex.Index, string) {
	t.Helper()
	url := pgtest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ix, err := pgindex.Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ix.Close)
	return ix, url
}
