package difftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCopiesAgree: the disk copy and the in-memory copy of the standard tree hold the same
// files and directories, with the times the tree gives.
func TestCopiesAgree(t *testing.T) {
	tree := StandardTree()
	dir := t.TempDir()
	WriteDisk(t, dir, tree)
	diskFiles, diskDirs := ReadDisk(t, dir)
	want := map[string]string{}
	for p, f := range tree.Files {
		want[p] = f.Data
	}
	if d := cmp.Diff(want, diskFiles); d != "" {
		t.Errorf("disk copy (-tree +disk):\n%s", d)
	}
	mem := MemFS(tree)
	memFiles := map[string]string{}
	for p, f := range mem.Files() {
		memFiles[p[1:]] = f.Data
	}
	if d := cmp.Diff(want, memFiles); d != "" {
		t.Errorf("memory copy (-tree +memory):\n%s", d)
	}
	var memDirs []string
	for _, d := range mem.Dirs() {
		memDirs = append(memDirs, d[1:])
	}
	if d := cmp.Diff(diskDirs, memDirs); d != "" {
		t.Errorf("directories (-disk +memory):\n%s", d)
	}
	fi, err := os.Stat(filepath.Join(dir, "a.txt"))
	if err != nil || !fi.ModTime().Equal(tree.Files["a.txt"].ModTime) {
		t.Errorf("a.txt's time on disk: %v (%v), want %v", fi.ModTime(), err, tree.Files["a.txt"].ModTime)
	}
}

// TestOracleAndOursSeeTheSameInput: cat of a file and of standard input answers the same
// through the oracle and through the Go command.
func TestOracleAndOursSeeTheSameInput(t *testing.T) {
	tree := StandardTree()
	dir := t.TempDir()
	WriteDisk(t, dir, tree)
	for _, c := range []Case{
		{Args: []string{"cat", "crlf.txt", "noeol.txt"}},
		{Args: []string{"cat"}, Stdin: "from stdin\n"},
		{Args: []string{"cat", "inner.txt"}, Dir: ".hiddendir"},
		{Args: []string{"cat", "nosuch"}},
	} {
		want := Oracle(t, dir, c)
		got := Ours(t, MemFS(tree), c)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-oracle +ours):\n%s", c.name(), d)
		}
	}
}
