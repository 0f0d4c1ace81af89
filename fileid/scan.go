package fileid

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentfiles/agentfiles"
)

// candidate is a file found by the walk, before it is read.
type candidate struct {
	root  int
	rel   string
	lower string
	link  bool // the directory entry is not a regular file (a symbolic link): stat it first
}

// loaded is the outcome of reading one candidate: a file, or the reason it was skipped.
type loaded struct {
	candidate
	f      *file
	reason string
}

// scan walks every root, reads and indexes the matching files in parallel, and assigns IDs.
func (r *Registry) scan(ctx context.Context) error {
	for i, root := range r.roots {
		if root.FS == nil {
			return agentfiles.NewError(CodeInvalidRoot, "root has no file system; build roots with fileid.DirRoot", root.Label)
		}
		var (
			results []loaded
			err     error
		)
		if d, ok := root.FS.(*dirFS); ok {
			results, err = r.scanOSRoot(ctx, i, d)
		} else {
			results, err = r.scanFS(ctx, i, root.FS)
		}
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return agentfiles.WrapError(CodeInvalidRoot, "cannot walk the root; check that it exists and is a readable directory", root.Label, err)
		}
		slices.SortFunc(results, func(a, b loaded) int {
			if c := strings.Compare(a.lower, b.lower); c != 0 {
				return c
			}
			return strings.Compare(a.rel, b.rel)
		})
		for _, l := range results {
			if l.f == nil {
				r.skip(i, l.rel, l.reason)
				continue
			}
			l.f.info.FileID = FormatID(len(r.files) + 1)
			r.files = append(r.files, l.f)
		}
	}
	return ctx.Err()
}

// walkEntry decides what the walk does with one directory entry at relative path rel.
func (r *Registry) walkEntry(rel string, d fs.DirEntry) (descend, keep bool) {
	if strings.HasPrefix(d.Name(), ".") {
		return false, false
	}
	if d.IsDir() {
		return true, false
	}
	if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
		return false, false // devices, sockets, pipes
	}
	return false, r.opts.included(rel)
}

// scanFS walks any fs.FS with fs.WalkDir and reads the matching files in parallel.
func (r *Registry) scanFS(ctx context.Context, rootIdx int, fsys fs.FS) ([]loaded, error) {
	var cands []candidate
	var results []loaded
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			results = append(results, loaded{candidate: newCandidate(rootIdx, p), reason: "unreadable directory"})
			return fs.SkipDir
		}
		if p == "." {
			return nil
		}
		descend, keep := r.walkEntry(p, d)
		switch {
		case d.IsDir() && !descend:
			return fs.SkipDir
		case keep:
			c := newCandidate(rootIdx, p)
			c.link = !d.Type().IsRegular()
			cands = append(cands, c)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	out := make([]loaded, len(cands))
	err = r.parallel(ctx, len(cands), func(i int) bool {
		c := cands[i]
		out[i] = r.load(c, func() (fs.File, error) {
			// Only regular files are opened: a FIFO behind a link would block Open forever.
			if c.link {
				if err := regularAt(fs.Stat(fsys, c.rel)); err != nil {
					return nil, err
				}
			}
			return fsys.Open(c.rel)
		})
		return true
	})
	if err != nil {
		// Workers may still be writing to out (parallel returns at once on cancellation).
		return nil, err
	}
	return append(results, out...), nil
}

func newCandidate(rootIdx int, rel string) candidate {
	return candidate{root: rootIdx, rel: rel, lower: strings.ToLower(rel)}
}

