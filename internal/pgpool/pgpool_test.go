package pgpool_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/pgpool"
	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// coded is what a test compares of an error: its code and message.
type coded struct {
	Code    string
	Message string
}

func codedOf(t *testing.T, err error) coded {
	t.Helper()
	var e *agentfiles.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *agentfiles.Error", err, err)
	}
	return coded{Code: e.Code.String(), Message: e.Message}
}

func TestOpenRefusesABadURL(t *testing.T) {
	_, err := pgpool.Open(context.Background(), "pgstore", "postgres://%zz", pgpool.Options{})
	got := codedOf(t, err)
	if got.Code != "INVALID_CONFIG" || !strings.HasPrefix(got.Message, "pgstore: the database URL is not valid: ") ||
		!strings.HasSuffix(got.Message, "; use a URL such as postgres://user:password@host:5432/dbname") {
		t.Errorf("Open(bad URL) = %+v, want INVALID_CONFIG saying the URL is not valid and what one looks like", got)
	}
}

// TestErrWordsConnectionFailures pings through pools whose URL names a database that does not
// exist (with sslmode left to its default, so pgx tries TLS first) and a port nobody listens on.
func TestErrWordsConnectionFailures(t *testing.T) {
	u, err := url.Parse(pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	missing := *u
	missing.Path = "/no_such_db"
	missing.RawQuery = "" // sslmode=prefer: the server's refusal of TLS comes first in pgx's error
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	down := *u
	down.Host = fmt.Sprintf("127.0.0.1:%d", closedPort)

	tests := []struct {
		name     string
		url      string
		wantCode string
		want     string // the whole message, or its prefix when wantPrefix
		prefix   bool
	}{
		{
			name:     "missing database",
			url:      missing.String(),
			wantCode: "INVALID_CONFIG",
			want:     fmt.Sprintf(`pgstore: the database "no_such_db" does not exist on %s; create it (createdb no_such_db) or name an existing database in the database URL`, u.Host),
		},
		{
			name:     "nobody listening",
			url:      down.String(),
			wantCode: "UNAVAILABLE",
			want:     "pgstore: migrating the schema: failed to connect to",
			prefix:   true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := pgpool.Open(context.Background(), "pgstore", tc.url, pgpool.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			got := codedOf(t, pgpool.Err("pgstore", "migrating the schema", pool.Ping(context.Background())))
			if tc.prefix && strings.HasPrefix(got.Message, tc.want) {
				got.Message = tc.want
			}
			if diff := cmp.Diff(coded{Code: tc.wantCode, Message: tc.want}, got); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrPassesCodedErrorsAndNil(t *testing.T) {
	if err := pgpool.Err("pgindex", "x", nil); err != nil {
		t.Errorf("Err(nil) = %v, want nil", err)
	}
	in := agentfiles.NewError(agentfiles.CodeInvalidConfig, "embedder differs", "")
	if got := pgpool.Err("pgindex", "x", fmt.Errorf("wrapped: %w", in)); !errors.Is(got, agentfiles.ErrInvalidConfig) || !strings.HasPrefix(got.Error(), "wrapped: ") {
		t.Errorf("Err(coded) = %v, want the coded error unchanged", got)
	}
	got := codedOf(t, pgpool.Err("pgindex", "preparing the schema", errors.New("syntax error")))
	if diff := cmp.Diff(coded{Code: "INTERNAL", Message: "pgindex: preparing the schema: syntax error"}, got); diff != "" {
		t.Errorf("Err(plain) (-want +got):\n%s", diff)
	}
}
