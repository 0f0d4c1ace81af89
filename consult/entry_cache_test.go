package consult

import (
	"fmt"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// TestEntryCacheSameAnswers expands the seed files list three times with one Expander (the
// second and third answers come from the cache) and once with a fresh Expander for each call.
func TestEntryCacheSameAnswers(t *testing.T) {
	root := testfiles.Tree(t, seedTree)
	entries := []string{
		root + "/project/*.py", root + "/project/docs/*.md", root + "/project/src/app.py",
		root + "/project/.env", "relative/*.py", root + "/project/*", root + "/missing/*.py",
	}
	fresh := func() ([]string, []entryErr) {
		x, err := NewExpander(ExpanderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		files, errs := x.Expand(entries)
		return files, simplify(errs, root)
	}
	wantFiles, wantErrs := fresh()
	x, err := NewExpander(ExpanderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var firstErrs []EntryError
	for round := 0; round < 3; round++ {
		files, errs := x.Expand(entries)
		if diff := cmp.Diff(wantFiles, files); diff != "" {
			t.Errorf("round %d files (-fresh +cached):\n%s", round, diff)
		}
		if diff := cmp.Diff(wantErrs, simplify(errs, root)); diff != "" {
			t.Errorf("round %d errors (-fresh +cached):\n%s", round, diff)
		}
		if round == 0 {
			firstErrs = errs
			continue
		}
		for i := range errs { // errors are never shared between calls
			if errs[i].Err == firstErrs[i].Err {
				t.Errorf("round %d: error %d is the same *agentfiles.Error as in round 0", round, i)
			}
		}
	}
	if n := len(x.entries.specs); n != 5 {
		t.Errorf("cache holds %d entries, want the 5 that parse", n)
	}
}

// TestEntryCacheStartsOver fills the cache past its bound; answers stay right and it stays small.
func TestEntryCacheStartsOver(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"d/a.py": "a\n", "d/b.go": "b\n"})
	x, err := NewExpander(ExpanderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxCachedEntries+10; i++ {
		entries := []string{fmt.Sprintf("%s/d/*%d.py", root, i), root + "/d/*.py"}
		files, _ := x.Expand(entries)
		if diff := cmp.Diff([]string{root + "/d/a.py"}, files); diff != "" {
			t.Fatalf("expansion %d (-want +got):\n%s", i, diff)
		}
		if n := len(x.entries.specs); n > maxCachedEntries {
			t.Fatalf("cache holds %d entries, over the bound %d", n, maxCachedEntries)
		}
	}
}
