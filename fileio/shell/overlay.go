package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/shell/internal/commands"
)

// overlay is the project as one command sees it: a snapshot plus the command's own writes,
// which Commit makes real at the end. It implements commands.FS and is safe for concurrent
// use (pipeline stages run at once).
type overlay struct {
	sn   *fileio.Snapshot
	rule fileio.PathRule

	mu      sync.Mutex
	files   map[string]*entry // paths the command wrote or removed (change with set)
	dirs    map[string]bool   // directories the command made (change with addDir, removeDir)
	live    map[string]int    // per directory: the written files and made directories below it
	removed map[string]int    // per directory: the removed paths below it
	written int64             // bytes written so far
	budget  int64             // Config.ShellMaxWriteBytes
	maxFile int64             // Config.MaxFileBytes
	over    bool              // the write budget was exceeded
	done    bool              // the command ended: no more writes
	now     func() time.Time
	// onConflict is told of every snapshot read that met a change made after the snapshot.
	onConflict func(error)
}

// entry is a path the command wrote (data) or removed (deleted).
type entry struct {
	data    []byte
	deleted bool
	mod     time.Time
}

var _ commands.FS = (*overlay)(nil)

func newOverlay(sn *fileio.Snapshot, cfg fileio.Config) *overlay {
	return &overlay{sn: sn, rule: cfg.PathRule, files: map[string]*entry{}, dirs: map[string]bool{}, live: map[string]int{}, removed: map[string]int{},
		budget: cfg.ShellMaxWriteBytes, maxFile: cfg.MaxFileBytes, now: time.Now}
}

// Errors the overlay returns, with the text GNU tools print for them.
var (
	errIsDir    = &fsErr{"Is a directory", fs.ErrInvalid}
	errNotDir   = &fsErr{"Not a directory", fs.ErrInvalid}
	errNotEmpty = &fsErr{"Directory not empty", fs.ErrInvalid}
	errTooLarge = &fsErr{"File too large", fs.ErrInvalid}
	errEnded    = &fsErr{"the command has ended", fs.ErrClosed}
)

// fsErr is an error with GNU's text that wraps an io/fs sentinel.
type fsErr struct {
	text string
	kind error
}

func (e *fsErr) Error() string { return e.text }
func (e *fsErr) Unwrap() error { return e.kind }

// budgetError is the error of a write past Config.ShellMaxWriteBytes.
type budgetError struct{ limit int64 }

func (e *budgetError) Error() string {
	return fmt.Sprintf("file_shell: this command wrote more than %d bytes to files, its limit (shell_max_write_bytes)", e.limit)
}

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// messageOf is the message of a coded error, without its code.
func messageOf(err error) string {
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// clean is name as an absolute, clean project path.
func clean(name string) string { return path.Clean("/" + name) }

// snapErr maps a Snapshot error to what commands expect: fs.ErrNotExist, fs.ErrInvalid, or the
// coded error itself (CONFLICT, TIMEOUT, …), which commands print as its text.
func (o *overlay) snapErr(op, name string, err error) error {
	if agentfiles.ErrorCode(err) == fileio.CodeConflict && o.onConflict != nil {
		o.onConflict(err)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pathErr(op, name, fs.ErrNotExist)
	case agentfiles.ErrorCode(err) == agentfiles.CodeIsDirectory:
		return pathErr(op, name, errIsDir)
	case agentfiles.ErrorCode(err) == fileio.CodeNotDirectory:
		return pathErr(op, name, errNotDir)
	}
	return err
}

// Stat implements commands.FS.
func (o *overlay) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stat(ctx, p)
}

func (o *overlay) stat(ctx context.Context, p string) (fs.FileInfo, error) {
	if e := o.files[p]; e != nil && !e.deleted {
		return info{name: path.Base(p), size: int64(len(e.data)), mod: e.mod}, nil
	}
	if p == "/" || o.dirs[p] || o.hasLiveBelow(p) {
		return info{name: path.Base(p), dir: true}, nil
	}
	if e := o.files[p]; e != nil && e.deleted {
		return nil, pathErr("stat", p, fs.ErrNotExist)
	}
	fi, err := o.sn.Stat(ctx, p)
	if err != nil {
		return nil, o.snapErr("stat", p, err)
	}
	if !fi.IsDir() {
		return info{name: fi.Name(), size: fi.Size(), mod: fi.ModTime()}, nil
	}
	if !o.removedBelow(p) {
		return info{name: fi.Name(), dir: true}, nil
	}
	// Some files below p were removed: p still exists if one of its snapshot files was not.
	files, err := o.sn.Files(ctx, p)
	if err != nil {
		return nil, o.snapErr("stat", p, err)
	}
	for _, f := range files {
		if e := o.files[f.Path]; e == nil || !e.deleted {
			return info{name: fi.Name(), dir: true}, nil
		}
	}
	return nil, pathErr("stat", p, fs.ErrNotExist)
}

