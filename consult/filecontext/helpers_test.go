package filecontext

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

// fcMemSource is an in-memory FileSource whose files tests change and delete between turns.
type fcMemSource struct {
	mu    sync.Mutex
	files map[string]string
	reads int
}

func newFCMemSource(files map[string]string) *fcMemSource {
	s := &fcMemSource{files: make(map[string]string)}
	for p, c := range files {
		s.files[p] = c
	}
	return s
}

func (s *fcMemSource) ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	c, ok := s.files[path]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if int64(len(c)) > maxBytes {
		c = c[:maxBytes+1]
	}
	return []byte(c), nil
}

func (s *fcMemSource) set(path, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = content
}

func (s *fcMemSource) remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, path)
}

// fcMarker is the unique marker that opens version v of a test file's content.
func fcMarker(path string, v int) string { return fmt.Sprintf("BEGIN[%s#%d]", path, v) }

// fcText returns version v of a test file: its marker, then filler up to exactly 4*tokens ASCII
// bytes, which the consult.EstimateCounter counts as exactly tokens tokens.
func fcText(path string, v int, tokens int) string {
	head := fcMarker(path, v) + "\n"
	n := 4 * tokens
	if len(head) > n {
		panic("fcText: marker longer than the content")
	}
	return head + strings.Repeat("x", n-len(head))
}
