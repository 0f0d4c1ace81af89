// Package testfiles writes the small file trees that tests read: documentation roots, catalogs,
// projects to consult, and a root with a way out of it for the tests of confinement.
package testfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates files below dir, each a slash-separated path relative to dir mapped to its
// content, with the directories they need, and returns dir. A path ending in "/" names an empty
// directory (its content is ignored).
func Write(tb testing.TB, dir string, files map[string]string) string {
	tb.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// Tree writes files, as [Write] does, under a new temporary directory of tb and returns it.
func Tree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	return Write(tb, tb.TempDir(), files)
}

// RootAndOutside writes two trees side by side under a new temporary directory of tb, whose
// path has its links resolved (so that it equals the paths a confinement check derives from
// it): root/ with files and outside/ with outsideFiles, as [Write] does. Then, for each name →
// target of links, it makes root/name a symbolic link to outside/target. It returns the two
// directories.
func RootAndOutside(tb testing.TB, files, outsideFiles, links map[string]string) (root, outside string) {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	root = Write(tb, filepath.Join(base, "root"), files)
	outside = Write(tb, filepath.Join(base, "outside"), outsideFiles)
	for name, target := range links {
		if err := os.Symlink(filepath.Join(outside, filepath.FromSlash(target)), filepath.Join(root, filepath.FromSlash(name))); err != nil {
			tb.Fatal(err)
		}
	}
	return root, outside
}
