package pgstore_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// Open refuses a URL it cannot parse and a database that does not exist with INVALID_CONFIG, and
// the second message names the database.
func TestOpenConfigErrors(t *testing.T) {
	u, err := url.Parse(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_db"
	u.RawQuery = ""
	tests := []struct {
		name, url string
		want      string
	}{
		{"unparsable URL", "postgres://%zz", "INVALID_CONFIG: pgstore: the database URL is not valid: cannot parse `postgres://%zz`: failed to parse as URL (invalid percent-encoded token: \"%zz\"); use a URL such as postgres://user:password@host:5432/dbname"},
		{"missing database", u.String(), "INVALID_CONFIG: pgstore: the database \"no_such_db\" does not exist on " + u.Host + "; create it (createdb no_such_db) or name an existing database in the database URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := pgstore.Open(context.Background(), tc.url, pgstore.Options{})
			if err == nil {
				x.Close()
				t.Fatal("Open succeeded")
			}
			var e *agentfiles.Error
			if !errors.As(err, &e) {
				t.Fatalf("Open: %v (%T), want an *agentfiles.Error", err, err)
			}
			if diff := cmp.Diff(tc.want, e.Error()); diff != "" {
				t.Errorf("Open error (-want +got):\n%s", diff)
			}
		})
	}
}
