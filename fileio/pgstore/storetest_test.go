package pgstore_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/archive"
	"github.com/google/go-cmp/cmp"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/pgstore"
	"github.com/agentfiles/agentfiles/fileio/storetest"
	"github.com/agentfiles/agentfiles/internal/testsize"
)

// TestStoretest runs the fileio acceptance suite against PostgreSQL, every store on a fresh
// database.
func TestStoretest(t *testing.T) {
	storetest.Exercise(t, func(t *testing.T) driver.Store {
		s, _ := newStore(t, pgstore.Options{})
		return s
	})
}

// TestModel runs the random-operation model harness against PostgreSQL with more seeds than
// Exercise does; every operation's result must agree with the reference model (which memstore
// also passes, operation by operation).
func TestModel(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	for seed := int64(100); seed < 108; seed++ {
		storetest.RunModel(t, s, seed, 400)
	}
}

// TestArchiveRoundTrip imports this repository (100 of its files by default, 400 with
// AGENTFILES_FULL=1, and names with spaces and accents) into PostgreSQL and exports it again in
// every format.
func TestArchiveRoundTrip(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	storetest.ExerciseArchiveTree(t, s, "../..", testsize.Count(t, 400, 100))
}

// TestImportIndexesForGrep checks that an import with IndexNow leaves its new files in the
// trigram index (grep_indexed), so that no background work stands between the import and an
// indexed grep, and that it queued one index job per file as writes do; and that by default
// the import leaves them to the background indexer.
func TestImportIndexesForGrep(t *testing.T) {
	s, _ := newStore(t, pgstore.Options{})
	svc := storetest.NewService(t, s)
	ctx := agentfiles.WithAuth(context.Background(), agentfiles.NewAuthContext("import-key", "import"))
	entries := []storetest.ArchiveEntry{{Name: "a.md", Content: "alpha\n"}, {Name: "docs/b c.md", Content: "beta\n"}, {Name: "docs/caf\u00e9.md", Content: "gamma\n"}}
	if _, err := svc.Import(ctx, fileio.ImportRequest{Project: "p", IndexNow: true, Archive: bytes.NewReader(storetest.BuildArchive(t, archive.TarGz, entries))}); err != nil {
		t.Fatal(err)
	}
	var unindexed, indexed, jobs int
	err := s.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE NOT grep_indexed), count(*) FILTER (WHERE grep_indexed),
		(SELECT count(*) FROM mcp_file_index_jobs WHERE project = 'p' AND operation = 'UPSERT') FROM mcp_files WHERE project = 'p' AND NOT deleted`).Scan(&unindexed, &indexed, &jobs)
	if err != nil || unindexed != 0 || indexed != 3 || jobs != 3 {
		t.Errorf("after the import: %d unindexed, %d indexed files, %d jobs, %v; want 0, 3, 3", unindexed, indexed, jobs, err)
	}
	res, err := svc.Grep(ctx, fileio.GrepRequest{Project: "p", Pattern: "gamma", OutputMode: fileio.GrepFilesWithMatches})
	if diff := cmp.Diff([]string{"/docs/caf\u00e9.md"}, res.Files); err != nil || diff != "" {
		t.Errorf("grep after the import: %v (-want +got):\n%s", err, diff)
	}
	// By default the background indexer indexes them, as after writes.
	if _, err := svc.Import(ctx, fileio.ImportRequest{Project: "q", Archive: bytes.NewReader(storetest.BuildArchive(t, archive.Tar, entries))}); err != nil {
		t.Fatal(err)
	}
	err = s.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE NOT grep_indexed), count(*) FILTER (WHERE grep_indexed), 0
		FROM mcp_files WHERE project = 'q' AND NOT deleted`).Scan(&unindexed, &indexed, &jobs)
	if err != nil || unindexed != 3 || indexed != 0 {
		t.Errorf("after an import without IndexNow: %d unindexed, %d indexed files, %v; want 3, 0", unindexed, indexed, err)
	}
	res, err = svc.Grep(ctx, fileio.GrepRequest{Project: "q", Pattern: "gamma", OutputMode: fileio.GrepFilesWithMatches})
	if diff := cmp.Diff([]string{"/docs/caf\u00e9.md"}, res.Files); err != nil || diff != "" {
		t.Errorf("grep after a deferred import: %v (-want +got):\n%s", err, diff)
	}
}
