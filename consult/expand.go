package consult

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentfiles/agentfiles"
)

// Default and hard caps on the number of files one expansion returns.
const (
	DefaultMaxFiles = 1000
	HardMaxFiles    = 10000
)

// EntryError reports one files-list entry (or one file it matched) that was not used, with the
// rule it broke. The other entries are unaffected.
type EntryError struct {
	Entry string            // the entry as given
	Path  string            // the file concerned, when the problem is one match of a pattern; else ""
	Err   *agentfiles.Error // the code and a message that says what to do next
}

// Error returns "entry: CODE: message".
func (e EntryError) Error() string {
	if e.Path != "" && e.Path != e.Entry {
		return e.Entry + ": " + e.Path + ": " + e.Err.Error()
	}
	return e.Entry + ": " + e.Err.Error()
}

// Unwrap returns the *agentfiles.Error, so errors.Is(entryErr, agentfiles.ErrNotFound) works.
func (e EntryError) Unwrap() error { return e.Err }

// ExpanderOptions configures an [Expander].
type ExpanderOptions struct {
	// Ignore adds name patterns to the ignore list (see [DefaultIgnore] for the syntax).
	Ignore []string
	// NoDefaultIgnore drops DefaultIgnore, leaving only Ignore.
	NoDefaultIgnore bool
	// MaxFiles caps how many files an expansion returns (after de-duplication and sorting; the
	// rest are reported). Zero means DefaultMaxFiles; values above HardMaxFiles are clamped.
	MaxFiles int
	// Roots, when not empty, are the only directories whose files are used: every entry, and
	// every file a pattern matches, must lie inside one of them once symbolic links are resolved
	// (else OUTSIDE_ROOTS, naming the roots); an output file's directory too (see
	// [Request.OutputFile]). Each root must be an absolute path of an existing directory.
	//
	// Empty means no restriction: the Expander uses any file the process can read, /etc/shadow
	// included when it runs as root. Set Roots whenever the files list comes from someone other
	// than the operator, such as an agent's tool call.
	Roots []string
}

// Expander turns a files list into sorted, de-duplicated absolute file paths. The zero value is
// not usable; use [NewExpander]. An Expander's options are fixed at creation; it remembers the
// compiled form of up to 1,024 valid entries. It is safe for concurrent use.
type Expander struct {
	ignore   ignoreSet
	roots    rootSet
	maxFiles int
	entries  *entryCache
	workers  int // how many entries are expanded at once; see expandWorkers
}

// expandWorkers is how many entries one expansion reads at once: one per processor, at most
// four. Reading cached directories is processor time in the kernel, so more workers than
// processors only add scheduling (measured: 2 workers on 2 cores beat 4).
func expandWorkers() int { return min(4, runtime.GOMAXPROCS(0)) }

// NewExpander returns an Expander with the given options. It fails with INVALID_ARGUMENT when an
// ignore pattern does not compile.
func NewExpander(opts ExpanderOptions) (*Expander, error) {
	var items []string
	if !opts.NoDefaultIgnore {
		items = append(items, DefaultIgnore...)
	}
	items = append(items, opts.Ignore...)
	set, err := newIgnoreSet(items)
	if err != nil {
		return nil, err
	}
	roots, err := newRootSet(opts.Roots)
	if err != nil {
		return nil, err
	}
	max := opts.MaxFiles
	if max <= 0 {
		max = DefaultMaxFiles
	}
	if max > HardMaxFiles {
		max = HardMaxFiles
	}
	return &Expander{ignore: set, roots: roots, maxFiles: max, entries: &entryCache{}, workers: expandWorkers()}, nil
}

var defaultExpander = func() *Expander {
	x, err := NewExpander(ExpanderOptions{})
	if err != nil {
		panic(err) // DefaultIgnore is a constant list; this cannot fail
	}
	return x
}()

// Expand expands a files list with the default options; see [Expander.Expand].
func Expand(entries []string) (files []string, errs []EntryError) {
	return defaultExpander.Expand(entries)
}

