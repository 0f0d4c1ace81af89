// Package memfs is a small in-memory commands.FS for tests: a map of project paths to files,
// plus the empty directories a command line made. It keeps the rules the contract states
// (absolute project paths, implicit parent directories, errors wrapping fs.ErrNotExist,
// fs.ErrExist and fs.ErrInvalid) so the commands' unit and differential tests, and the
// shell's own, can run without a store.
//
// # Use
//
//	fsys := memfs.New(map[string]memfs.File{"/a.txt": {Data: "hi\n"}})
//	env := &commands.Env{FS: fsys, Stdout: &out}
//
// Files() returns the tree afterwards, to compare with what a command should leave.
package memfs

import (
	"context"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// File is one file of the tree.
type File struct {
	Data    string
	ModTime time.Time
}

// FS is the in-memory tree. Its methods are safe for concurrent use.
type FS struct {
	mu    sync.Mutex
	files map[string]file
	dirs  map[string]time.Time // directories made explicitly (mkdir), with their times
	// DirTime is the modification time directories report.
	DirTime time.Time
	// sorted is every file path in byte order, rebuilt after a change (nil when stale), so
	// listing a directory is a binary search rather than a scan of the tree.
	sorted []string
}

// paths returns the sorted file paths; m.mu is held.
func (m *FS) paths() []string {
	if m.sorted == nil {
		m.sorted = make([]string, 0, len(m.files))
		for p := range m.files {
			m.sorted = append(m.sorted, p)
		}
		sort.Strings(m.sorted)
	}
	return m.sorted
}

// under returns the sorted file paths that start with prefix; m.mu is held.
func (m *FS) under(prefix string) []string {
	ps := m.paths()
	i := sort.SearchStrings(ps, prefix)
	j := i
	for j < len(ps) && strings.HasPrefix(ps[j], prefix) {
		j++
	}
	return ps[i:j]
}

// file is a File as the FS holds it: ReadFile hands out data itself (callers must not
// modify it), so reading costs no copy.
type file struct {
	data    []byte
	modTime time.Time
}

// New returns an FS holding files (keys are absolute project paths such as "/a/b.txt").
func New(files map[string]File) *FS {
	m := &FS{files: make(map[string]file, len(files)), dirs: map[string]time.Time{}}
	for p, f := range files {
		m.files[path.Clean(p)] = file{data: []byte(f.Data), modTime: f.ModTime}
		m.sorted = nil
	}
	return m
}

// AddDir makes an empty directory (with its parents).
func (m *FS) AddDir(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := path.Clean(name); d != "/"; d = path.Dir(d) {
		if _, ok := m.dirs[d]; !ok {
			m.dirs[d] = m.DirTime
		}
	}
}

// Files returns a copy of the tree's files.
func (m *FS) Files() map[string]File {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]File, len(m.files))
	for p, f := range m.files {
		out[p] = File{Data: string(f.data), ModTime: f.modTime}
	}
	return out
}

// Dirs returns every directory of the tree but "/", sorted.
func (m *FS) Dirs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	set := map[string]bool{}
	for d := range m.dirs {
		set[d] = true
	}
	for p := range m.files {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

type info struct {
	name string
	size int64
	dir  bool
	mod  time.Time
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) ModTime() time.Time { return i.mod }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

type entry struct{ info }

func (e entry) Type() fs.FileMode          { return e.Mode().Type() }
func (e entry) Info() (fs.FileInfo, error) { return e.info, nil }

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// isDir reports whether name is a directory; m.mu is held.
func (m *FS) isDir(name string) bool {
	if name == "/" {
		return true
	}
	if _, ok := m.dirs[name]; ok {
		return true
	}
	return len(m.under(name+"/")) > 0
}

func (m *FS) stat(name string) (info, bool) {
	base := path.Base(name)
	if f, ok := m.files[name]; ok {
		return info{name: base, size: int64(len(f.data)), mod: f.modTime}, true
	}
	if m.isDir(name) {
		t, ok := m.dirs[name]
		if !ok {
			t = m.DirTime
		}
		return info{name: base, dir: true, mod: t}, true
	}
	return info{}, false
}

func check(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !path.IsAbs(name) || path.Clean(name) != name {
		return pathErr("open", name, fs.ErrInvalid)
	}
	return nil
}

// Stat implements commands.FS.
func (m *FS) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := check(ctx, name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, ok := m.stat(name); ok {
		return i, nil
	}
	if m.parentIsFile(name) {
		return nil, pathErr("stat", name, fs.ErrInvalid)
	}
	return nil, pathErr("stat", name, fs.ErrNotExist)
}

func (m *FS) parentIsFile(name string) bool {
	for d := path.Dir(name); d != "/"; d = path.Dir(d) {
		if _, ok := m.files[d]; ok {
			return true
		}
	}
	return false
}

// ReadDir implements commands.FS.
func (m *FS) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	if err := check(ctx, name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok {
		return nil, pathErr("readdir", name, fs.ErrInvalid)
	}
	if !m.isDir(name) {
		return nil, pathErr("readdir", name, fs.ErrNotExist)
	}
	prefix := name + "/"
	if name == "/" {
		prefix = "/"
	}
	children := map[string]bool{}
	add := func(p string) {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			child, _, _ := strings.Cut(rest, "/")
			children[child] = true
		}
	}
	for _, p := range m.under(prefix) {
		add(p)
	}
	for d := range m.dirs {
		add(d)
	}
	out := make([]fs.DirEntry, 0, len(children))
	for c := range children {
		i, _ := m.stat(prefix + c)
		out = append(out, entry{i})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name() < out[b].Name() })
	return out, nil
}

