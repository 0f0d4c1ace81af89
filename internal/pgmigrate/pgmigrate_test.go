package pgmigrate

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles/internal/pgtest"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []Migration
		wantErr string
	}{
		{
			name: "sorted by version, not by name",
			files: fstest.MapFS{
				"m/10_late.sql": {Data: []byte("SELECT 10")},
				"m/2_early.sql": {Data: []byte("SELECT 2")},
				"m/notes.txt":   {Data: []byte("ignored")},
				"other/1_x.sql": {Data: []byte("ignored too")},
			},
			want: []Migration{{2, "2_early", "SELECT 2"}, {10, "10_late", "SELECT 10"}},
		},
		{name: "no number", files: fstest.MapFS{"m/init.sql": {}}, wantErr: "positive number"},
		{name: "zero", files: fstest.MapFS{"m/0_init.sql": {}}, wantErr: "positive number"},
		{name: "duplicate version", files: fstest.MapFS{"m/1_a.sql": {}, "m/01_b.sql": {}}, wantErr: "share version 1"},
		{name: "empty", files: fstest.MapFS{}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Set{FS: tc.files, Dir: "m", Table: "t", LockKey: 1}
			got, err := s.Migrations()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if s.Latest() != 0 {
					t.Errorf("Latest of a broken set = %d, want 0", s.Latest())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("migrations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestApply: instances applying one set at once apply each migration exactly once, in version
// order, and applying an up-to-date set changes nothing.
func TestApply(t *testing.T) {
	s := Set{FS: fstest.MapFS{
		"m/1_table.sql": {Data: []byte("CREATE TABLE applied (version INT, at TIMESTAMPTZ DEFAULT clock_timestamp())")},
		"m/2_first.sql": {Data: []byte("INSERT INTO applied (version) VALUES (2)")},
		"m/3_later.sql": {Data: []byte("INSERT INTO applied (version) VALUES (3)")},
	}, Dir: "m", Table: "pgmigrate_test_versions", LockKey: 42}
	url := pgtest.New(t)
	pgtest.MigrateConcurrently(t, url, 6, s.Apply)
	pgtest.CheckMigrated(t, url, s.Table, 3, s.Apply)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows, err := pool.Query(context.Background(), "SELECT version FROM applied ORDER BY at")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if diff := cmp.Diff([]int32{2, 3}, got); err != nil || diff != "" {
		t.Errorf("migrations ran (-want +got):\n%s %v", diff, err)
	}
}