// Expand validates every entry and expands it into files:
//
//   - a path without wildcards names one regular file (a symlink to one is followed);
//   - a path whose last element has *, ? or [...] is matched against that directory's entries
//     with Python glob.glob semantics (a leading wildcard does not match names starting with
//     "."); matched directories are skipped, other non-regular matches are reported.
//
// Paths on the ignore list are dropped (an explicit one is reported as IGNORED), whether the
// path as written or the path it resolves to through symbolic links is on it: a link
// env-link.md -> .env, or a file below a link to a .git directory, is never sent. With
// [ExpanderOptions.Roots], a path that lies, or leads through a link, outside every root is
// reported as OUTSIDE_ROOTS. The result is sorted and free of duplicates. Each bad entry yields
// its own EntryError; the others go on.
func (x *Expander) Expand(entries []string) (files []string, errs []EntryError) {
	files, errs, _ = x.ExpandContext(context.Background(), entries)
	return files, errs
}

// ExpandContext is Expand that stops between entries when ctx ends, returning ctx's error.
// Entries are expanded concurrently, one per processor and at most four at once; the result
// does not depend on their timing.
func (x *Expander) ExpandContext(ctx context.Context, entries []string) (files []string, errs []EntryError, err error) {
	results := make([]entryResult, len(entries))
	if err := x.expandAll(ctx, entries, results); err != nil {
		return nil, nil, err
	}
	total := 0
	for _, r := range results {
		total += len(r.files)
	}
	if total > 0 {
		files = make([]string, 0, total)
	}
	for _, r := range results { // in entry order, so errors come out as the entries were given
		files = append(files, r.files...)
		errs = append(errs, r.errs...)
	}
	// Each entry's files are sorted; when the entries name directories in order, so is the whole.
	if !slices.IsSorted(files) {
		slices.Sort(files)
	}
	files = slices.Compact(files)
	if len(files) > x.maxFiles {
		errs = append(errs, EntryError{Entry: "", Err: agentfiles.NewError(CodeBudgetExceeded,
			strconv.Itoa(len(files))+" files matched; only the first "+strconv.Itoa(x.maxFiles)+
				" in sorted order are used; narrow the patterns or split the question", "")})
		files = files[:x.maxFiles]
	}
	return files, errs, nil
}

// entryResult is what one files-list entry expanded to.
type entryResult struct {
	files []string // sorted
	errs  []EntryError
}

// expandAll expands entries[i] into results[i] with up to x.workers goroutines (the caller's
// included) taking entries in turn. Reading a directory is mostly system-call time, which
// runs in parallel on idle processors (or while another read waits for the disk). It returns
// ctx's error if ctx ended before every entry was taken.
func (x *Expander) expandAll(ctx context.Context, entries []string, results []entryResult) error {
	var next atomic.Int64
	var cancelled atomic.Pointer[error]
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(entries) {
				return
			}
			if err := ctx.Err(); err != nil {
				cancelled.Store(&err)
				return
			}
			results[i] = x.expandEntry(entries[i])
		}
	}
	var wg sync.WaitGroup
	for range min(x.workers, len(entries)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if err := cancelled.Load(); err != nil {
		return *err
	}
	return nil
}

// expandEntry validates and expands one entry.
func (x *Expander) expandEntry(entry string) entryResult {
	spec, perr := x.entries.parse(entry)
	var r entryResult
	switch {
	case perr != nil:
		r.errs = []EntryError{{Entry: entry, Err: perr}}
	case spec.pattern == nil:
		r.files, r.errs = x.expandLiteral(entry, spec.literal, nil, nil)
	default:
		r.files, r.errs = x.expandPattern(entry, spec, nil, nil)
		slices.Sort(r.files)
	}
	return r
}

func (x *Expander) expandLiteral(entry, p string, files []string, errs []EntryError) ([]string, []EntryError) {
	if it := x.ignore.matchPath(p); it != "" {
		return files, append(errs, EntryError{Entry: entry, Err: ignoredError(p, it)})
	}
	fi, err := os.Stat(p)
	if err != nil {
		// A path outside the roots is reported as outside whether or not it exists, so that no
		// one learns what exists there.
		if x.roots.active() && !x.roots.containsReal(resolvePath(p)) {
			return files, append(errs, EntryError{Entry: entry, Err: x.roots.outsideError(p)})
		}
		return files, append(errs, EntryError{Entry: entry, Err: statError(p, err)})
	}
	if perr := x.checkResolved(p); perr != nil {
		return files, append(errs, EntryError{Entry: entry, Err: perr})
	}
	switch {
	case fi.Mode().IsRegular():
		return append(files, p), errs
	case fi.IsDir():
		return files, append(errs, EntryError{Entry: entry, Err: directoryError(p)})
	default:
		return files, append(errs, EntryError{Entry: entry, Err: agentfiles.NewError(CodeNotRegular,
			"not a regular file ("+fi.Mode().Type().String()+"); only regular files can be sent", p)})
	}
}

