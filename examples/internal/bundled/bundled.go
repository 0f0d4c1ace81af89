// Package bundled is the content the example servers ship inside their binaries, so that they
// work from any directory after go install: a short Markdown guide to the agentfiles tools
// (docs/) and the example guide catalog with its documents (guide/catalog.yaml).
//
// # Extracting
//
// The documentation and catalog tools read real directories (the catalog confines category
// directories with os.Root), so [Extract] writes the bundle to a fresh temporary directory with
// read-only files; the caller removes it when it stops.
package bundled

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed docs guide
var content embed.FS

// Layout of an extracted bundle, relative to its directory.
const (
	DocsDir     = "docs"               // Markdown documentation for the fileid tools
	CatalogFile = "guide/catalog.yaml" // the example guide catalog for the expr tools
)

// Extract writes the bundle to a new temporary directory and returns it with a function that
// removes it. Files are read-only (0444).
func Extract() (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", "agentfiles-bundled-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	err = fs.WalkDir(content, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.Mkdir(dst, 0o755)
		}
		b, err := content.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o444)
	})
	if err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}
