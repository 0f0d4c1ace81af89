package consult

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// workersTree makes 40 directories of .py files, each with a subdirectory named build.py, plus
// two symlinks (one dangling), and returns a files list that mixes patterns, literals,
// duplicates, overlapping patterns and bad entries.
func workersTree(t *testing.T) []string {
	t.Helper()
	files := map[string]string{}
	for d := 0; d < 40; d++ {
		for i := 0; i < 6; i++ {
			files[fmt.Sprintf("p%02d/m%d.py", d, i)] = "x\n"
		}
		files[fmt.Sprintf("p%02d/n.md", d)] = "x\n"
		files[fmt.Sprintf("p%02d/build.py/", d)] = ""
	}
	root := testfiles.Tree(t, files)
	if err := os.Symlink(root+"/p00/m0.py", root+"/p01/link.py"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root+"/p00/missing.py", root+"/p02/dangling.py"); err != nil {
		t.Fatal(err)
	}
	var entries []string
	for d := 39; d >= 0; d-- { // directories out of order, so the final sort has work to do
		entries = append(entries, fmt.Sprintf("%s/p%02d/*.py", root, d))
		if d%5 == 0 {
			entries = append(entries,
				fmt.Sprintf("%s/p%02d/m[0-2].py", root, d), // overlaps the entry above
				fmt.Sprintf("%s/p%02d/n.md", root, d),
				fmt.Sprintf("%s/p%02d/nothing*.py", root, d),
				fmt.Sprintf("%s/p%02d", root, d), // a directory
				"not/absolute.py")
		}
	}
	return append(entries, root+"/missing/*.py", root+"/p01/link.py", root+"/p02/dangling.py")
}

// TestExpandWorkersSameResult checks that expanding entries concurrently gives exactly the
// sequential answer: the same files and the same errors in the same order.
func TestExpandWorkersSameResult(t *testing.T) {
	entries := workersTree(t)
	expand := func(workers int) ([]string, []string) {
		x, err := NewExpander(ExpanderOptions{MaxFiles: 100})
		if err != nil {
			t.Fatal(err)
		}
		x.workers = workers
		files, errs := x.Expand(entries)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		return files, msgs
	}
	wantFiles, wantErrs := expand(1)
	if len(wantFiles) != 100 || len(wantErrs) < 20 {
		t.Fatalf("sequential expansion: %d files, %d errors; the fixture should give 100 (capped) and 20+", len(wantFiles), len(wantErrs))
	}
	for _, workers := range []int{2, 4, 16} {
		for round := 0; round < 3; round++ {
			files, errs := expand(workers)
			if diff := cmp.Diff(wantFiles, files); diff != "" {
				t.Fatalf("workers=%d files (-sequential +concurrent):\n%s", workers, diff)
			}
			if diff := cmp.Diff(wantErrs, errs); diff != "" {
				t.Fatalf("workers=%d errors (-sequential +concurrent):\n%s", workers, diff)
			}
		}
	}
}

func TestExpandContextCancelled(t *testing.T) {
	entries := workersTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files, errs, err := defaultExpander.ExpandContext(ctx, entries)
	if !errors.Is(err, context.Canceled) || files != nil || errs != nil {
		t.Errorf("ExpandContext(cancelled) = %d files, %d errors, %v; want nothing and context.Canceled", len(files), len(errs), err)
	}
	files, _, err = defaultExpander.ExpandContext(context.Background(), entries[:1])
	if err != nil || len(files) != 6 {
		t.Errorf("ExpandContext(one entry) = %d files, %v; want 6 files", len(files), err)
	}
}
