//go:build unix

package fileid

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without blocking: opening a FIFO (a named pipe, perhaps
// behind a symbolic link named like a Markdown file) would otherwise wait for a writer
// forever. O_NONBLOCK changes nothing for regular files; readFile rejects anything else.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