// hasLiveBelow reports whether the command wrote a file or made a directory below p.
func (o *overlay) hasLiveBelow(p string) bool { return o.live[p] > 0 }

// removedBelow reports whether the command removed a path below p.
func (o *overlay) removedBelow(p string) bool { return o.removed[p] > 0 }

// set records what the command did at p, keeping the counts of live and removed paths below
// each directory, so that hasLiveBelow and removedBelow cost a map lookup.
func (o *overlay) set(p string, e *entry) {
	if old := o.files[p]; old != nil {
		o.count(p, old.deleted, -1)
	}
	o.files[p] = e
	o.count(p, e.deleted, +1)
}

// count adds n to the live (or removed) count of every directory above p.
func (o *overlay) count(p string, removed bool, n int) {
	m := o.live
	if removed {
		m = o.removed
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		m[d] += n
		if m[d] == 0 {
			delete(m, d)
		}
		if d == "/" {
			return
		}
	}
}

// addDir records a directory the command made.
func (o *overlay) addDir(d string) {
	if !o.dirs[d] {
		o.dirs[d] = true
		o.count(d, false, +1)
	}
}

// removeDir forgets a directory the command made.
func (o *overlay) removeDir(d string) {
	if o.dirs[d] {
		delete(o.dirs, d)
		o.count(d, false, -1)
	}
}