func (x *Expander) expandPattern(entry string, spec entrySpec, files []string, errs []EntryError) ([]string, []EntryError) {
	if it := x.ignore.matchPath(spec.dir); it != "" {
		return files, append(errs, EntryError{Entry: entry, Err: ignoredError(spec.dir, it)})
	}
	f, perr := x.openPatternDir(spec.dir)
	if perr != nil {
		return files, append(errs, EntryError{Entry: entry, Err: perr})
	}
	des, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return files, append(errs, EntryError{Entry: entry, Err: dirOpenError(spec.dir, err)})
	}
	files = slices.Grow(files, min(len(des), 64)) // one allocation for a typical entry's matches
	prefix := spec.dir + "/"
	if spec.dir == "/" {
		prefix = "/"
	}
	found, ignored, hidden, reported := 0, 0, 0, false
	for _, de := range des {
		name := de.Name()
		if !spec.pattern.match(name) {
			if name[0] == '.' && spec.pattern.glob.Match(name) {
				hidden++
			}
			continue
		}
		if x.ignore.match(name) != "" {
			ignored++
			continue
		}
		full := prefix + name
		typ := de.Type()
		if typ&fs.ModeSymlink != 0 {
			fi, err := os.Stat(full)
			if err != nil {
				errs = append(errs, EntryError{Entry: entry, Path: full, Err: statError(full, err)})
				reported = true
				continue
			}
			typ = fi.Mode().Type()
			if !typ.IsDir() { // where the link leads must pass the same rules as a name
				if perr := x.checkResolved(full); perr != nil {
					if agentfiles.ErrorCode(perr) == CodeIgnored {
						ignored++ // as an ignored name is: dropped, counted
						continue
					}
					errs = append(errs, EntryError{Entry: entry, Path: full, Err: perr})
					reported = true
					continue
				}
			}
		}
		switch {
		case typ.IsRegular():
			files = append(files, full)
			found++
		case typ.IsDir(): // a directory whose name matches, e.g. "build.d" for *.d: not a file
		default:
			errs = append(errs, EntryError{Entry: entry, Path: full, Err: agentfiles.NewError(CodeNotRegular,
				"matched a "+typ.String()+", not a regular file; it was skipped", full)})
			reported = true
		}
	}
	if found == 0 && !reported {
		msg := "the pattern matched no files in " + spec.dir
		if ignored > 0 {
			msg += "; " + strconv.Itoa(ignored) + " matching names are on the ignore list or link to a path on it"
		}
		if hidden > 0 {
			msg += "; " + strconv.Itoa(hidden) + " hidden names (starting with .) match only a pattern that starts with ., e.g. .*" + path.Ext(spec.pattern.source)
		}
		errs = append(errs, EntryError{Entry: entry, Err: agentfiles.NewError(agentfiles.CodeNotFound, msg+"; check the directory and the extension", spec.pattern.source)})
	}
	return files, errs
}

// ignoredError reports a path excluded by the ignore list.
func ignoredError(p, item string) *agentfiles.Error {
	return agentfiles.NewError(CodeIgnored, "the path is excluded by the ignore list (item "+strconv.Quote(item)+
		"); ignored names are never sent to a model, even when named explicitly; ask the operator to change the ignore list if this file is needed", p)
}

// openPatternDir opens a pattern's directory after applying the ignore list and the roots to
// its real path. The directory listed is the one checked: when dir has no symbolic link it is
// opened in one step that proves so (see openDirNoLinks); otherwise it is resolved and opened by
// its real path. dir itself has passed the ignore list as written.
func (x *Expander) openPatternDir(dir string) (*os.File, *agentfiles.Error) {
	if f, ok := openDirNoLinks(dir); ok { // dir is its own real path
		if !x.roots.containsReal(dir) {
			f.Close()
			return nil, x.roots.outsideError(dir)
		}
		return f, nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		// Outside the roots is reported as such whether or not the directory exists there.
		if x.roots.active() && !x.roots.containsReal(resolvePath(dir)) {
			return nil, x.roots.outsideError(dir)
		}
		return nil, dirOpenError(dir, err)
	}
	if realDir != dir {
		if it := x.ignore.matchPath(realDir); it != "" {
			return nil, ignoredLinkError(dir, it)
		}
	}
	if !x.roots.containsReal(realDir) {
		return nil, x.roots.outsideError(dir)
	}
	f, err := os.Open(realDir)
	if err != nil {
		return nil, dirOpenError(dir, err)
	}
	return f, nil
}

