// Package pgtest starts throwaway PostgreSQL clusters for tests.
//
// # Model
//
// A [Server] is one PostgreSQL cluster created with initdb in a fresh temporary directory and
// run by the local postgres binary on a free loopback port. It trusts every local connection,
// runs with fsync=off for speed (a SIGKILL of the server loses nothing that committed, only an
// operating-system crash could), and is torn down by [Server.Close]. The postmaster is started
// in its own process group with a parent-death signal, so a test binary that panics or is
// killed does not leave the cluster running.
//
// Most tests want a fresh, empty database and do not care where it lives:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.New(t) // a new database, dropped when the test ends
//		...
//	}
//
// [NewICU] creates the database with an ICU default collation instead ("tr-TR", "lt-LT"), for
// tests whose answers must not depend on the database's case mapping.
//
// Suites that make hundreds of stores take [Recycled] instead: an empty database already at the
// latest schema, which is emptied and handed to the next test when the test ends (a new
// database and its migrations cost hundreds of milliseconds on a loaded machine; the reset a
// few):
//
//	url := pgtest.Recycled(t, "pgstore", pgstore.Migrate)
//
// New starts one shared cluster per test package on first use; Main stops it when the package's
// tests finish. Fault tests that kill and restart the server use [Dedicated], which gives the
// test a cluster of its own with [Server.Kill] and [Server.Restart] ([DedicatedDatabase] adds a
// database on it).
//
// # Test harness
//
// The packages with PostgreSQL backends (fileio/pgstore, search/pgindex) share their test
// plumbing here rather than each writing it:
//
//	store := pgtest.Open(t, pgtest.New(t), pgstore.Open, pgstore.Options{}) // closed at the end
//	pgtest.MigrateConcurrently(t, url, 8, pgstore.Migrate)                    // instances starting at once
//	pgtest.CheckMigrated(t, url, "mcp_files_schema_migrations", pgstore.SchemaVersion(), pgstore.Migrate)
//
// Multi-process tests build their helper command with internal/cmdtest.
//
// # Where the server comes from
//
// When AGENTFILES_TEST_DATABASE_URL is set, New creates its databases on that server instead
// (the role needs CREATEDB). Otherwise the binaries initdb and postgres are looked up on PATH and
// in /usr/lib/postgresql/*/bin. When they are missing the test is skipped with a message naming
// the Debian package postgresql — unless AGENTFILES_REQUIRE_SERVICES=1, which turns the skip
// into a failure (CI sets it). When the tests run as root, the cluster runs as the postgres
// operating-system user, since PostgreSQL refuses to run as root.
//
// All functions and methods are safe for concurrent use.
package pgtest
