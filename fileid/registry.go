package fileid

import (
	"context"
	"sync"

	"github.com/agentfiles/agentfiles"
)

// Skipped names a file that matched the include patterns but was left out of the registry.
type Skipped struct {
	Root   string // root label
	Path   string // relative path
	Reason string // e.g. "larger than MaxFileBytes", "unreadable"
}

// file is one registered file: its listing, its bytes (kept, so sections are byte-exact and
// search needs no I/O), and its outline, parsed at most once.
type file struct {
	info      FileInfo
	content   []byte
	bodyStart int  // offset after front matter
	hasCR     bool // the body holds "\r": lines may end in "\r\n" or a lone "\r"

	outlineOnce sync.Once
	outl        *outline
}

func (f *file) outline() *outline {
	f.outlineOnce.Do(func() { f.outl = buildOutline(f.content, f.bodyStart) })
	return f.outl
}

// Registry assigns file IDs to the Markdown files of an ordered list of roots and answers
// listing, table-of-contents, section and search queries about them.
//
// A Registry is immutable after New returns (files added or changed on disk are not seen;
// call Rebuild) and safe for concurrent use by any number of goroutines. The heading structure
// of a file is parsed from its bytes the first time a query needs it, exactly once; Warm parses
// every file up front.
type Registry struct {
	roots   []Root
	opts    Options
	files   []*file
	skipped []Skipped
}

// New scans roots in order and returns a registry of every file that matches the include
// patterns. Inside a root, files are ordered by their slash-separated relative path compared
// case-insensitively, ties broken bytewise; IDs f1…fN follow roots in the given order, then
// that file order, so the same tree gets the same IDs on every run. Dot-files and
// dot-directories are skipped; so are files over MaxFileBytes and files that cannot be read
// (see Skipped).
//
// The zero Options give the defaults. New honours ctx. A root with a nil FS or one that cannot
// be walked fails with INVALID_ROOT; a bad include pattern fails with INVALID_ARGUMENT.
func New(ctx context.Context, roots []Root, opts Options) (*Registry, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	r := &Registry{roots: append([]Root(nil), roots...), opts: o}
	if err := r.scan(ctx); err != nil {
		if cerr := agentfiles.ContextError(err); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return r, nil
}

// Rebuild scans the same roots again with the same options and returns a new Registry; the
// receiver is unchanged and stays usable.
func (r *Registry) Rebuild(ctx context.Context) (*Registry, error) {
	return New(ctx, r.roots, r.opts)
}

// Len returns the number of files.
func (r *Registry) Len() int { return len(r.files) }

// Files returns every file in ID order (f1 first). The slice is a copy.
func (r *Registry) Files() []FileInfo {
	out := make([]FileInfo, len(r.files))
	for i, f := range r.files {
		out[i] = f.info
	}
	return out
}

// Skipped returns the files that matched the include patterns but were left out, in scan order.
func (r *Registry) Skipped() []Skipped { return append([]Skipped(nil), r.skipped...) }

// File returns the listing entry of a file ID. A malformed ID fails with INVALID_FILE_ID, an
// unknown one with FILE_ID_NOT_FOUND; both messages tell the agent to list the files.
func (r *Registry) File(id string) (FileInfo, error) {
	f, err := r.lookup(id)
	if err != nil {
		return FileInfo{}, err
	}
	return f.info, nil
}

func (r *Registry) lookup(id string) (*file, error) {
	n, err := ParseID(id)
	if err != nil {
		return nil, err
	}
	if n > len(r.files) {
		msg := "no file has this ID"
		if len(r.files) == 0 {
			msg += " (the registry is empty)"
		} else {
			msg += "; valid IDs are f1 to " + FormatID(len(r.files))
		}
		return nil, agentfiles.NewError(CodeFileIDNotFound, msg+listHint, id)
	}
	return r.files[n-1], nil
}

// Warm parses the heading structure of every file now, in parallel, instead of on first use.
// It is optional: servers call it (often in a goroutine) so that the first search or table of
// contents is as fast as the rest. It is safe to call concurrently with queries.
func (r *Registry) Warm(ctx context.Context) error {
	return r.parallel(ctx, len(r.files), func(i int) bool {
		r.files[i].outline()
		return true
	})
}

// parallel runs fn for indices 0..n-1 on up to Concurrency goroutines, handing indices out in
// increasing order. fn returns false to stop handing out further indices. When ctx is done it
// returns ctx.Err() without waiting for calls of fn in progress.
func (r *Registry) parallel(ctx context.Context, n int, fn func(i int) bool) error {
	if n == 0 {
		return ctx.Err()
	}
	workers := max(1, min(r.opts.Concurrency, n))
	var (
		mu   sync.Mutex
		next int
		stop bool
		wg   sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if stop || next >= n || ctx.Err() != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range workers {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				if !fn(i) {
					mu.Lock()
					stop = true
					mu.Unlock()
				}
			}
		})
	}
	// A canceled context returns at once, even while fn is stuck (a read on a hung file
	// system): the callers discard every result when an error is returned.
	waitOrDone(ctx, &wg)
	return ctx.Err()
}
