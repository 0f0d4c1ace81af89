// Package bundled is the content the example servers ship inside their binaries, so that they
// work from any directory after go install: a short Markdown guide to the agentfiles tools
// (docs/) and the example guide catalog with its documents (guide/catalog.yaml).
//
// # Extracting
//
// The documentation and catalog tools read real directories (the catalog confines category
// directories with os.Root), so the bundle is written out with read-only files. [Extract]
// writes it once per version of its content to the user's cache directory and keeps it there:
// its path, which tool descriptions show, is the same on every run of the same build.
// [ExtractTemp] writes a private copy to a fresh temporary directory, for a caller that may
// change it.
package bundled

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
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

// Extract returns the directory of the bundle in the user's cache directory
// (os.UserCacheDir()/agentfiles/bundled-HASH, HASH naming the content), writing it first when
// this version of the content is not there yet. Concurrent runs are safe: the directory is
// written under a temporary name and renamed into place. Without a cache directory (no $HOME)
// it falls back to a fresh temporary directory removed by remove; otherwise remove does nothing.
func Extract() (dir string, remove func(), err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ExtractTemp()
	}
	parent := filepath.Join(cache, "agentfiles")
	dir = filepath.Join(parent, "bundled-"+contentHash())
	if _, err := os.Stat(filepath.Join(dir, CatalogFile)); err == nil {
		return dir, func() {}, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return ExtractTemp()
	}
	tmp, err := os.MkdirTemp(parent, "extracting-")
	if err != nil {
		return ExtractTemp()
	}
	if err := write(tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return "", nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run renamed its copy into place first: use that one.
		_ = os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, CatalogFile)); statErr != nil {
			return "", nil, errors.Join(err, statErr)
		}
	}
	return dir, func() {}, nil
}

// ExtractTemp writes the bundle to a new temporary directory and returns it with a function
// that removes it. Files are read-only (0444).
func ExtractTemp() (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", "agentfiles-bundled-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	if err := write(dir); err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}

// write writes the bundle below dir, which exists and is empty.
func write(dir string) error {
	return fs.WalkDir(content, ".", func(p string, d fs.DirEntry, err error) error {
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
}

// contentHash names the bundle's content: the first 12 hex digits of a SHA-256 over every path
// and file.
func contentHash() string {
	h := sha256.New()
	_ = fs.WalkDir(content, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := content.ReadFile(p)
		if err != nil {
			return err
		}
		h.Write([]byte(p))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}
