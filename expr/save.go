package expr

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentfiles/agentfiles"
)

// writeAtomic replaces the file at path with data: it writes a temporary file in the same
// directory, syncs it and renames it over path, so readers see the old or the new catalog,
// never a mix. If the file no longer holds old (someone edited it), nothing is written.
func writeAtomic(path string, old, data []byte) error {
	cur, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Equal(cur, old):
		return agentfiles.NewError(CodeCatalogChanged, "the catalog file was changed on disk since it was loaded; nothing was saved. Reload the catalog and retry", filepath.Base(path))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return internalError("cannot read the catalog file before saving; nothing was saved", err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return internalError("cannot create a temporary file next to the catalog; nothing was saved", err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return internalError("cannot write the catalog file; nothing was saved", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return internalError("cannot replace the catalog file; nothing was saved", err)
	}
	return nil
}
