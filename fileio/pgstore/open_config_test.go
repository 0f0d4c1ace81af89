package pgstore_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
)

// Open refuses a URL it cannot parse and a database that does not exist with INVALID_CONFIG, and
// the second message names the database.
func TestOpenConfigErrors(t *testing.T) {
	pgtest.CheckOpenErrors(t, "pgstore", func(ctx context.Context, url string) (func(), error) {
		s, err := pgstore.Open(ctx, url, pgstore.Options{})
		if err != nil {
			return nil, err
		}
		return s.Close, nil
	})
}
