package fileio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"

	"github.com/agentfiles/agentfiles"
)

// ProjectFS is one project at one snapshot as an io/fs.FS (and fs.ReadDirFS, fs.ReadFileFS,
// fs.StatFS): hand a tenant's project to fs.WalkDir, template.ParseFS or http.FileServerFS.
// Names are fs.ValidPath names relative to the project root ("." is the root, "docs/a.md" the
// file /docs/a.md). Files have mode 0444 and their UpdatedAt as ModTime; directories, which
// are implicit in a project, mode fs.ModeDir|0555 and a zero ModTime. Every read answers as the
// project stood at the snapshot's position (see Snapshot); one that meets a later change fails
// with a CONFLICT error. It passes testing/fstest.TestFS.
//
// A ProjectFS reads with the context it was made with: its reads stop when that context ends.
// It is safe for concurrent use.
type ProjectFS struct {
	ctx context.Context
	sn  *Snapshot
}

var (
	_ fs.ReadDirFS  = (*ProjectFS)(nil)
	_ fs.ReadFileFS = (*ProjectFS)(nil)
	_ fs.StatFS     = (*ProjectFS)(nil)
)

// FS returns project as an io/fs.FS at one snapshot (see ProjectFS and Snapshot), reading with
// ctx, which must carry the caller's identity (agentfiles.WithAuth).
func (s *Service) FS(ctx context.Context, project string) (*ProjectFS, error) {
	sn, err := s.Snapshot(ctx, project)
	if err != nil {
		return nil, err
	}
	return sn.FS(ctx), nil
}

// FS returns the snapshot as an io/fs.FS reading with ctx.
func (sn *Snapshot) FS(ctx context.Context) *ProjectFS { return &ProjectFS{ctx: ctx, sn: sn} }

// Snapshot is the snapshot the FS reads.
func (f *ProjectFS) Snapshot() *Snapshot { return f.sn }

// fsPath turns an fs name into a Snapshot path, or fails as fs.FS methods must.
func fsPath(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return "", nil
	}
	return "/" + name, nil
}

// fsError rewraps an error of the snapshot as an fs.PathError naming the fs name.
func fsError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// Open opens the named file or directory.
func (f *ProjectFS) Open(name string) (fs.File, error) {
	p, err := fsPath("open", name)
	if err != nil {
		return nil, err
	}
	info, err := f.sn.Stat(f.ctx, p)
	if err != nil {
		return nil, fsError("open", name, err)
	}
	if info.IsDir() {
		entries, err := f.sn.ReadDir(f.ctx, p)
		if err != nil {
			return nil, fsError("open", name, err)
		}
		return &openDir{info: info, entries: entries, name: name}, nil
	}
	content, err := f.sn.ReadFile(f.ctx, p)
	if err != nil {
		return nil, fsError("open", name, err)
	}
	return &openFile{info: info, Reader: bytes.NewReader(content), name: name}, nil
}

// ReadFile returns the content of the named file (fs.ReadFileFS): a copy the caller may modify.
func (f *ProjectFS) ReadFile(name string) ([]byte, error) {
	p, err := fsPath("readfile", name)
	if err != nil {
		return nil, err
	}
	content, err := f.sn.ReadFile(f.ctx, p)
	if err != nil {
		return nil, fsError("readfile", name, err)
	}
	return slices.Clone(content), nil
}

// ReadDir lists the named directory, sorted by name (fs.ReadDirFS).
func (f *ProjectFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := fsPath("readdir", name)
	if err != nil {
		return nil, err
	}
	entries, err := f.sn.ReadDir(f.ctx, p)
	if err != nil {
		return nil, fsError("readdir", name, err)
	}
	return entries, nil
}

// Stat describes the named file or directory (fs.StatFS).
func (f *ProjectFS) Stat(name string) (fs.FileInfo, error) {
	p, err := fsPath("stat", name)
	if err != nil {
		return nil, err
	}
	info, err := f.sn.Stat(f.ctx, p)
	if err != nil {
		return nil, fsError("stat", name, err)
	}
	return info, nil
}

// openFile is an open file of a ProjectFS.
type openFile struct {
	*bytes.Reader
	info   fs.FileInfo
	name   string
	closed bool
}

func (o *openFile) Stat() (fs.FileInfo, error) { return o.info, nil }
func (o *openFile) Close() error {
	if o.closed {
		return &fs.PathError{Op: "close", Path: o.name, Err: fs.ErrClosed}
	}
	o.closed = true
	return nil
}

var _ io.ReaderAt = (*openFile)(nil)
var _ io.Seeker = (*openFile)(nil)

// openDir is an open directory of a ProjectFS (fs.ReadDirFile).
type openDir struct {
	info    fs.FileInfo
	entries []fs.DirEntry
	name    string
	at      int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Close() error               { return nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: agentfiles.NewError(agentfiles.CodeIsDirectory, path.Clean("/"+d.name)+" is a directory", d.name)}
}

// ReadDir implements fs.ReadDirFile.
func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.at:]
	if n <= 0 {
		d.at = len(d.entries)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.at += n
	return slices.Clone(rest[:n]), nil
}
