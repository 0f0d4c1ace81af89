package fileio

import (
	"bufio"
	"os"
)

// spool is a temporary file of file contents one after the other. An import writes the files
// of its archive to one while it reads and checks the whole archive, before it opens the
// store's transaction; an export fills one from its transaction and sends the archive from it
// after: so the store's transaction (and its connection, and the project's lock) never waits
// for the client. The file is removed as soon as it is created (it stays readable through its
// descriptor), so nothing is left behind on a crash. Not safe for concurrent use.
type spool struct {
	f    *os.File
	w    *bufio.Writer
	size int64 // bytes written
}

// newSpool creates a spool in dir ("" is os.TempDir()).
func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "agentfiles-spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &spool{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add appends content and returns its offset.
func (s *spool) add(content []byte) (int64, error) {
	at := s.size
	n, err := s.w.Write(content)
	s.size += int64(n)
	return at, err
}

// done flushes what was added, so that readAt sees it.
func (s *spool) done() error { return s.w.Flush() }

// readAt reads n bytes at offset into a new buffer.
func (s *spool) readAt(offset, n int64) ([]byte, error) {
	buf := make([]byte, n)
	if _, err := s.f.ReadAt(buf, offset); err != nil {
		return nil, err
	}
	return buf, nil
}

// Close removes the spool.
func (s *spool) Close() error { return s.f.Close() }
