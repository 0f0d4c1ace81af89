package fileid

import (
	"io/fs"
	"os"
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
		return Root{}, newError(CodeInvalidRoot, "the directory path is empty; pass the documentation directory to serve", label)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return Root{}, wrapError(CodeInvalidRoot, "cannot open the directory; check that it exists, is a directory and is readable", dir, err)
	}
	return Root{Label: label, FS: r.FS()}, nil
}
