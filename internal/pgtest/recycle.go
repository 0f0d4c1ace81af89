package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// recycled holds, by name, the migrated databases that Recycled hands out again.
var recycled struct {
	mu   sync.Mutex
	free map[string][]*recycledDB
}

// recycledDB is one database of Recycled.
type recycledDB struct {
	url         string
	fingerprint string // schemaFingerprint right after migrating: what a reset must give back
}

// Recycled returns the URL of an empty database at the latest schema of migrate, for the
// rest of the test, like New followed by migrate; name tells its kind apart from other
// migrations' (say "pgstore"). A new database costs hundreds of milliseconds on a loaded
// machine; Recycled costs a few: when the test ends, the database's rows are deleted, the rows
// its migrations wrote and its sequences are restored, and it goes to the next caller of the
// same name. A database whose schema, privileges or settings the test changed is dropped
// instead (and so is the database of a failed test, for a look at what it held while it ran);
// so is any database the reset cannot restore, such as one on a server where the role of
// AGENTFILES_TEST_DATABASE_URL is not a superuser.
//
// It is meant for suites that make many stores and use them through their API: a test that
// changes the database itself (roles, other schemas, statistics it then reads) takes New. The
// databases left at the end are dropped by [Main] on AGENTFILES_TEST_DATABASE_URL's server
// (a shared cluster goes with its files).
func Recycled(tb testing.TB, name string, migrate Migrator) string {
	tb.Helper()
	return recycle(tb, name, "", migrate)
}

// RecycledICU is Recycled for a database whose default collation is the ICU locale icuLocale,
// as NewICU makes.
func RecycledICU(tb testing.TB, name, icuLocale string, migrate Migrator) string {
	tb.Helper()
	return recycle(tb, name+"\x00"+icuLocale, icuOptions(icuLocale), migrate)
}

// recycle hands out a database of the pool named key, made with CREATE DATABASE's options.
func recycle(tb testing.TB, key, options string, migrate Migrator) string {
	tb.Helper()
	db := takeRecycled(key)
	if db == nil {
		db = newRecycled(tb, options, migrate)
	}
	tb.Cleanup(func() { giveBack(tb, key, db) })
	return db.url
}

func takeRecycled(name string) *recycledDB {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	free := recycled.free[name]
	if len(free) == 0 {
		return nil
	}
	db := free[len(free)-1]
	recycled.free[name] = free[:len(free)-1]
	return db
}

// newRecycled creates and migrates a database, and prepares its reset.
func newRecycled(tb testing.TB, options string, migrate Migrator) *recycledDB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout+openTimeout)
	defer cancel()
	admin := adminURL(tb, ctx)
	url, err := createDatabase(ctx, admin, options)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	db, err := prepareRecycled(ctx, url, migrate)
	if err != nil {
		dropQuietly(tb, admin, url)
		tb.Fatalf("pgtest: preparing a recycled database: %v", err)
	}
	return db
}

func prepareRecycled(ctx context.Context, url string, migrate Migrator) (*recycledDB, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	err = migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return nil, fmt.Errorf("migrating: %w", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sqlPrepareReset); err != nil {
		return nil, err
	}
	db := &recycledDB{url: url}
	if err := conn.QueryRow(ctx, "SELECT pgtest_seed.fingerprint()").Scan(&db.fingerprint); err != nil {
		return nil, err
	}
	return db, nil
}

// giveBack resets db for the next test of its name, or drops it.
func giveBack(tb testing.TB, name string, db *recycledDB) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !tb.Failed() {
		err := reset(ctx, db)
		if err == nil {
			recycled.mu.Lock()
			if recycled.free == nil {
				recycled.free = map[string][]*recycledDB{}
			}
			recycled.free[name] = append(recycled.free[name], db)
			recycled.mu.Unlock()
			return
		}
		tb.Logf("pgtest: dropping the recycled database instead of reusing it: %v", err)
	}
	dropQuietly(tb, adminURL(tb, ctx), db.url)
}

// errChanged is reset's answer for a database whose schema the test changed.
var errChanged = errors.New("the test changed its schema, privileges or settings")

// reset ends every other session on db, deletes its rows, restores what its migrations wrote
// and checks that its schema is still the migrated one.
func reset(ctx context.Context, db *recycledDB) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	// Sessions the test left open would hold locks (or write after the reset).
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		return err
	}
	var fingerprint string
	if err := conn.QueryRow(ctx, "SELECT pgtest_seed.fingerprint()").Scan(&fingerprint); err != nil {
		return err
	}
	if fingerprint != db.fingerprint {
		return errChanged
	}
	_, err = conn.Exec(ctx, "SELECT pgtest_seed.reset()")
	return err
}

// dropQuietly drops the database at url, logging a failure.
func dropQuietly(tb testing.TB, admin, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dropDatabase(ctx, admin, url); err != nil {
		tb.Logf("pgtest: dropping test database: %v", err)
	}
}

