package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// shared is the package-wide cluster that New creates databases on.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Main runs the package's tests and then stops the shared cluster, if New started one. Call it
// from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	dropRecycled()
	if shared.srv != nil {
		shared.srv.Close()
	}
	os.Exit(code)
}

// New returns the URL of a new, empty database that is dropped when the test ends. The database
// lives on AGENTFILES_TEST_DATABASE_URL's server when that is set, otherwise on a cluster shared
// by the test package (started on first use; stopped by [Main]). Without PostgreSQL the test is
// skipped, or failed when AGENTFILES_REQUIRE_SERVICES=1.
func New(tb testing.TB) string {
	tb.Helper()
	return newDatabase(tb, "")
}

// NewICU is New for a database whose default collation is the ICU locale icuLocale ("tr-TR",
// "lt-LT"): its case mapping (lower, ILIKE) follows that locale's rules. It is created from
// template0 with encoding UTF8; LC_COLLATE and LC_CTYPE stay C.
func NewICU(tb testing.TB, icuLocale string) string {
	tb.Helper()
	return newDatabase(tb, icuOptions(icuLocale))
}

// icuOptions are the CREATE DATABASE options of NewICU.
func icuOptions(icuLocale string) string {
	return "TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE " + quoteLiteral(icuLocale)
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// newDatabase is New with options for CREATE DATABASE.
func newDatabase(tb testing.TB, options string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	admin := adminURL(tb, ctx)
	dbURL, err := createDatabase(ctx, admin, options)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := dropDatabase(ctx, admin, dbURL); err != nil {
			tb.Logf("pgtest: dropping test database: %v", err)
		}
	})
	return dbURL
}

// adminURL is the URL of the maintenance database of the server New creates databases on:
// AGENTFILES_TEST_DATABASE_URL, or the package's shared cluster, started on first use.
func adminURL(tb testing.TB, ctx context.Context) string {
	tb.Helper()
	if admin := os.Getenv(EnvDatabaseURL); admin != "" {
		return admin
	}
	shared.once.Do(func() { shared.srv, shared.err = Start(ctx) })
	if shared.err != nil {
		unavailable(tb, shared.err)
	}
	return shared.srv.URL("postgres")
}

// Dedicated starts a cluster used by this test alone (for fault tests that kill and restart the
// server) and closes it when the test ends. It ignores AGENTFILES_TEST_DATABASE_URL: killing a
// server needs a local one. Without local binaries the test is skipped, or failed when
// AGENTFILES_REQUIRE_SERVICES=1.
func Dedicated(tb testing.TB) *Server {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	srv, err := Start(ctx)
	if err != nil {
		unavailable(tb, err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// DedicatedDatabase is Dedicated plus a new, empty database on that cluster: it returns the
// server (to Kill and Restart) and the database's URL.
func DedicatedDatabase(tb testing.TB) (*Server, string) {
	tb.Helper()
	srv := Dedicated(tb)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	url, err := srv.CreateDatabase(ctx)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return srv, url
}

// unavailable skips the test, or fails it when services are required.
func unavailable(tb testing.TB, err error) {
	tb.Helper()
	if requireServices() {
		tb.Fatalf("pgtest: PostgreSQL is required (%s=1) but unavailable: %v", EnvRequireServices, err)
	}
	tb.Skipf("pgtest: skipping, PostgreSQL unavailable: %v", err)
}

// createDatabase creates a randomly named database with options (CREATE DATABASE's, "" for
// none) on the server adminURL points at and returns adminURL rewritten to name it.
func createDatabase(ctx context.Context, adminURL, options string) (string, error) {
	var b [8]byte
	rand.Read(b[:])
	name := "agentfiles_test_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", fmt.Errorf("connecting to the test server: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, strings.TrimSpace("CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" "+options)); err != nil {
		return "", fmt.Errorf("creating test database: %w", err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", fmt.Errorf("parsing %s: %w", EnvDatabaseURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

func dropDatabase(ctx context.Context, adminURL, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{u.Path[1:]}.Sanitize()+" WITH (FORCE)")
	return err
}
