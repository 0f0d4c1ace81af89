//go:build linux

package consult

import (
	"errors"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// openat2Missing is set once openat2 turns out to be unavailable (a kernel before 5.6, or a
// sandbox that filters it), so that later calls go straight to the portable path.
var openat2Missing atomic.Bool

// openDirNoLinks opens the directory p when no element of p is a symbolic link, in the one
// system call that opening takes anyway (openat2 with RESOLVE_NO_SYMLINKS), so that p is then
// known to be its own real path without resolving it element by element. ok is false when p has
// a link, when openat2 is unavailable, or on any other failure: the caller then resolves p itself
// and reports the failure.
func openDirNoLinks(p string) (f *os.File, ok bool) {
	if openat2Missing.Load() {
		return nil, false
	}
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
			openat2Missing.Store(true)
		}
		return nil, false
	}
	return os.NewFile(uintptr(fd), p), true
}
