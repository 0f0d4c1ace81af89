package pgindex

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
)

// TestReclaimVacuumsOnlyWhenDue: reclaim leaves tables whose dead rows are below a fifth of the
// live ones (plus reclaimDeadMin) and VACUUMs the one that reached it, and only that one.
func TestReclaimVacuumsOnlyWhenDue(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(ctx, pgtest.New(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	conn, err := ix.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// Autovacuum would reset the dead rows this test counts on (this is a database of its own).
	if _, err := conn.Exec(ctx, "ALTER TABLE mcp_search_pending SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	// churn inserts n pending rows from write id first and deletes those below del, then has
	// this backend report its statistics at once (they are otherwise sent within a second).
	churn := func(first, n, del int) {
		t.Helper()
		if _, err := conn.Exec(ctx, "INSERT INTO mcp_search_pending (write_id, project_id, data) SELECT g, 1, '\\x00' FROM generate_series($1::bigint, $2::bigint) g", first, first+n-1); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "DELETE FROM mcp_search_pending WHERE write_id >= $1 AND write_id < $2", first, first+del); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
	}
	vacuums := func() map[string]int64 {
		t.Helper()
		out := make(map[string]int64)
		for _, name := range reclaimTables {
			var n int64
			if err := ix.pool.QueryRow(ctx, "SELECT vacuum_count FROM pg_stat_all_tables WHERE relid = $1::regclass", name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[name] = n
		}
		return out
	}
	churn(1, 1000, 500) // 500 live, 500 dead: below 0.2 × 500 + 1000
	if err := ix.reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"mcp_search_segments": 0, "mcp_search_pending": 0, "mcp_search_files": 0}, vacuums()); diff != "" {
		t.Errorf("500 dead rows of 500 live: VACUUMs (-want +got):\n%s", diff)
	}
	churn(2000, 1000, 1000) // 500 live, 1,500 dead
	if err := ix.reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"mcp_search_segments": 0, "mcp_search_pending": 1, "mcp_search_files": 0}, vacuums()); diff != "" {
		t.Errorf("1,500 dead rows of 500 live: VACUUMs (-want +got):\n%s", diff)
	}
}