// ignoredLinkError reports a path whose resolved form (through a symbolic link) is on the
// ignore list.
func ignoredLinkError(p, item string) *agentfiles.Error {
	return agentfiles.NewError(CodeIgnored, "the path leads through a symbolic link to a path excluded by the ignore list (item "+strconv.Quote(item)+
		"); ignored files are never sent to a model, whatever name links to them; ask the operator to change the ignore list if this file is needed", p)
}

// checkResolved applies the ignore list and the roots to the path p resolves to through
// symbolic links; p has been checked as written. It returns IGNORED, OUTSIDE_ROOTS, or the
// stat error of a path that vanished meanwhile.
func (x *Expander) checkResolved(p string) *agentfiles.Error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return statError(p, err)
	}
	if real != p {
		if it := x.ignore.matchPath(real); it != "" {
			return ignoredLinkError(p, it)
		}
	}
	if !x.roots.containsReal(real) {
		return x.roots.outsideError(p)
	}
	return nil
}

// directoryError reports a directory named without a pattern, suggesting patterns for the
// extensions found in it.
func directoryError(dir string) *agentfiles.Error {
	msg := "this is a directory; name its files with a wildcard pattern and an extension, e.g. " + path.Join(dir, "*.ext")
	if exts := commonExtensions(dir, 3); len(exts) > 0 {
		msg += " (files here: "
		for i, e := range exts {
			if i > 0 {
				msg += ", "
			}
			msg += path.Join(dir, "*"+e)
		}
		msg += ")"
	}
	return agentfiles.NewError(agentfiles.CodeIsDirectory, msg+"; subdirectories are not searched, list each one you need", dir)
}

// commonExtensions returns up to n extensions of the visible files in dir, most frequent first.
func commonExtensions(dir string, n int) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	count := map[string]int{}
	for _, de := range des {
		if e := path.Ext(de.Name()); e != "" && e != de.Name() && de.Type().IsRegular() && de.Name()[0] != '.' {
			count[e]++
		}
	}
	exts := make([]string, 0, len(count))
	for e := range count {
		exts = append(exts, e)
	}
	slices.SortFunc(exts, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	if len(exts) > n {
		exts = exts[:n]
	}
	return exts
}

// statError classifies a failed os.Stat of a path.
func statError(p string, err error) *agentfiles.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return agentfiles.WrapError(CodeNotRegular, "dangling symbolic link: its target does not exist", p, err)
		}
		msg := "no such file"
		if _, derr := os.Stat(path.Dir(p)); derr != nil {
			msg += "; its directory " + path.Dir(p) + " does not exist either"
		}
		return agentfiles.WrapError(agentfiles.CodeNotFound, msg+"; check the path (paths are case-sensitive)", p, err)
	case errors.Is(err, fs.ErrPermission):
		return agentfiles.WrapError(agentfiles.CodePermissionDenied, "permission denied; the server cannot read this path", p, err)
	case errors.Is(err, syscall.ELOOP):
		return agentfiles.WrapError(CodeNotRegular, "symbolic link loop", p, err)
	default:
		return agentfiles.WrapError(agentfiles.CodeInternal, "cannot inspect the path", p, err)
	}
}

// dirOpenError classifies a failure to list a pattern's directory.
func dirOpenError(dir string, err error) *agentfiles.Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return agentfiles.WrapError(agentfiles.CodeNotFound, "the directory does not exist; check the path (paths are case-sensitive)", dir, err)
	case errors.Is(err, syscall.ENOTDIR):
		return agentfiles.WrapError(agentfiles.CodeNotFound, "this is a file, not a directory; a pattern's directory must be a directory", dir, err)
	case errors.Is(err, fs.ErrPermission):
		return agentfiles.WrapError(agentfiles.CodePermissionDenied, "permission denied; the server cannot list this directory", dir, err)
	default:
		return agentfiles.WrapError(agentfiles.CodeInternal, "cannot list the directory", dir, err)
	}
}
