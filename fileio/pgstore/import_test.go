package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/memstore"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
)

// TestImportFeedAndHistoryAsMemstore imports archives of more files than one PutMany batch
// holds into a project that already has files (some replaced, one deleted and created again),
// on pgstore and on memstore, and compares what the change feed and the history say: the
// set-based statement of PutMany (triggers off, events and version numbers written by the
// statement) must give the answers the row triggers give, which memstore models.
func TestImportFeedAndHistoryAsMemstore(t *testing.T) {
	pg, _ := newStore(t, pgstore.Options{GrepIndexInterval: -1})
	stores := map[string]driver.Store{"pgstore": pg, "memstore": memstore.New(memstore.Options{})}
	type answer struct {
		Events   []driver.Event
		Versions map[string][]driver.VersionInfo
		Files    int
	}
	var entries []storetest.ArchiveEntry
	for i := range 1200 { // three batches of importBatchFiles
		entries = append(entries, storetest.ArchiveEntry{Name: fmt.Sprintf("docs/f%04d.md", i), Content: fmt.Sprintf("file %d\n", i)})
	}
	entries = append(entries, storetest.ArchiveEntry{Name: "docs/café notes.md", Content: "crème\n"})
	first := storetest.BuildArchive(t, archive.Tar, entries)
	second := storetest.BuildArchive(t, archive.TarGz, []storetest.ArchiveEntry{
		{Name: "docs/f0001.md", Content: "replaced\n"}, {Name: "docs/new.md", Content: "new\n"},
	})
	ignore := cmpopts.IgnoreFields(driver.Event{}, "At")
	ignoreTimes := cmpopts.IgnoreFields(driver.VersionInfo{}, "WrittenAt", "ReplacedAt")
	answers := map[string]answer{}
	for name, store := range stores {
		svc := storetest.NewService(t, store)
		ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-import", "alice"))
		const proj = "imp"
		for _, p := range []string{"/docs/f0000.md", "/docs/f0002.md", "/docs/gone.md"} {
			if _, err := svc.Write(ctx, fileio.WriteRequest{Project: proj, Path: p, Content: "before\n"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.Delete(ctx, fileio.DeleteRequest{Project: proj, Path: "/docs/f0002.md"}); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Import(ctx, fileio.ImportRequest{Project: proj, Archive: bytes.NewReader(first)})
		if err != nil {
			t.Fatalf("%s: import: %v", name, err)
		}
		if _, err := svc.Import(ctx, fileio.ImportRequest{Project: proj, Path: "/docs", Mode: fileio.ImportReplace, Archive: bytes.NewReader(second)}); err != nil {
			t.Fatalf("%s: second import: %v", name, err)
		}
		a := answer{Versions: map[string][]driver.VersionInfo{}, Files: res.Files}
		for after := int64(0); ; {
			ev, err := svc.Events(ctx, fileio.EventsRequest{Project: proj, After: after, Limit: fileio.MaxEventsLimit})
			if err != nil {
				t.Fatal(err)
			}
			a.Events = append(a.Events, ev.Events...)
			if !ev.Truncated {
				break
			}
			after = ev.NextAfter
		}
		for _, p := range []string{"/docs/f0000.md", "/docs/f0001.md", "/docs/f0002.md", "/docs/café notes.md"} {
			if a.Versions[p], err = svc.Versions(ctx, fileio.VersionsRequest{Project: proj, Path: p}); err != nil {
				t.Fatal(err)
			}
		}
		answers[name] = a
	}
	// Within one statement the stores may order the new files differently (pgstore: by path,
	// memstore: as the batch lists them); compare the feeds as sets of (path, kind, version)
	// and check the positions separately: 1, 2, … without gaps, each path once per import.
	pgA, memA := answers["pgstore"], answers["memstore"]
	for i, e := range pgA.Events {
		if e.Position != int64(i+1) {
			t.Fatalf("pgstore event %d has position %d, want %d (no gaps)", i, e.Position, i+1)
		}
	}
	sortEvents := cmpopts.SortSlices(func(a, b driver.Event) bool {
		return fmt.Sprint(a.Kind, a.Path, a.Version) < fmt.Sprint(b.Kind, b.Path, b.Version)
	})
	if diff := cmp.Diff(memA, pgA, ignore, ignoreTimes, sortEvents, cmpopts.IgnoreFields(driver.Event{}, "Position")); diff != "" {
		t.Errorf("pgstore answers differently from memstore (-memstore +pgstore):\n%s", diff)
	}
	if len(pgA.Events) < 1200 {
		t.Errorf("the feed lists %d events, want every imported file", len(pgA.Events))
	}
}

// TestImportGrepUsesTrigramIndex imports enough files into an empty database that the
// planner's statistics from before the import are wrong (an empty table), and checks that
// the grep right after it finds its candidates with the trigram index: the GIN index of
// mcp_files records a scan. Without the import's ANALYZE the planner expects one row per
// project and walks the path index instead, testing every file's text. The grep cache is off:
// it would answer the grep from memory.
func TestImportGrepUsesTrigramIndex(t *testing.T) {
	s, url := newFreshStore(t, pgstore.Options{GrepIndexInterval: -1, GrepCacheBytes: -1})
	svc := storetest.NewService(t, s)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("sk-import", "alice"))
	var entries []storetest.ArchiveEntry
	for i := range 1500 {
		body := fmt.Sprintf("# Note %d\n\nsome words about the project, file %d of many\n", i, i)
		if i == 777 {
			body += "the rare word is quixotically\n"
		}
		entries = append(entries, storetest.ArchiveEntry{Name: fmt.Sprintf("notes/n%04d.md", i), Content: body})
	}
	if _, err := svc.Import(ctx, fileio.ImportRequest{Project: "p", IndexNow: true, Archive: bytes.NewReader(storetest.BuildArchive(t, archive.Tar, entries))}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	const sqlGINScans = `SELECT COALESCE(sum(s.idx_scan), 0) FROM pg_stat_user_indexes s
JOIN pg_class c ON c.oid = s.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE s.relname = 'mcp_files' AND a.amname = 'gin'`
	scans := func() int64 {
		var n int64
		if _, err := conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, sqlGINScans).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := scans()
	res, err := svc.Grep(ctx, fileio.GrepRequest{Project: "p", Pattern: "quixotically", OutputMode: fileio.GrepFilesWithMatches})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/notes/n0777.md"}, res.Files); diff != "" {
		t.Fatalf("grep after the import (-want +got):\n%s", diff)
	}
	// A backend reports its statistics when it goes idle, at most once a second, and when it
	// exits: close the store's sessions, and wait for the report (this waits for an event, it
	// does not measure time).
	s.Close()
	for deadline := time.Now().Add(30 * time.Second); scans() == before; {
		if time.Now().After(deadline) {
			t.Fatal("the grep right after the import did not scan the trigram index (pg_stat_user_indexes.idx_scan unchanged)")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