// scanOSRoot is scanFS for a DirRoot, shaped for the kernel: each directory is opened once as
// an os.Root of its own and its files are opened relative to it (one openat each, where
// opening "a/b/c.md" through the top root costs one openat per path element). A file the
// directory's root refuses — a symbolic link to a sibling directory — is retried through the
// top root, so what is reachable is exactly what the top root allows. Files are read by
// Concurrency goroutines while the walk continues.
func (r *Registry) scanOSRoot(ctx context.Context, rootIdx int, top *dirFS) ([]loaded, error) {
	// A task is up to batchFiles files of one directory: handing files to the readers in
	// batches costs far fewer channel operations and goroutine wake-ups than one by one.
	const batchFiles = 16
	type item struct {
		name, rel string
		link      bool
	}
	type task struct {
		dir   *dirRef
		items []item
	}
	var (
		mu      sync.Mutex
		results []loaded
		wg      sync.WaitGroup
		tasks   = make(chan task, 256)
	)
	for range r.opts.Concurrency {
		wg.Go(func() {
			for t := range tasks {
				if ctx.Err() != nil {
					t.dir.release() // canceled: drain the queue without reading
					continue
				}
				out := make([]loaded, 0, len(t.items))
				for _, it := range t.items {
					c := newCandidate(rootIdx, it.rel)
					l := r.load(c, func() (fs.File, error) { return openRegular(t.dir.root, it.name, it.link) })
					if l.f == nil && l.reason != errTooLarge.Error() && l.reason != errNotRegular.Error() {
						l = r.load(c, func() (fs.File, error) { return openRegular(top.root, it.rel, it.link) })
					}
					out = append(out, l)
				}
				t.dir.release()
				mu.Lock()
				results = append(results, out...)
				mu.Unlock()
			}
		})
	}

	var walk func(dir *dirRef, rel string) error
	walk = func(dir *dirRef, rel string) error {
		defer dir.release()
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := listDir(top, dir.root, rel)
		if err != nil {
			return err
		}
		var subdirs []string
		var batch []item
		send := func() error {
			if len(batch) == 0 {
				return nil
			}
			dir.acquire()
			select {
			case tasks <- task{dir: dir, items: batch}:
				batch = nil
				return nil
			case <-ctx.Done():
				dir.release()
				return ctx.Err()
			}
		}
		for _, e := range entries {
			p := path.Join(rel, e.Name())
			switch descend, keep := r.walkEntry(p, e); {
			case descend:
				subdirs = append(subdirs, e.Name())
			case keep:
				batch = append(batch, item{name: e.Name(), rel: p, link: !e.Type().IsRegular()})
				if len(batch) == batchFiles {
					if err := send(); err != nil {
						return err
					}
				}
			}
		}
		if err := send(); err != nil {
			return err
		}
		for _, name := range subdirs {
			p := path.Join(rel, name)
			sub, err := dir.root.OpenRoot(name)
			if err == nil {
				err = walk(newDirRef(sub, true), p)
			}
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return ctxErr
				}
				mu.Lock()
				results = append(results, loaded{candidate: newCandidate(rootIdx, p), reason: "unreadable directory"})
				mu.Unlock()
			}
		}
		return nil
	}
	err := walk(newDirRef(top.root, false), "")
	close(tasks)
	if !waitOrDone(ctx, &wg) {
		return nil, ctx.Err() // a read is stuck (a hung file system); it ends on its own
	}
	mu.Lock()
	defer mu.Unlock()
	return results, err
}

// waitOrDone waits for wg, or until ctx is done; it reports whether wg finished.
func waitOrDone(ctx context.Context, wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

var errNotRegular = errors.New("not a regular file")

// regularAt turns the result of a stat into nil for a regular file, else a reason to skip it.
func regularAt(info fs.FileInfo, err error) error {
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return errNotRegular
	}
	return nil
}

// openRegular opens name in root for reading, never blocking on a FIFO or a device: an entry
// that is not a regular file itself (a symbolic link) is stat'ed through root first, and the
// open is non-blocking where the platform has it. readFile checks the type of what was opened.
func openRegular(root *os.Root, name string, link bool) (fs.File, error) {
	if link {
		if err := regularAt(root.Stat(name)); err != nil {
			return nil, err
		}
	}
	return root.OpenFile(name, openFlags, 0)
}

