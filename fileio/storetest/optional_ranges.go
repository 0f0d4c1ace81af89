package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// testReadRanges: ReadRanges (native or the fallback) returns StatMany's infos and, per range,
// exactly the bytes Get returns at that range when the version matches, nil otherwise.
func testReadRanges(t *testing.T, s driver.Store) {
	ctx := context.Background()
	_, scope := newTenant("p")
	var infos map[string]driver.FileInfo
	err := s.Update(ctx, scope, driver.UpdateOptions{}, func(tx driver.WriteTx) error {
		for p, c := range map[string]string{"/a": "héllo wörld", "/b": "second file", "/empty": ""} {
			if _, err := tx.Put(ctx, p, []byte(c), driver.PutOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		infos, err = driver.StatMany(ctx, tx, []string{"/a", "/b", "/empty"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	a, b := infos["/a"].UpdatedAt, infos["/b"].UpdatedAt
	ranges := []driver.ByteRange{
		{Path: "/a", Version: a, Start: 0, End: 6},             // "héllo"
		{Path: "/a", Version: a, Start: 7, End: 13},            // "wörld"
		{Path: "/b", Version: b, Start: 7, End: 11},            // "file"
		{Path: "/b", Version: b.Add(time.Microsecond), End: 4}, // another version: nil
		{Path: "/a", Version: a, Start: 10, End: 99},           // beyond the end: nil
		{Path: "/missing", Version: a, End: 1},                 // no file: nil
		{Path: "/empty", Version: infos["/empty"].UpdatedAt},   // empty range: empty
		{Path: "/a", Version: a, Start: 3, End: 3},             // empty range inside: empty
	}
	want := []string{"héllo", "wörld", "file", "<nil>", "<nil>", "<nil>", "", ""}
	check := func(tx driver.ReadTx, what string) {
		t.Helper()
		_, native := tx.(driver.RangeReader)
		gotInfos, got, err := driver.ReadRanges(ctx, tx, ranges)
		if err != nil {
			t.Fatalf("%s: ReadRanges: %v", what, err)
		}
		texts := make([]string, len(got))
		for i, g := range got {
			texts[i] = string(g)
			if g == nil {
				texts[i] = "<nil>"
			}
		}
		if diff := cmp.Diff(want, texts); diff != "" {
			t.Errorf("%s (native %v): ranges (-want +got):\n%s", what, native, diff)
		}
		if diff := cmp.Diff(infos, gotInfos); diff != "" {
			t.Errorf("%s (native %v): infos (-StatMany +ReadRanges):\n%s", what, native, diff)
		}
	}
	if err := s.View(ctx, scope, func(tx driver.ReadTx) error { check(tx, "View"); return nil }); err != nil {
		t.Fatal(err)
	}
}
