//go:build linux

package consult

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenDirNoLinks: the one-call open succeeds for a directory without links and refuses
// one reached through a link, so that the link is resolved and checked by the slow path.
func TestOpenDirNoLinks(t *testing.T) {
	base := rootsTree(t)
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY, Resolve: unix.RESOLVE_NO_SYMLINKS}
	if fd, err := unix.Openat2(unix.AT_FDCWD, base, &how); errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("openat2 is not available here: %v", err)
	} else if err == nil {
		unix.Close(fd)
	}
	f, ok := openDirNoLinks(filepath.Join(base, "root/sub"))
	if !ok {
		t.Fatal("a directory without links was not opened directly")
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil || len(names) != 1 || names[0] != "a.txt" {
		t.Errorf("listing: %v %v", names, err)
	}
	for _, p := range []string{filepath.Join(base, "root/linkdir"), filepath.Join(base, "rootlink/sub"), filepath.Join(base, "missing")} {
		if f, ok := openDirNoLinks(p); ok {
			f.Close()
			t.Errorf("%s was opened directly", p)
		}
	}
}

// TestExpandWithoutOpenat2 runs the roots and ignore tests on the portable path, as on a kernel
// without openat2.
func TestExpandWithoutOpenat2(t *testing.T) {
	if openat2Missing.Load() {
		t.Skip("openat2 is unavailable: every test already takes the portable path")
	}
	openat2Missing.Store(true)
	defer openat2Missing.Store(false)
	t.Run("roots", TestRootsConfineExpansion)
	t.Run("ignore", TestIgnoreAppliesToResolvedPath)
	t.Run("many", TestRootsMany)
}
