package fileio

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"

	"github.com/google/go-cmp/cmp"
)

// naiveEntriesBelow is the obvious definition of entriesBelow: collect every directory in a
// map, sort all entries, cut at maxEntries.
func naiveEntriesBelow(dir string, files []driver.FileInfo, depth, maxEntries int) []FileEntry {
	prefix := dirPrefix(dir)
	dirs := map[string]time.Time{}
	entries := []FileEntry{}
	for _, f := range files {
		segs := strings.Split(strings.TrimPrefix(f.Path, prefix), "/")
		for level := 1; level < len(segs) && level <= depth; level++ {
			d := prefix + strings.Join(segs[:level], "/")
			if f.UpdatedAt.After(dirs[d]) {
				dirs[d] = f.UpdatedAt
			}
		}
		if len(segs) <= depth {
			entries = append(entries, fileEntry(f))
		}
	}
	for d, t := range dirs {
		entries = append(entries, FileEntry{Name: baseName(d), Path: d, Type: TypeDirectory, UpdatedAt: t})
	}
	slices.SortFunc(entries, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return entries[:min(len(entries), maxEntries)]
}

// randomTree returns up to n files below /r with names chosen to stress bytewise order:
// "-" and "." sort before "/", so "/r/a-b" and "/r/a.c" come between "/r/a" and "/r/a/x".
// No path is both a file and a directory, as the Service guarantees.
func randomTree(rng *rand.Rand, n int) []driver.FileInfo {
	segs := []string{"a", "b", "a-b", "a.c", "ab", "b.d", "z"}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	byPath := map[string]driver.FileInfo{}
	for len(byPath) < n {
		p := "/r"
		for levels := 1 + rng.IntN(4); levels > 0; levels-- {
			p += "/" + segs[rng.IntN(len(segs))]
		}
		at := base.Add(time.Duration(rng.IntN(1000)) * time.Second)
		byPath[p] = driver.FileInfo{Path: p, SizeBytes: int64(rng.IntN(100)), CreatedAt: base, UpdatedAt: at}
	}
	var files []driver.FileInfo
	for p, f := range byPath {
		if !hasFileBelow(byPath, p) {
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b driver.FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// hasFileBelow reports whether some path in byPath lies below p (p would be a directory too).
func hasFileBelow(byPath map[string]driver.FileInfo, p string) bool {
	for q := range byPath {
		if strings.HasPrefix(q, p+"/") {
			return true
		}
	}
	return false
}

func TestEntriesBelowMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		files := randomTree(rng, 1+rng.IntN(40))
		for _, dir := range []string{"/r", "/r/a", "/r/a-b"} {
			var below []driver.FileInfo
			for _, f := range files {
				if strings.HasPrefix(f.Path, dir+"/") {
					below = append(below, f)
				}
			}
			for depth := 1; depth <= 5; depth++ {
				for _, maxEntries := range []int{1, 3, 1000} {
					got := entriesBelow(dir, below, depth, "", maxEntries)
					want := naiveEntriesBelow(dir, below, depth, maxEntries)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("round %d, dir %s, depth %d, max %d (-naive +got):\n%s", round, dir, depth, maxEntries, diff)
					}
				}
			}
		}
	}
}

func TestEntriesBelowOrdering(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2025, 1, 1, 0, 0, s, 0, time.UTC) }
	files := []driver.FileInfo{
		{Path: "/a-b/x", UpdatedAt: at(1)},
		{Path: "/a.c", UpdatedAt: at(2)},
		{Path: "/a/b/c", UpdatedAt: at(5)},
		{Path: "/a/d", UpdatedAt: at(3)},
		{Path: "/b", UpdatedAt: at(4)},
	}
	dirEntry := func(p string, s int) FileEntry {
		return FileEntry{Name: baseName(p), Path: p, Type: TypeDirectory, UpdatedAt: at(s)}
	}
	fileAt := func(i int) FileEntry { return fileEntry(files[i]) }
	// Bytewise order: "/a" < "/a-b" < "/a-b/x" < "/a.c" < "/a/b" < "/a/b/c" < "/a/d" < "/b".
	tests := []struct {
		depth, maxEntries int
		want              []FileEntry
	}{
		{1, 100, []FileEntry{dirEntry("/a", 5), dirEntry("/a-b", 1), fileAt(1), fileAt(4)}},
		{2, 100, []FileEntry{dirEntry("/a", 5), dirEntry("/a-b", 1), fileAt(0), fileAt(1), dirEntry("/a/b", 5), fileAt(3), fileAt(4)}},
		{2, 3, []FileEntry{dirEntry("/a", 5), dirEntry("/a-b", 1), fileAt(0)}},
		{3, 100, []FileEntry{dirEntry("/a", 5), dirEntry("/a-b", 1), fileAt(0), fileAt(1), dirEntry("/a/b", 5), fileAt(2), fileAt(3), fileAt(4)}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("depth=%d,max=%d", tc.depth, tc.maxEntries), func(t *testing.T) {
			if diff := cmp.Diff(tc.want, entriesBelow("", files, tc.depth, "", tc.maxEntries)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
