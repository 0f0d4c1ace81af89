package pgtest

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

// CheckOpenErrors checks a backend's Open (pkg names it in messages: "pgstore", "pgindex"): a
// URL it cannot parse and a database that does not exist are INVALID_CONFIG, and the second
// message names the database and how to create it. open returns a closer of what it opened.
func CheckOpenErrors(t *testing.T, pkg string, open func(ctx context.Context, databaseURL string) (func(), error)) {
	t.Helper()
	u, err := url.Parse(New(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_db"
	u.RawQuery = ""
	tests := []struct {
		name, url string
		want      string
	}{
		{"unparsable URL", "postgres://%zz", "INVALID_CONFIG: " + pkg + ": the database URL is not valid: cannot parse `postgres://%zz`: failed to parse as URL (invalid percent-encoded token: \"%zz\"); use a URL such as postgres://user:password@host:5432/dbname"},
		{"missing database", u.String(), "INVALID_CONFIG: " + pkg + ": the database \"no_such_db\" does not exist on " + u.Host + "; create it (createdb no_such_db) or name an existing database in the database URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			closeIt, err := open(context.Background(), tc.url)
			if err == nil {
				closeIt()
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