// ReadFile implements commands.FS.
func (m *FS) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if err := check(ctx, name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[name]; ok {
		return f.data, nil
	}
	if m.isDir(name) || m.parentIsFile(name) {
		return nil, pathErr("read", name, fs.ErrInvalid)
	}
	return nil, pathErr("open", name, fs.ErrNotExist)
}

func (m *FS) now() time.Time { return m.DirTime }

// WriteFile implements commands.FS.
func (m *FS) WriteFile(ctx context.Context, name string, data []byte, appendData bool) error {
	if err := check(ctx, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if name == "/" || m.isDir(name) || m.parentIsFile(name) {
		return pathErr("open", name, fs.ErrInvalid)
	}
	f := m.files[name]
	if appendData {
		// A new slice: the old one may be held by a reader.
		f.data = append(append(make([]byte, 0, len(f.data)+len(data)), f.data...), data...)
	} else {
		f.data = append([]byte(nil), data...)
	}
	f.modTime = m.now()
	m.files[name] = f
	m.sorted = nil
	return nil
}

// Mkdir implements commands.FS.
func (m *FS) Mkdir(ctx context.Context, name string, parents bool) error {
	if err := check(ctx, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok || m.parentIsFile(name) {
		if parents {
			return pathErr("mkdir", name, fs.ErrInvalid)
		}
		return pathErr("mkdir", name, fs.ErrExist)
	}
	if m.isDir(name) {
		if parents {
			return nil
		}
		return pathErr("mkdir", name, fs.ErrExist)
	}
	if !parents && !m.isDir(path.Dir(name)) {
		return pathErr("mkdir", name, fs.ErrNotExist)
	}
	for d := name; d != "/"; d = path.Dir(d) {
		if !m.isDir(d) {
			m.dirs[d] = m.now()
		}
	}
	return nil
}

// Remove implements commands.FS.
func (m *FS) Remove(ctx context.Context, name string, recursive bool) error {
	if err := check(ctx, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[name]; ok {
		delete(m.files, name)
		m.sorted = nil
		m.keepParent(name)
		return nil
	}
	if name == "/" || !m.isDir(name) {
		return pathErr("remove", name, fs.ErrNotExist)
	}
	prefix := name + "/"
	if !recursive {
		for p := range m.files {
			if strings.HasPrefix(p, prefix) {
				return pathErr("remove", name, fs.ErrExist) // not empty
			}
		}
		for d := range m.dirs {
			if strings.HasPrefix(d, prefix) {
				return pathErr("remove", name, fs.ErrExist)
			}
		}
	}
	for p := range m.files {
		if strings.HasPrefix(p, prefix) {
			delete(m.files, p)
			m.sorted = nil
		}
	}
	for d := range m.dirs {
		if d == name || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
		}
	}
	m.keepParent(name)
	return nil
}

// keepParent keeps the parent of a removed name as an (explicit) directory, as a disk does.
func (m *FS) keepParent(name string) {
	if d := path.Dir(name); d != "/" && !m.isDir(d) {
		m.dirs[d] = m.now()
	}
}

// Rename implements commands.FS.
func (m *FS) Rename(ctx context.Context, oldName, newName string) error {
	if err := check(ctx, oldName); err != nil {
		return err
	}
	if err := check(ctx, newName); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[oldName]; ok {
		if m.isDir(newName) || m.parentIsFile(newName) {
			return pathErr("rename", newName, fs.ErrInvalid)
		}
		delete(m.files, oldName)
		m.sorted = nil
		m.files[newName] = f
		m.sorted = nil
		m.keepParent(oldName)
		return nil
	}
	if oldName == "/" || !m.isDir(oldName) {
		return pathErr("rename", oldName, fs.ErrNotExist)
	}
	if newName == oldName || strings.HasPrefix(newName, oldName+"/") {
		return pathErr("rename", newName, fs.ErrInvalid)
	}
	if _, ok := m.files[newName]; ok || m.parentIsFile(newName) {
		return pathErr("rename", newName, fs.ErrInvalid)
	}
	oldPrefix, newPrefix := oldName+"/", newName+"/"
	if m.isDir(newName) {
		for p := range m.files {
			if strings.HasPrefix(p, newPrefix) {
				return pathErr("rename", newName, fs.ErrExist)
			}
		}
	}
	for p, f := range m.files {
		if strings.HasPrefix(p, oldPrefix) {
			delete(m.files, p)
			m.sorted = nil
			m.files[newPrefix+p[len(oldPrefix):]] = f
			m.sorted = nil
		}
	}
	for d, t := range m.dirs {
		if d == oldName || strings.HasPrefix(d, oldPrefix) {
			delete(m.dirs, d)
			m.dirs[newName+d[len(oldName):]] = t
		}
	}
	m.dirs[newName] = m.now()
	m.keepParent(oldName)
	return nil
}

// Touch implements commands.FS.
func (m *FS) Touch(ctx context.Context, name string, t time.Time) error {
	if err := check(ctx, name); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.files[name]; ok {
		f.modTime = t
		m.files[name] = f
		m.sorted = nil
		return nil
	}
	if m.isDir(name) {
		m.dirs[name] = t
		return nil
	}
	if name == "/" || m.parentIsFile(name) || !m.isDir(path.Dir(name)) {
		return pathErr("touch", name, fs.ErrNotExist)
	}
	m.files[name] = file{modTime: t}
	m.sorted = nil
	return nil
}
