package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/jackc/pgx/v5"
)

// TestPutManyFailureAtNextCall: PutMany returns while PostgreSQL writes the batch, so the
// failure of a batch (here content that is not UTF-8, which the check constraint refuses: Go
// found it invalid and did not vouch for the batch) comes at the transaction's next call,
// whichever it is, and the whole transaction is rolled back.
func TestPutManyFailureAtNextCall(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	good := []driver.File{{FileInfo: driver.FileInfo{Path: "/a.md"}, Content: []byte("fine\n")}}
	// The bad batch replaces a file, so PutMany sends it pipelined (a batch of new files is
	// written with COPY, whose failure comes at once).
	bad := []driver.File{{FileInfo: driver.FileInfo{Path: "/a.md"}, Content: []byte("caf\xe9\n")}}
	for _, tc := range []struct {
		name string
		next func(driver.WriteTx) error // the call after the failing batch; nil: commit
	}{
		{"PutMany", func(tx driver.WriteTx) error {
			return tx.(driver.BulkWriter).PutMany(ctx, good, driver.BulkOptions{DeferIndex: true})
		}},
		{"ProjectBytes", func(tx driver.WriteTx) error { _, err := tx.ProjectBytes(ctx); return err }},
		{"Put", func(tx driver.WriteTx) error {
			_, err := tx.Put(ctx, "/c.md", []byte("c\n"), driver.PutOptions{})
			return err
		}},
		{"commit", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scope := driver.Scope{Tenant: testScope.Tenant, Project: "next-" + strings.ToLower(tc.name)}
			var putErr, nextErr error
			err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
				bw := tx.(driver.BulkWriter)
				if err := bw.PutMany(ctx, good, driver.BulkOptions{DeferIndex: true}); err != nil {
					return err
				}
				putErr = bw.PutMany(ctx, bad, driver.BulkOptions{DeferIndex: true})
				if tc.next == nil {
					return nil
				}
				nextErr = tc.next(tx)
				return nextErr
			})
			if putErr != nil {
				t.Errorf("PutMany of the bad batch returned %v at once; want its failure at the next call", putErr)
			}
			if err == nil || (tc.next != nil && nextErr == nil) {
				t.Fatalf("Update = %v, next call = %v; want the bad batch's failure", err, nextErr)
			}
			checkNoLeak(t, "the bad batch", err)
			if got := list(t, s, scope, "/", 0); len(got) != 0 {
				t.Errorf("files after the failed transaction: %v, want none", got)
			}
		})
	}
}

