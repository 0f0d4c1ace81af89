//go:build !linux

package consult

import "os"

// openDirNoLinks reports that it cannot tell cheaply whether p has a symbolic link; the caller
// resolves p itself. (On Linux it opens p with openat2 and RESOLVE_NO_SYMLINKS.)
func openDirNoLinks(p string) (f *os.File, ok bool) { return nil, false }