// listDir lists the directory rel of the root top by path (through dir, its os.Root, when
// the path is unknown). Listing through
// the directory's os.Root would cost an lstat per entry (the os package cannot trust d_type
// there), as many system calls as reading the files. It is safe: the listing only yields
// names and types; the walk never descends into a symbolic link, and every directory and file
// is opened through an os.Root, so what is reachable is exactly what the root allows, even if
// the tree changes during the walk.
func listDir(top *dirFS, dir *os.Root, rel string) ([]fs.DirEntry, error) {
	var f *os.File
	var err error
	if top.path != "" {
		f, err = os.Open(filepath.Join(top.path, filepath.FromSlash(rel)))
	} else {
		f, err = dir.Open(".")
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// dirRef counts the users of an open directory root: the walk while it lists and descends,
// and one per file queued for reading. The last release closes it (unless it is the top root,
// which lives as long as the Root).
type dirRef struct {
	root  *os.Root
	owned bool
	refs  atomic.Int32
}

func newDirRef(root *os.Root, owned bool) *dirRef {
	d := &dirRef{root: root, owned: owned}
	d.refs.Store(1)
	return d
}

func (d *dirRef) acquire() { d.refs.Add(1) }

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 && d.owned {
		d.root.Close()
	}
}

var errTooLarge = errors.New("larger than MaxFileBytes")

// load reads one file and extracts what the listing needs.
func (r *Registry) load(c candidate, open func() (fs.File, error)) loaded {
	root := r.roots[c.root]
	content, err := readFile(open, r.opts.MaxFileBytes)
	if err != nil {
		return loaded{candidate: c, reason: err.Error()}
	}
	f := &file{
		content: content,
		info: FileInfo{
			Filename:        c.rel,
			SourceDirectory: root.Label,
			Size:            HumanSize(int64(len(content))),
			SizeBytes:       int64(len(content)),
		},
	}
	yamlText, bodyStart := splitFrontMatter(content)
	f.bodyStart = bodyStart
	f.hasCR = bytes.IndexByte(content[bodyStart:], '\r') >= 0
	if yamlText != nil {
		fm, err := parseFrontMatter(yamlText)
		if err != nil {
			r.opts.Logger.Debug("fileid: front matter is not valid YAML; ignoring its fields",
				slog.String("root", root.Label), slog.String("path", c.rel), slog.String("err", err.Error()))
		}
		f.info.Title = strings.TrimSpace(fm.Title)
		f.info.Description = strings.TrimSpace(fm.Description)
	}
	if f.info.Title == "" {
		f.info.Title = r.titleFromBody(f)
	}
	if f.info.Title == "" {
		f.info.Title = path.Base(c.rel) // the fallback title
	}
	return loaded{candidate: c, f: f}
}

// titleFromBody returns the text of the first level-1 heading, parsing as little as possible.
func (r *Registry) titleFromBody(f *file) string {
	body := f.content[f.bodyStart:]
	if bytes.IndexByte(body, '#') < 0 && bytes.IndexByte(body, '=') < 0 {
		return ""
	}
	if title, found, done := firstH1Title(body); done {
		if found {
			return title
		}
		return ""
	}
	o := f.outline() // the cheap path was inconclusive: parse once, keep the result
	if o.firstH1 >= 0 {
		return o.headings[o.firstH1].title
	}
	return ""
}

func (r *Registry) skip(root int, rel, reason string) {
	label := r.roots[root].Label
	r.skipped = append(r.skipped, Skipped{Root: label, Path: rel, Reason: reason})
	r.opts.Logger.Warn("fileid: file skipped", slog.String("root", label), slog.String("path", rel), slog.String("reason", reason))
}

// readFile reads a whole file through fsys, refusing files over maxBytes without reading them.
// Errors are short reasons for Skipped, never file contents.
func readFile(open func() (fs.File, error), maxBytes int64) ([]byte, error) {
	f, err := open()
	if errors.Is(err, errNotRegular) {
		return nil, errNotRegular
	}
	if err != nil {
		return nil, unreadable(err)
	}
	defer f.Close()
	sizeHint := int64(0)
	if info, err := f.Stat(); err == nil {
		if !info.Mode().IsRegular() {
			return nil, errNotRegular
		}
		sizeHint = info.Size()
	}
	if sizeHint > maxBytes {
		return nil, errTooLarge
	}
	buf := make([]byte, 0, sizeHint+1) // +1 so that reading EOF needs no reallocation
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > maxBytes {
			return nil, errTooLarge
		}
		if err == io.EOF || err == nil && sizeHint > 0 && int64(len(buf)) == sizeHint {
			// The size fstat reported has been read: the file as it was when opened. Not
			// reading on to EOF saves a system call per file, a sixth of the build's.
			return buf, nil
		}
		if err != nil {
			return nil, unreadable(err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

func unreadable(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return errors.New("unreadable: " + pe.Err.Error())
	}
	return errors.New("unreadable")
}
