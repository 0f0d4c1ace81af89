package fileid

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentfiles/agentfiles"
)

// Root is one documentation directory. Roots are scanned in the order given to [New]; the
// Label is shown to agents as sourceDirectory and need not be a real path.
//
// A Root is a plain value; its FS must be safe for concurrent reads (os.Root's FS and
// fstest.MapFS are).
type Root struct {
	Label string // shown as sourceDirectory, e.g. "/primary" or "docs"
	FS    fs.FS  // the files; usually from DirRoot
}

// DirRoot opens dir with os.OpenRoot and returns a Root over its FS, so that symbolic links
// cannot lead outside dir. An empty label means the directory path as given. The directory
// stays open for the life of the process (one file descriptor per root).
//
// A missing or unreadable directory fails with INVALID_ROOT.
func DirRoot(label, dir string) (Root, error) {
	if label == "" {
		label = dir
	}
	if dir == "" {
		return Root{}, agentfiles.NewError(CodeInvalidRoot, "the directory path is empty; pass the documentation directory to serve", label)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return Root{}, agentfiles.WrapError(CodeInvalidRoot, "cannot open the directory; check that it exists, is a directory and is readable", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = "" // list directories through the root instead
	}
	return Root{Label: label, FS: &dirFS{root: r, fsys: r.FS(), path: abs}}, nil
}

// dirFS is the fs.FS of a DirRoot: the FS of an os.Root, which keeps every access inside the
// directory, plus the *os.Root itself so that New can walk it efficiently. It implements
// fs.ReadDirFS, fs.ReadFileFS and fs.StatFS like the os.Root FS it wraps, and is safe for
// concurrent use.
type dirFS struct {
	root *os.Root
	fsys fs.FS
	path string // absolute path of the directory when DirRoot opened it, for listing; or ""
}

func (d *dirFS) Open(name string) (fs.File, error) { return d.fsys.Open(name) }

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.fsys, name) }

func (d *dirFS) ReadFile(name string) ([]byte, error) { return fs.ReadFile(d.fsys, name) }

func (d *dirFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.fsys, name) }