// dropRecycled drops the free recycled databases on AGENTFILES_TEST_DATABASE_URL's server,
// which outlives the tests (a shared cluster goes with its files).
func dropRecycled() {
	admin := os.Getenv(EnvDatabaseURL)
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	for name, dbs := range recycled.free {
		for _, db := range dbs {
			if admin != "" {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				dropDatabase(ctx, admin, db.url)
				cancel()
			}
		}
		delete(recycled.free, name)
	}
}

// sqlPrepareReset runs once in a freshly migrated database. It keeps, in schema pgtest_seed,
// a copy of every row the migrations wrote and the state of every sequence, and defines:
//
//   - pgtest_seed.reset(), which empties every table (triggers off: the rows are removed, not
//     acted on; large tables truncated, small ones deleted from, which is faster), puts the
//     migrations' rows back and restores the sequences;
//   - pgtest_seed.fingerprint(), a digest of everything a test could change that reset does
//     not restore: relations and their columns, constraints, privileges, functions, triggers,
//     schemas, extensions and the database's settings.
const sqlPrepareReset = `
CREATE SCHEMA pgtest_seed;
CREATE TABLE pgtest_seed.tables (rel regclass NOT NULL, seed text);
CREATE TABLE pgtest_seed.sequences (seq regclass NOT NULL, last bigint);
DO $$
DECLARE
	r record;
	n bigint;
	i int := 0;
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
		AND s.nspname NOT IN ('pg_catalog', 'information_schema', 'pgtest_seed') AND s.nspname NOT LIKE 'pg\_%'
	LOOP
		EXECUTE format('SELECT count(*) FROM %s', r.rel) INTO n;
		IF n > 0 THEN
			i := i + 1;
			EXECUTE format('CREATE TABLE pgtest_seed.seed%s AS SELECT * FROM %s', i, r.rel);
			INSERT INTO pgtest_seed.tables VALUES (r.rel, 'pgtest_seed.seed' || i);
		ELSE
			INSERT INTO pgtest_seed.tables VALUES (r.rel, NULL);
		END IF;
	END LOOP;
	INSERT INTO pgtest_seed.sequences
		SELECT format('%I.%I', schemaname, sequencename)::regclass, last_value FROM pg_sequences
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pgtest_seed');
END $$;

CREATE FUNCTION pgtest_seed.reset() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	SET LOCAL session_replication_role = replica;
	FOR r IN SELECT rel FROM pgtest_seed.tables LOOP
		IF pg_total_relation_size(r.rel) > 4 * 1024 * 1024 THEN
			EXECUTE format('TRUNCATE %s CASCADE', r.rel);
		ELSE
			EXECUTE format('DELETE FROM %s', r.rel);
		END IF;
	END LOOP;
	FOR r IN SELECT rel, seed FROM pgtest_seed.tables WHERE seed IS NOT NULL LOOP
		EXECUTE format('INSERT INTO %s SELECT * FROM %s', r.rel, r.seed);
	END LOOP;
	FOR r IN SELECT seq, last FROM pgtest_seed.sequences LOOP
		IF r.last IS NULL THEN
			EXECUTE format('ALTER SEQUENCE %s RESTART', r.seq);
		ELSE
			PERFORM setval(r.seq, r.last, true);
		END IF;
	END LOOP;
END $$;

CREATE FUNCTION pgtest_seed.fingerprint() RETURNS text LANGUAGE sql STABLE AS $$
SELECT md5(string_agg(x, E'\n' ORDER BY x)) FROM (
	SELECT 'rel ' || c.oid::regclass::text || ' ' || c.relkind::text || ' ' || coalesce(c.relacl::text, '') || ' ' ||
		coalesce((SELECT string_agg(a.attname || ':' || a.atttypid::regtype::text || ':' || a.attnotnull || ':' ||
			coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY a.attnum)
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS x
	FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
	WHERE s.nspname NOT IN ('pg_catalog', 'information_schema', 'pgtest_seed') AND s.nspname NOT LIKE 'pg\_%'
	UNION ALL
	SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
	FROM pg_constraint WHERE connamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'pgtest_seed'))
	UNION ALL
	SELECT 'function ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) || ' ' || coalesce(p.proacl::text, '')
	FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
	WHERE s.nspname NOT IN ('pg_catalog', 'information_schema', 'pgtest_seed')
	UNION ALL
	SELECT 'trigger ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
	UNION ALL
	SELECT 'schema ' || nspname || ' ' || coalesce(nspacl::text, '') FROM pg_namespace
	WHERE nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%'
	UNION ALL
	SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
	UNION ALL
	SELECT 'setting ' || setrole::text || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
	WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
	UNION ALL
	SELECT 'database ' || coalesce(datacl::text, '') || ' ' || datconnlimit FROM pg_database WHERE datname = current_database()
) AS everything
$$;
`