// TestImportChecksTheArchiveBeforeTheStore: an import reads and checks its whole archive
// before the store's transaction. The store refuses a file of the first batch (a trigger of
// this test raises on its path): a strict import whose archive has an entry that is not UTF-8
// in its second batch answers with that entry's refusal, without reaching the store; the same
// archive without that entry answers with the store's failure of the first batch, which
// PutMany reports at the transaction's next call. Either way nothing is imported.
func TestImportChecksTheArchiveBeforeTheStore(t *testing.T) {
	s, url := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'test refuses %', NEW.path; END $$;
CREATE TRIGGER test_refuse BEFORE INSERT ON mcp_files FOR EACH ROW WHEN (NEW.path = '/d/f0007.md')
EXECUTE FUNCTION test_refuse()`); err != nil {
		t.Fatal(err)
	}
	var entries []storetest.ArchiveEntry
	for i := range 700 { // the first batch holds 500 files
		entries = append(entries, storetest.ArchiveEntry{Name: fmt.Sprintf("d/f%04d.md", i), Content: "text\n"})
	}
	svc := storetest.NewService(t, s)
	actx := agentfiles.WithAuth(ctx, agentfiles.NewAuthContext("sk-import", "alice"))
	imp := func(entries []storetest.ArchiveEntry) error {
		_, err := svc.Import(actx, fileio.ImportRequest{Project: "p", Strict: true, Archive: bytes.NewReader(storetest.BuildArchive(t, archive.Tar, entries))})
		return err
	}
	if err := imp(entries); agentfiles.ErrorCode(err) != agentfiles.CodeInternal || strings.Contains(err.Error(), "test refuses") {
		t.Errorf("an import the store refuses: %v; want INTERNAL, without the store's internals", err)
	}
	entries[600].Content = "caf\xe9\n"
	if err := imp(entries); agentfiles.ErrorCode(err) != agentfiles.CodeInvalidArgument || !strings.Contains(err.Error(), `"d/f0600.md" is not UTF-8`) {
		t.Errorf("a strict import with an entry that is not text: %v; want INVALID_ARGUMENT naming it", err)
	}
	res, err := svc.List(actx, fileio.ListRequest{Project: "p", Path: "/"})
	if err != nil && agentfiles.ErrorCode(err) != agentfiles.CodeNotFound {
		t.Fatal(err)
	}
	for _, e := range res.Entries {
		if e.Path != "" { // the root itself
			t.Errorf("after the failed imports the project lists %v, want nothing", e)
		}
	}
}

// TestWritesProbeThePathIndexOnEmptyTable: write transactions run generic plans, which
// PostgreSQL may make while mcp_files is still empty and keeps for the connection. In those
// plans a write's lookups of paths must be index probes, one per path: a filter over the
// project's rows (the plan of path = ANY(…) on an empty table) made an import quadratic in its
// size (PutMany's lookup of the files it replaces), an upload through file_write slower with
// every file it wrote (the conditional write's lookup of ancestor directories), and a Delete or
// a Move of a few files walk the project (their UPDATE now finds the rows by id, through the
// primary key: write transactions disable sequential scans, as the test does).
func TestWritesProbeThePathIndexOnEmptyTable(t *testing.T) {
	_, url := newFreshStore(t, pgstore.Options{GrepIndexInterval: -1})
	ctx := context.Background()
	for _, tc := range []struct {
		name, prepare, execute string
		probe, filter          string // the plan must hold probe and not filter
	}{
		{"PutMany's replaced files",
			"PREPARE s(text, text, text[], bytea, text[], boolean, text[], int[], int[]) AS " + pgstore.SQLPutMany,
			`EXECUTE s('h', 'p', '{/a.md}', '\x61', '{""}', false, '{x}', '{1}', '{1}')`,
			"(path)::text = p.path)", "Filter: ((path)::text = ANY"},
		{"file_write's ancestor directories",
			"PREPARE s(text, text, text, text[], text, text, bytea, bigint, boolean, boolean, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint) AS " + pgstore.SQLWriteIfAllowed,
			`EXECUTE s('h', 'p', '/a/b.md', '{/a}', '/a/b.md/', '', '\x61', 1, false, false, 100, 100000, 0, 0, 100000, 1000, 10000, 10)`,
			"(path = p.path)", "= ANY ($4)"},
		{"PutMany's probe of a batch before COPY",
			"PREPARE s(text, text, text[], text) AS " + pgstore.SQLBulkProbe,
			`EXECUTE s('h', 'p', '{/a.md}', 'on')`,
			"(path = p.path)", "= ANY ($3)"},
		{"Delete's files",
			"PREPARE s(text, text, text[], bigint) AS " + pgstore.SQLDelete,
			`EXECUTE s('h', 'p', '{/a.md}', 1)`,
			"Index Cond: (id = ANY", "= ANY ($3)"},
		{"Move's files",
			"PREPARE s(text, text, text[], text[], bigint, text[]) AS " + pgstore.SQLMove,
			`EXECUTE s('h', 'p', '{/a.md}', '{/b.md}', 1, '{""}')`,
			"Index Cond: (id = ANY", "= ANY ($3)"},
		{"StatMany's files",
			"PREPARE s(text, text, text[]) AS " + pgstore.SQLStatMany,
			`EXECUTE s('h', 'p', '{/a.md}')`,
			"(path)::text = p.path)", "= ANY ($3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			for _, sql := range []string{"SET plan_cache_mode = force_generic_plan", "SET enable_seqscan = off", tc.prepare} {
				if _, err := conn.Exec(ctx, sql); err != nil {
					t.Fatal(err)
				}
			}
			rows, err := conn.Query(ctx, "EXPLAIN "+tc.execute, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if plan := strings.Join(lines, "\n"); !strings.Contains(plan, tc.probe) || strings.Contains(plan, tc.filter) {
				t.Errorf("the generic plan does not look each path up in an index:\n%s", plan)

			}
		})
	}
}
