package pgindex_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/agentfiles/agentfiles/search/pgindex"
)

// Open refuses a URL it cannot parse and a database that does not exist with INVALID_CONFIG, and
// the second message names the database.
func TestOpenConfigErrors(t *testing.T) {
	pgtest.CheckOpenErrors(t, "pgindex", func(ctx context.Context, url string) (func(), error) {
		s, err := pgindex.Open(ctx, url, pgindex.Options{})
		if err != nil {
			return nil, err
		}
		return s.Close, nil
	})
}
