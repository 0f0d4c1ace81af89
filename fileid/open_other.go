//go:build !unix

package fileid

import "os"

// openFlags open a file for reading (see open_unix.go; elsewhere the entry is stat'ed first).
const openFlags = os.O_RDONLY