// ReadDir implements commands.FS.
func (o *overlay) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	fi, err := o.stat(ctx, p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, pathErr("readdir", p, errNotDir)
	}
	byName := map[string]fs.DirEntry{}
	snapDir, err := o.sn.Stat(ctx, p)
	if err == nil && snapDir.IsDir() {
		entries, err := o.sn.ReadDir(ctx, p)
		if err != nil {
			return nil, o.snapErr("readdir", p, err)
		}
		for _, e := range entries {
			child := path.Join(p, e.Name())
			if oe := o.files[child]; oe != nil {
				continue // written or removed: below
			}
			if e.IsDir() && o.removedBelow(child) {
				if _, err := o.stat(ctx, child); err != nil {
					continue
				}
			}
			byName[e.Name()] = e
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, o.snapErr("readdir", p, err)
	}
	prefix := strings.TrimSuffix(p, "/") + "/"
	for q, e := range o.files {
		if !strings.HasPrefix(q, prefix) || e.deleted {
			continue
		}
		rest := q[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			byName[rest[:i]] = fs.FileInfoToDirEntry(info{name: rest[:i], dir: true})
			continue
		}
		byName[rest] = fs.FileInfoToDirEntry(info{name: rest, size: int64(len(e.data)), mod: e.mod})
	}
	for d := range o.dirs {
		if !strings.HasPrefix(d, prefix) {
			continue
		}
		rest := d[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[:i]
		}
		if _, ok := byName[rest]; !ok {
			byName[rest] = fs.FileInfoToDirEntry(info{name: rest, dir: true})
		}
	}
	out := make([]fs.DirEntry, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// ReadFile implements commands.FS.
func (o *overlay) ReadFile(ctx context.Context, name string) ([]byte, error) {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.read(ctx, p)
}

func (o *overlay) read(ctx context.Context, p string) ([]byte, error) {
	if e := o.files[p]; e != nil {
		if e.deleted {
			if o.dirs[p] || o.hasLiveBelow(p) {
				return nil, pathErr("read", p, errIsDir)
			}
			return nil, pathErr("read", p, fs.ErrNotExist)
		}
		return e.data, nil
	}
	if p == "/" || o.dirs[p] || o.hasLiveBelow(p) {
		return nil, pathErr("read", p, errIsDir)
	}
	c, err := o.sn.ReadFile(ctx, p)
	if err != nil {
		return nil, o.snapErr("read", p, err)
	}
	return c, nil
}

// checkWritable returns the error of writing a file at p, whose parents appear with it.
func (o *overlay) checkWritable(ctx context.Context, p string) error {
	if o.done {
		return pathErr("write", p, errEnded)
	}
	if p == "/" {
		return pathErr("write", p, errIsDir)
	}
	if err := o.rule.Validate(p); err != nil {
		return pathErr("write", p, &fsErr{messageOf(err), fs.ErrInvalid})
	}
	if fi, err := o.stat(ctx, p); err == nil && fi.IsDir() {
		return pathErr("write", p, errIsDir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		fi, err := o.stat(ctx, d)
		switch {
		case err == nil && !fi.IsDir():
			return pathErr("write", p, errNotDir)
		case err == nil:
			return nil // an existing directory: its parents exist too
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	return nil
}

// charge counts n bytes written against the budget.
func (o *overlay) charge(p string, n int) error {
	o.written += int64(n)
	if o.written > o.budget {
		o.over = true
		return pathErr("write", p, &budgetError{o.budget})
	}
	return nil
}

// WriteFile implements commands.FS.
func (o *overlay) WriteFile(ctx context.Context, name string, data []byte, appendData bool) error {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.write(ctx, p, data, appendData)
}

func (o *overlay) write(ctx context.Context, p string, data []byte, appendData bool) error {
	if e := o.files[p]; appendData && e != nil && !e.deleted && !o.done {
		// A file this command wrote: the checks below held when it was made and still do
		// (only this command changes its view).
		if err := o.charge(p, len(data)); err != nil {
			return err
		}
		if int64(len(e.data)+len(data)) > o.maxFile {
			return pathErr("write", p, errTooLarge)
		}
		e.data = append(e.data, data...)
		return nil
	}
	if err := o.checkWritable(ctx, p); err != nil {
		return err
	}
	if err := o.charge(p, len(data)); err != nil {
		return err
	}
	var content []byte
	if appendData {
		old, err := o.read(ctx, p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if e := o.files[p]; e != nil && !e.deleted {
			content = e.data // ours to grow
		} else {
			content = slices.Clip(old)
		}
	}
	if int64(len(content)+len(data)) > o.maxFile {
		return pathErr("write", p, errTooLarge)
	}
	content = append(content, data...)
	if !appendData {
		content = slices.Clone(data)
		if content == nil {
			content = []byte{}
		}
	}
	o.set(p, &entry{data: content, mod: o.now()})
	return nil
}

// Mkdir implements commands.FS.
func (o *overlay) Mkdir(ctx context.Context, name string, parents bool) error {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return pathErr("mkdir", p, errEnded)
	}
	fi, err := o.stat(ctx, p)
	switch {
	case err == nil && fi.IsDir() && parents:
		return nil
	case err == nil:
		return pathErr("mkdir", p, fs.ErrExist)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := o.rule.Validate(p); err != nil {
		return pathErr("mkdir", p, &fsErr{messageOf(err), fs.ErrInvalid})
	}
	var made []string
	for d := p; d != "/"; d = path.Dir(d) {
		fi, err := o.stat(ctx, d)
		if err == nil {
			if !fi.IsDir() {
				return pathErr("mkdir", p, errNotDir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if d != p && !parents {
			return pathErr("mkdir", p, fs.ErrNotExist)
		}
		made = append(made, d)
	}
	for _, d := range made {
		o.addDir(d)
	}
	return nil
}

// Remove implements commands.FS.
func (o *overlay) Remove(ctx context.Context, name string, recursive bool) error {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return pathErr("remove", p, errEnded)
	}
	fi, err := o.stat(ctx, p)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		o.set(p, &entry{deleted: true})
		return nil
	}
	if p == "/" && !recursive {
		return pathErr("remove", p, errIsDir)
	}
	below, err := o.below(ctx, p)
	if err != nil {
		return err
	}
	if !recursive && (len(below) > 0 || o.hasLiveBelow(p)) {
		return pathErr("remove", p, errNotEmpty)
	}
	for _, f := range below {
		o.set(f, &entry{deleted: true})
	}
	for d := range o.dirs {
		if d == p || strings.HasPrefix(d, strings.TrimSuffix(p, "/")+"/") {
			o.removeDir(d)
		}
	}
	return nil
}

// below lists the files below directory p as the command sees them, in path order.
func (o *overlay) below(ctx context.Context, p string) ([]string, error) {
	set := map[string]bool{}
	files, err := o.sn.Files(ctx, p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, o.snapErr("list", p, err)
	}
	for _, f := range files {
		if e := o.files[f.Path]; e == nil || !e.deleted {
			set[f.Path] = true
		}
	}
	prefix := strings.TrimSuffix(p, "/") + "/"
	for q, e := range o.files {
		if strings.HasPrefix(q, prefix) && !e.deleted {
			set[q] = true
		}
	}
	out := make([]string, 0, len(set))
	for q := range set {
		out = append(out, q)
	}
	slices.Sort(out)
	return out, nil
}

// Rename implements commands.FS.
func (o *overlay) Rename(ctx context.Context, oldName, newName string) error {
	from, to := clean(oldName), clean(newName)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		return pathErr("rename", from, errEnded)
	}
	fi, err := o.stat(ctx, from)
	if err != nil {
		return err
	}
	if from == to {
		return nil
	}
	if fi.IsDir() && (to == from || strings.HasPrefix(to, from+"/")) {
		return pathErr("rename", to, &fsErr{"Invalid argument", fs.ErrInvalid})
	}
	dst, err := o.stat(ctx, to)
	switch {
	case err == nil && dst.IsDir() && !fi.IsDir():
		return pathErr("rename", to, errIsDir)
	case err == nil && !dst.IsDir() && fi.IsDir():
		return pathErr("rename", to, errNotDir)
	case err == nil && dst.IsDir():
		if b, err := o.below(ctx, to); err != nil || len(b) > 0 || o.hasLiveBelow(to) {
			if err != nil {
				return err
			}
			return pathErr("rename", to, errNotEmpty)
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if !fi.IsDir() {
		data, err := o.read(ctx, from)
		if err != nil {
			return err
		}
		if err := o.place(ctx, to, data); err != nil {
			return err
		}
		o.set(from, &entry{deleted: true})
		return nil
	}
	below, err := o.below(ctx, from)
	if err != nil {
		return err
	}
	for _, f := range below {
		data, err := o.read(ctx, f)
		if err != nil {
			return err
		}
		if err := o.place(ctx, to+strings.TrimPrefix(f, from), data); err != nil {
			return err
		}
		o.set(f, &entry{deleted: true})
	}
	for d := range o.dirs {
		if d == from || strings.HasPrefix(d, from+"/") {
			o.removeDir(d)
			o.addDir(to + strings.TrimPrefix(d, from))
		}
	}
	if len(below) == 0 {
		o.addDir(to)
	}
	return nil
}

// place puts data (shared, not copied: a rename writes no new bytes) at p.
func (o *overlay) place(ctx context.Context, p string, data []byte) error {
	if err := o.checkWritable(ctx, p); err != nil {
		return err
	}
	o.set(p, &entry{data: slices.Clip(data), mod: o.now()})
	return nil
}

// Touch implements commands.FS.
func (o *overlay) Touch(ctx context.Context, name string, t time.Time) error {
	p := clean(name)
	o.mu.Lock()
	defer o.mu.Unlock()
	fi, err := o.stat(ctx, p)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		data, err := o.read(ctx, p)
		if err != nil {
			return err
		}
		if err := o.checkWritable(ctx, p); err != nil {
			return err
		}
		o.set(p, &entry{data: slices.Clip(data), mod: t})
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := o.write(ctx, p, nil, false); err != nil {
		return err
	}
	o.files[p].mod = t
	return nil
}

// end stops further writes (a late goroutine of a stopped command changes nothing).
func (o *overlay) end() {
	o.mu.Lock()
	o.done = true
	o.mu.Unlock()
}

// changes returns the command's writes for Commit, and the directories it made that hold no
// file at the end (dropped: directories are implicit in a project).
func (o *overlay) changes(ctx context.Context) ([]fileio.SnapshotChange, []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]fileio.SnapshotChange, 0, len(o.files))
	for p, e := range o.files {
		out = append(out, fileio.SnapshotChange{Path: p, Content: e.data, Delete: e.deleted})
	}
	// A made directory survives when a file lies below it at the end.
	holds := map[string]bool{}
	for p, e := range o.files {
		if !e.deleted {
			for d := path.Dir(p); d != "/" && !holds[d]; d = path.Dir(d) {
				holds[d] = true
			}
		}
	}
	var dropped []string
	for d := range o.dirs {
		if !holds[d] && !o.hasSnapshotBelow(ctx, d) {
			dropped = append(dropped, d)
		}
	}
	slices.Sort(dropped)
	// Keep only the outermost of nested empty directories.
	var outer []string
	for _, d := range dropped {
		if len(outer) == 0 || !strings.HasPrefix(d, outer[len(outer)-1]+"/") {
			outer = append(outer, d)
		}
	}
	return out, outer
}

// hasSnapshotBelow reports whether a snapshot file below d survives the command (best effort:
// an error counts as yes, which only leaves the note out).
func (o *overlay) hasSnapshotBelow(ctx context.Context, d string) bool {
	files, err := o.sn.Files(ctx, d)
	if err != nil {
		return true
	}
	for _, f := range files {
		if e := o.files[f.Path]; e == nil || !e.deleted {
			return true
		}
	}
	return false
}

// info is the fs.FileInfo of an overlay entry.
type info struct {
	name string
	size int64
	mod  time.Time
	dir  bool
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
