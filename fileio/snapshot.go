package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// A Snapshot is one project as it was at one position of its change feed: every read through
// it answers as the project stood then, and Commit writes a set of changes in one transaction
// unless something it read or writes has changed since. It is how file_shell reads and writes
// (package fileio/shell), and what Service.FS serves as an io/fs.FS.
//
// # How it stays one snapshot without holding a transaction
//
// A Snapshot holds no transaction, connection or lock between calls. Each read is a short read
// transaction of its own that also reads the head of the project's change feed; the first fixes
// the snapshot's position. When a later read finds the head moved, it fetches the events since
// (at most 10,000; more and the snapshot is lost) and remembers the paths they changed. A read
// whose answer involves such a path — the file itself, or for a directory anything below it —
// fails with CONFLICT instead of mixing two states. So a read-only user sees exactly the project
// at the position, and pays one extra small statement per read (pgstore).
//
// Commit takes the project's write lock, reads the events since the position once more, and
// refuses with CONFLICT (retryable: read again and redo) when any path the snapshot read,
// listed, or is asked to write changed; otherwise it writes every change in that one
// transaction, with the Service's rules (path rule, UTF-8, max_file_bytes, max_project_bytes,
// a file never below a file or at a directory), each changed file getting a version in its
// history and an event in the change feed, as a Write or Delete would.
//
// Listings are served from the paths below a directory, loaded once per directory (the first
// ReadDir or Files of it), so a Snapshot holds the file list of the directories it was asked to
// list and the contents it read (the latter only up to 64 MiB, then read again when asked).
//
// A Snapshot is safe for concurrent use. It needs a store with a change feed
// (driver.FeedReader: memstore and pgstore); without one, reads fail with INVALID_ARGUMENT.
type Snapshot struct {
	svc   *Service
	ac    agentfiles.AuthContext
	scope driver.Scope

	mu       sync.Mutex
	started  bool
	position int64           // the feed position the snapshot shows
	seen     int64           // the newest head whose events are in changed
	changed  map[string]bool // paths changed after position, as far as seen
	lost     bool            // more changes than snapshotMaxChanges: every access conflicts

	files    map[string]driver.FileInfo // files known to exist at position
	absent   map[string]bool            // paths known to hold no file at position
	dirs     map[string]bool            // directories known to exist (true) or not (false)
	loaded   map[string]bool            // directories whose every file below is in files and sorted
	sorted   []string                   // the paths of files below loaded directories, sorted
	contents map[string][]byte          // read contents, up to snapshotCacheBytes in all
	cached   int64

	readFiles map[string]bool // paths whose file (or its absence) a caller observed
	readDirs  map[string]bool // directories whose contents a caller observed (listing, existence)
}

const (
	// snapshotMaxChanges is the most changes after its position a Snapshot keeps track of.
	snapshotMaxChanges = 10000
	// snapshotCacheBytes is how much read content a Snapshot keeps to answer again.
	snapshotCacheBytes = 64 << 20
)

// Snapshot returns the project as it will be at its next change-feed position read: nothing is
// read until the first call. The caller's identity, rate limit and the project name are checked
// here; every later call of the Snapshot draws on the tenant's rate limit no further (it is one
// operation), but each read holds one of the tenant's call slots while it runs.
func (s *Service) Snapshot(ctx context.Context, project string) (*Snapshot, error) {
	ac, scope, err := s.begin(ctx, project, "")
	if err != nil {
		return nil, err
	}
	return &Snapshot{svc: s, ac: ac, scope: scope,
		changed: map[string]bool{}, files: map[string]driver.FileInfo{}, absent: map[string]bool{},
		dirs: map[string]bool{"": true}, loaded: map[string]bool{}, contents: map[string][]byte{},
		readFiles: map[string]bool{}, readDirs: map[string]bool{}}, nil
}

// Project is the project the snapshot shows.
func (sn *Snapshot) Project() string { return sn.scope.Project }

// Position is the change-feed position the snapshot shows (file_events' after), 0 before the
// first read.
func (sn *Snapshot) Position() int64 {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return sn.position
}

// snapshotPath normalizes p as Service paths are ("/" is the root, "").
func (sn *Snapshot) path(p string) (string, error) {
	if p == "/" {
		p = ""
	}
	p = NormalizePath(p)
	if err := sn.svc.cfg.PathRule.Validate(p); err != nil {
		return "", err
	}
	return p, nil
}

// view runs fn in a read transaction and brings the snapshot's record of changes up to that
// transaction's head, with sn.mu held.
func (sn *Snapshot) view(ctx context.Context, fn func(driver.ReadTx) error) error {
	_, err := inView(ctx, sn.svc, sn.scope, func(tx driver.ReadTx) (struct{}, error) {
		if err := sn.catchUp(ctx, tx); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(tx)
	})
	return err
}

// catchUp reads the feed's head in tx: the first time it fixes the position; later it records
// the paths changed since the last head seen.
func (sn *Snapshot) catchUp(ctx context.Context, tx driver.ReadTx) error {
	f, err := feedStore(tx)
	if err != nil {
		return err
	}
	head, _, err := f.FeedHead(ctx)
	if err != nil {
		return err
	}
	if !sn.started {
		sn.started, sn.position, sn.seen = true, head, head
		return nil
	}
	for head > sn.seen && !sn.lost {
		evs, err := f.Events(ctx, sn.seen, "", 1000)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			sn.changed[e.Path] = true
		}
		sn.seen = evs[len(evs)-1].Position
		sn.lost = len(sn.changed) > snapshotMaxChanges
	}
	return nil
}

// conflict is the error of a read or commit that met a change made after the position.
func (sn *Snapshot) conflict(path string) error {
	if path == "" {
		return agentfiles.NewError(CodeConflict, fmt.Sprintf(
			"project %s changed in many places while this command ran; nothing was written: run it again", sn.scope.Project), "")
	}
	return agentfiles.NewError(CodeConflict, fmt.Sprintf(
		"another writer changed %s while this command ran; nothing was written: run it again", path), path)
}

// fileChanged reports whether the file at p changed after the position.
func (sn *Snapshot) fileChanged(p string) bool { return sn.lost || sn.changed[p] }

// dirChanged reports whether anything below dir changed after the position, and a path that did.
func (sn *Snapshot) dirChanged(dir string) (string, bool) {
	if sn.lost {
		return "", true
	}
	for p := range sn.changed {
		if driver.AtOrBelow(p, dir) && p != dir {
			return p, true
		}
	}
	return "", false
}

// Stat describes the file or directory at p ("/" or "" is the root, always a directory):
// fs.ErrNotExist (wrapped in a NOT_FOUND error) when there is neither. A file's mode is 0444, a
// directory's fs.ModeDir|0555; a directory's ModTime is zero, as directories are implicit.
func (sn *Snapshot) Stat(ctx context.Context, p string) (fs.FileInfo, error) {
	p, err := sn.path(p)
	if err != nil {
		return nil, err
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	isFile, info, err := sn.statFile(ctx, p)
	switch {
	case err != nil:
		return nil, err
	case isFile:
		return fileInfo(info), nil
	}
	isDir, err := sn.isDir(ctx, p)
	switch {
	case err != nil:
		return nil, err
	case isDir:
		return dirInfoOf(p), nil
	}
	return nil, notExist(p)
}

// statFile reports whether a file is at p, recording the observation.
func (sn *Snapshot) statFile(ctx context.Context, p string) (bool, driver.FileInfo, error) {
	if p == "" {
		return false, driver.FileInfo{}, nil
	}
	sn.readFiles[p] = true
	if info, ok := sn.files[p]; ok {
		return true, info, nil
	}
	if sn.absent[p] || sn.coveredByLoad(p) || sn.underNothing(p) {
		return false, driver.FileInfo{}, nil
	}
	var info driver.FileInfo
	var ok bool
	err := sn.view(ctx, func(tx driver.ReadTx) error {
		var err error
		info, ok, err = tx.Stat(ctx, p)
		return err
	})
	if err != nil {
		return false, driver.FileInfo{}, err
	}
	if sn.fileChanged(p) {
		return false, driver.FileInfo{}, sn.conflict(p)
	}
	if ok {
		sn.files[p] = info
	} else {
		sn.absent[p] = true
	}
	return ok, info, nil
}

// isDir reports whether some file lies below p at the position, recording the observation.
func (sn *Snapshot) isDir(ctx context.Context, p string) (bool, error) {
	sn.readDirs[p] = true
	if known, ok := sn.dirs[p]; ok {
		return known, nil
	}
	if p != "" && sn.underNothing(p) {
		sn.dirs[p] = false
		return false, nil
	}
	if sn.coveredByLoad(p) {
		sn.dirs[p] = sn.hasLoadedBelow(p)
		return sn.dirs[p], nil
	}
	var below []driver.FileInfo
	err := sn.view(ctx, func(tx driver.ReadTx) error {
		var err error
		below, err = tx.List(ctx, dirPrefix(p), 1)
		return err
	})
	if err != nil {
		return false, err
	}
	if c, changed := sn.dirChanged(p); changed {
		return false, sn.conflict(c)
	}
	sn.dirs[p] = len(below) > 0
	return sn.dirs[p], nil
}

// underNothing reports whether p lies below a path known to hold nothing below it at the
// position (a directory without files, or a file), so that nothing is at p either: the
// files a command creates in a new directory cost no reads.
func (sn *Snapshot) underNothing(p string) bool {
	for a := parentOf(p); a != ""; a = parentOf(a) {
		if known, ok := sn.dirs[a]; ok && !known {
			return true
		}
		if _, isFile := sn.files[a]; isFile {
			return true
		}
	}
	return false
}

// coveredByLoad reports whether p is below (or is) a directory whose files are all loaded.
func (sn *Snapshot) coveredByLoad(p string) bool {
	if sn.loaded[""] {
		return true
	}
	for d := p; d != ""; d = parentOf(d) {
		if sn.loaded[d] {
			return true
		}
	}
	return false
}

// hasLoadedBelow reports whether a loaded file lies below dir.
func (sn *Snapshot) hasLoadedBelow(dir string) bool {
	prefix := dirPrefix(dir)
	i := sort.SearchStrings(sn.sorted, prefix)
	return i < len(sn.sorted) && strings.HasPrefix(sn.sorted[i], prefix)
}

// load makes every file below dir known (one List), unless a load covered it already.
func (sn *Snapshot) load(ctx context.Context, dir string) error {
	sn.readDirs[dir] = true
	if sn.coveredByLoad(dir) {
		return nil
	}
	var below []driver.FileInfo
	err := sn.view(ctx, func(tx driver.ReadTx) error {
		var err error
		below, err = tx.List(ctx, dirPrefix(dir), 0)
		return err
	})
	if err != nil {
		return err
	}
	if c, changed := sn.dirChanged(dir); changed {
		return sn.conflict(c)
	}
	// Keep the sorted list to the files below loaded directories: drop those below dir, which
	// the new listing has again, and merge.
	prefix := dirPrefix(dir)
	kept := sn.sorted[:0:0]
	for _, p := range sn.sorted {
		if !strings.HasPrefix(p, prefix) {
			kept = append(kept, p)
		}
	}
	for _, f := range below {
		sn.files[f.Path] = f
		kept = append(kept, f.Path)
	}
	slices.Sort(kept)
	sn.sorted = kept
	sn.loaded[dir] = true
	sn.dirs[dir] = dir == "" || len(below) > 0
	return nil
}

// ReadDir lists the directory at p, sorted by name bytewise: NOT_FOUND (wrapping
// fs.ErrNotExist) when nothing is there, NOT_DIRECTORY when p is a file.
func (sn *Snapshot) ReadDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	p, err := sn.path(p)
	if err != nil {
		return nil, err
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if isFile, _, err := sn.statFile(ctx, p); err != nil || isFile {
		if err == nil {
			err = notDir(p)
		}
		return nil, err
	}
	if err := sn.load(ctx, p); err != nil {
		return nil, err
	}
	if !sn.dirs[p] && !sn.hasLoadedBelow(p) && p != "" {
		return nil, notExist(p)
	}
	return sn.children(p), nil
}

// children lists the entries directly below the loaded directory dir.
func (sn *Snapshot) children(dir string) []fs.DirEntry {
	prefix := dirPrefix(dir)
	var out []fs.DirEntry
	i := sort.SearchStrings(sn.sorted, prefix)
	for i < len(sn.sorted) && strings.HasPrefix(sn.sorted[i], prefix) {
		p := sn.sorted[i]
		rest := p[len(prefix):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			sub := p[:len(prefix)+j]
			out = append(out, fs.FileInfoToDirEntry(dirInfoOf(sub)))
			// Skip everything below sub: the next path not starting with sub + "/".
			i = sort.SearchStrings(sn.sorted, sub+"0") // '0' follows '/'
			continue
		}
		out = append(out, fs.FileInfoToDirEntry(fileInfo(sn.files[p])))
		i++
	}
	return out
}

// SnapshotFile is a file below a directory: its path, size and modification time.
type SnapshotFile struct {
	Path      string
	SizeBytes int64
	ModTime   time.Time
}

// Files returns every file below the directory p (and p itself when it is a file), in path
// order: what rm -r, cp -r and find walk. A missing p gives none.
func (sn *Snapshot) Files(ctx context.Context, p string) ([]SnapshotFile, error) {
	p, err := sn.path(p)
	if err != nil {
		return nil, err
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if isFile, info, err := sn.statFile(ctx, p); err != nil || isFile {
		if err != nil {
			return nil, err
		}
		return []SnapshotFile{{Path: info.Path, SizeBytes: info.SizeBytes, ModTime: info.UpdatedAt}}, nil
	}
	if err := sn.load(ctx, p); err != nil {
		return nil, err
	}
	prefix := dirPrefix(p)
	var out []SnapshotFile
	for i := sort.SearchStrings(sn.sorted, prefix); i < len(sn.sorted) && strings.HasPrefix(sn.sorted[i], prefix); i++ {
		f := sn.files[sn.sorted[i]]
		out = append(out, SnapshotFile{Path: f.Path, SizeBytes: f.SizeBytes, ModTime: f.UpdatedAt})
	}
	return out, nil
}

// ReadFile returns the content of the file at p: NOT_FOUND (wrapping fs.ErrNotExist) when no
// file is there, IS_DIRECTORY for a directory. The caller must not modify it.
func (sn *Snapshot) ReadFile(ctx context.Context, p string) ([]byte, error) {
	p, err := sn.path(p)
	if err != nil {
		return nil, err
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return sn.readFile(ctx, p)
}

func (sn *Snapshot) readFile(ctx context.Context, p string) ([]byte, error) {
	sn.readFiles[p] = true
	if c, ok := sn.contents[p]; ok {
		return c, nil
	}
	if sn.absent[p] || p == "" || (sn.coveredByLoad(p) && !sn.hasFile(p)) {
		return nil, sn.missing(ctx, p)
	}
	var f driver.File
	var found bool
	err := sn.view(ctx, func(tx driver.ReadTx) error {
		var err error
		f, err = tx.Get(ctx, p)
		if errors.Is(err, agentfiles.ErrNotFound) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return nil, err
	}
	if sn.fileChanged(p) {
		return nil, sn.conflict(p)
	}
	if !found {
		sn.absent[p] = true
		return nil, sn.missing(ctx, p)
	}
	sn.files[p] = f.FileInfo
	sn.remember(p, f.Content)
	return f.Content, nil
}

func (sn *Snapshot) hasFile(p string) bool { _, ok := sn.files[p]; return ok }

// missing is the error of a read of p where no file is: IS_DIRECTORY or NOT_FOUND.
func (sn *Snapshot) missing(ctx context.Context, p string) error {
	isDir, err := sn.isDir(ctx, p)
	switch {
	case err != nil:
		return err
	case isDir || p == "":
		return &fs.PathError{Op: "read", Path: displayPath(p), Err: agentfiles.NewError(agentfiles.CodeIsDirectory, displayPath(p)+" is a directory", p)}
	}
	return notExist(p)
}

// remember keeps content for later reads while the cache has room.
func (sn *Snapshot) remember(p string, content []byte) {
	if sn.cached+int64(len(content)) > snapshotCacheBytes {
		return
	}
	sn.contents[p] = content
	sn.cached += int64(len(content))
}

// ReadFiles reads several files in one read transaction (fewer round trips than ReadFile per
// file) and keeps their contents for ReadFile, within the snapshot's cache; it returns how
// many of paths are files. Missing paths are skipped. Commands that are about to read a list
// of files (a search's candidates) call it first.
func (sn *Snapshot) ReadFiles(ctx context.Context, paths []string) (int, error) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	var want []string
	for _, p := range paths {
		if _, ok := sn.contents[p]; !ok && !sn.absent[p] {
			want = append(want, p)
		}
	}
	found := len(paths) - len(want)
	for len(want) > 0 {
		n, size := 0, int64(0)
		for n < len(want) && n < grepFetchFiles && size < grepFetchBytes {
			size += sn.files[want[n]].SizeBytes
			n++
		}
		if sn.cached+size > snapshotCacheBytes {
			return found, nil
		}
		var got []driver.File
		err := sn.view(ctx, func(tx driver.ReadTx) error {
			var err error
			got, err = driver.GetMany(ctx, tx, want[:n])
			return err
		})
		if err != nil {
			return found, err
		}
		for _, f := range got {
			if sn.fileChanged(f.Path) {
				return found, sn.conflict(f.Path)
			}
			sn.files[f.Path] = f.FileInfo
			sn.readFiles[f.Path] = true
			sn.remember(f.Path, f.Content)
		}
		found += len(got)
		want = want[n:]
	}
	return found, nil
}

// Forget drops the kept contents of paths (read by ReadFiles or ReadFile), freeing the
// snapshot's cache for others; a later read of them reads them again.
func (sn *Snapshot) Forget(paths []string) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	for _, p := range paths {
		if c, ok := sn.contents[p]; ok {
			sn.cached -= int64(len(c))
			delete(sn.contents, p)
		}
	}
}

// SnapshotChange is one change Commit makes: Content written at Path, or with Delete the file
// at Path removed.
type SnapshotChange struct {
	Path    string
	Content []byte
	Delete  bool
}

// CommitResult is what Commit did.
type CommitResult struct {
	Files []CommittedFile `json:"files"` // in path order
}

// CommittedFile is one file Commit changed.
type CommittedFile struct {
	Path      string `json:"path"`
	Kind      string `json:"kind"`             // "created", "modified" or "deleted"
	SHA256    string `json:"sha256,omitempty"` // of the new content; "" for a delete
	SizeBytes int64  `json:"size_bytes"`
}

// Commit writes changes in one transaction (see Snapshot): all of them or none. A change whose
// Content equals the file's content at the position, and a delete of a path without a file,
// change nothing and are left out of the result. Errors, each writing nothing: CONFLICT when
// something the snapshot read, or a path changes touches, changed after the position (run the
// work again on a new Snapshot); INVALID_PATH; IS_DIRECTORY for the root or a directory;
// NOT_DIRECTORY for a file below a file; INVALID_ARGUMENT for content that is not UTF-8 or a
// path given twice; QUOTA_EXCEEDED as for Write; RESOURCE_BUSY as for every write.
func (sn *Snapshot) Commit(ctx context.Context, changes []SnapshotChange) (CommitResult, error) {
	ctx, cancel := sn.svc.callBudget(ctx)
	defer cancel()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	plan, err := sn.plan(ctx, changes)
	var res CommitResult
	if err == nil && len(plan) > 0 {
		res, err = inUpdate(ctx, sn.svc, sn.scope, func(tx driver.WriteTx) (CommitResult, error) {
			return sn.commitTx(ctx, tx, plan)
		})
		err = sn.svc.explainQuota(ctx, sn.scope, err)
	} else if err == nil {
		res.Files = []CommittedFile{}
	}
	sn.svc.logOp(ctx, "commit", sn.ac, sn.scope.Project, "", err, slog.Int("changes", len(plan)), slog.Int64("position", sn.position))
	return res, err
}

// plannedChange is a change checked against the snapshot.
type plannedChange struct {
	SnapshotChange
	existed bool
}

// plan checks changes against the path rules and the snapshot (recording what it reads) and
// drops those that change nothing; the rest come back in path order.
func (sn *Snapshot) plan(ctx context.Context, changes []SnapshotChange) ([]plannedChange, error) {
	var out []plannedChange
	seen := map[string]bool{}
	writes := map[string]bool{}
	for _, c := range changes {
		p, err := sn.path(c.Path)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; changes name files such as \"/notes.md\"", "")
		}
		if seen[p] {
			return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, p+" appears twice in the changes; give each path once", p)
		}
		seen[p] = true
		c.Path = p
		if !c.Delete {
			writes[p] = true
			if !utf8.Valid(c.Content) {
				return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, p+": the content is not valid UTF-8 text; only text files are stored", p)
			}
			if n := int64(len(c.Content)); n > sn.svc.cfg.MaxFileBytes {
				return nil, agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
					"%s would be %d bytes; the maximum file size is %d. Split the content across several files", p, n, sn.svc.cfg.MaxFileBytes), p)
			}
		}
		isFile, _, err := sn.statFile(ctx, p)
		if err != nil {
			return nil, err
		}
		if c.Delete && !isFile {
			continue
		}
		if !c.Delete && isFile {
			old, err := sn.readFile(ctx, p)
			if err != nil {
				return nil, err
			}
			if string(old) == string(c.Content) {
				continue
			}
		}
		out = append(out, plannedChange{SnapshotChange: c, existed: isFile})
	}
	// A written file may not be a directory, or lie below a file, once the changes are made.
	for p := range writes {
		if err := sn.checkWritable(ctx, p, seen, writes); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b plannedChange) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// checkWritable refuses a write of a file at p when, after the changes (seen: every path they
// name; writes: those they write), p would be a directory or lie below a file.
func (sn *Snapshot) checkWritable(ctx context.Context, p string, seen, writes map[string]bool) error {
	isFile, _, err := sn.statFile(ctx, p)
	if err != nil {
		return err
	}
	if !isFile {
		isDir, err := sn.isDir(ctx, p)
		if err != nil {
			return err
		}
		if isDir {
			if err := sn.load(ctx, p); err != nil {
				return err
			}
			for _, f := range sn.filesBelow(p) {
				if !seen[f] || writes[f] {
					return agentfiles.NewError(agentfiles.CodeIsDirectory, fmt.Sprintf("%s is a directory, so it cannot be written as a file", p), p)
				}
			}
		}
	}
	for _, a := range ancestors(p) {
		if writes[a] {
			return agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is written as a file, so it cannot also hold %s", a, p), a)
		}
		isFile, _, err := sn.statFile(ctx, a)
		if err != nil {
			return err
		}
		if isFile && !(seen[a] && !writes[a]) {
			return agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so it cannot contain %s", a, p), a)
		}
	}
	return nil
}

// filesBelow lists the known files below the loaded directory dir.
func (sn *Snapshot) filesBelow(dir string) []string {
	prefix := dirPrefix(dir)
	var out []string
	for i := sort.SearchStrings(sn.sorted, prefix); i < len(sn.sorted) && strings.HasPrefix(sn.sorted[i], prefix); i++ {
		out = append(out, sn.sorted[i])
	}
	return out
}

// commitTx checks for conflicting changes and writes plan.
func (sn *Snapshot) commitTx(ctx context.Context, tx driver.WriteTx, plan []plannedChange) (CommitResult, error) {
	if err := sn.catchUp(ctx, tx); err != nil {
		return CommitResult{}, err
	}
	if err := sn.checkConflicts(plan); err != nil {
		return CommitResult{}, err
	}
	before, err := tx.ProjectBytes(ctx)
	if err != nil {
		return CommitResult{}, err
	}
	res := CommitResult{Files: make([]CommittedFile, 0, len(plan))}
	var gone []string
	var puts []driver.File
	var refs []string
	for _, c := range plan {
		if err := stillWanted(ctx); err != nil {
			return CommitResult{}, err
		}
		if c.Delete {
			gone = append(gone, c.Path)
			res.Files = append(res.Files, CommittedFile{Path: c.Path, Kind: string(driver.ChangeDeleted)})
			continue
		}
		kind := driver.ChangeCreated
		if c.existed {
			kind = driver.ChangeModified
		}
		puts = append(puts, driver.File{FileInfo: driver.FileInfo{Path: c.Path}, Content: c.Content})
		refs = append(refs, sn.svc.seal(ctx, sn.ac, sn.scope, c.Path).CredentialRef)
		res.Files = append(res.Files, CommittedFile{Path: c.Path, Kind: string(kind), SHA256: SHA256Hex(c.Content), SizeBytes: int64(len(c.Content))})
	}
	if len(gone) > 0 {
		if err := tx.Delete(ctx, gone...); err != nil {
			return CommitResult{}, err
		}
	}
	if bulk, ok := tx.(driver.BulkWriter); ok && len(puts) > 1 {
		if err := bulk.PutMany(ctx, puts, driver.BulkOptions{Refs: refs, DeferIndex: true}); err != nil {
			return CommitResult{}, err
		}
	} else {
		for i, f := range puts {
			if _, err := tx.Put(ctx, f.Path, f.Content, driver.PutOptions{CredentialRef: refs[i]}); err != nil {
				return CommitResult{}, err
			}
		}
	}
	after, err := tx.ProjectBytes(ctx)
	if err != nil {
		return CommitResult{}, err
	}
	if after > before && after > sn.svc.cfg.MaxProjectBytes {
		return CommitResult{}, newProjectQuotaError(after, sn.svc.cfg.MaxProjectBytes, plan[0].Path)
	}
	return res, nil
}

// checkConflicts fails with CONFLICT when a change after the position touches what the
// snapshot observed or what plan writes.
func (sn *Snapshot) checkConflicts(plan []plannedChange) error {
	if sn.lost {
		return sn.conflict("")
	}
	if len(sn.changed) == 0 {
		return nil
	}
	for _, c := range plan {
		if sn.changed[c.Path] {
			return sn.conflict(c.Path)
		}
		for _, a := range ancestors(c.Path) {
			if sn.changed[a] {
				return sn.conflict(a)
			}
		}
	}
	for p := range sn.changed {
		if sn.readFiles[p] {
			return sn.conflict(p)
		}
		for d := parentOf(p); ; d = parentOf(d) {
			if sn.readDirs[d] {
				return sn.conflict(p)
			}
			if d == "" {
				break
			}
		}
	}
	return nil
}

// parentOf is the directory holding the valid non-root path p ("" for a top-level entry).
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return ""
}

// displayPath is p as a shell shows it: "/" for the root.
func displayPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// notExist is the error of a path where nothing is: NOT_FOUND wrapping fs.ErrNotExist.
func notExist(p string) error {
	return &fs.PathError{Op: "stat", Path: displayPath(p), Err: &notFound{agentfiles.NewError(agentfiles.CodeNotFound, displayPath(p)+": no such file or directory", p)}}
}

// notDir is the error of a listing of a file: NOT_DIRECTORY wrapping fs.ErrInvalid.
func notDir(p string) error {
	return &fs.PathError{Op: "readdir", Path: displayPath(p), Err: &notADir{agentfiles.NewError(CodeNotDirectory, displayPath(p)+" is a file, not a directory", p)}}
}

// notFound is a NOT_FOUND error that is also fs.ErrNotExist.
type notFound struct{ err *agentfiles.Error }

func (e *notFound) Error() string   { return e.err.Error() }
func (e *notFound) Unwrap() []error { return []error{e.err, fs.ErrNotExist} }

// notADir is a NOT_DIRECTORY error that is also fs.ErrInvalid.
type notADir struct{ err *agentfiles.Error }

func (e *notADir) Error() string   { return e.err.Error() }
func (e *notADir) Unwrap() []error { return []error{e.err, fs.ErrInvalid} }

// snapshotInfo is the fs.FileInfo of a Snapshot entry.
type snapshotInfo struct {
	name    string
	size    int64
	modTime time.Time
	dir     bool
}

func fileInfo(f driver.FileInfo) fs.FileInfo {
	return snapshotInfo{name: baseName(f.Path), size: f.SizeBytes, modTime: f.UpdatedAt}
}

func dirInfoOf(p string) fs.FileInfo {
	name := baseName(p)
	if p == "" {
		name = "."
	}
	return snapshotInfo{name: name, dir: true}
}

func (i snapshotInfo) Name() string       { return i.name }
func (i snapshotInfo) Size() int64        { return i.size }
func (i snapshotInfo) ModTime() time.Time { return i.modTime }
func (i snapshotInfo) IsDir() bool        { return i.dir }
func (i snapshotInfo) Sys() any           { return nil }
func (i snapshotInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// snapshotCandidateBatch is how many candidates one index query of Candidates returns.
const snapshotCandidateBatch = 1000

// Candidates returns, in path order, the files below the directory dir ("/" for all) in which
// some line may match the RE2 pattern re (ignoreCase as (?i)), as the store's grep index
// narrows them (pgstore's trigram index; memstore's substring filter): every file with a
// matching line is among them, and files without one may be. complete is false when the store
// has no index or its budget (Config.GrepMaxScanBytes, GrepTimeout) stopped it: read every
// file then. A bad pattern is INVALID_PATTERN. The listing counts as a read of dir: a commit
// conflicts with any later change below it.
func (sn *Snapshot) Candidates(ctx context.Context, dir, re string, ignoreCase bool) (paths []string, complete bool, err error) {
	dir, err = sn.path(dir)
	if err != nil {
		return nil, false, err
	}
	m, err := compileLineMatcher(re, false, ignoreCase)
	if err != nil {
		return nil, false, err
	}
	sn.mu.Lock()
	defer sn.mu.Unlock()
	sn.readDirs[dir] = true
	bounds := sn.svc.cfg.grepLimits()
	deadline := time.Now().Add(bounds.timeout)
	after := ""
	for {
		var page []driver.FileInfo
		var read driver.CandidateRead
		indexed := true
		_, err := inScan(ctx, sn.svc, sn.scope, func(tx driver.ReadTx) (struct{}, error) {
			if err := sn.catchUp(ctx, tx); err != nil {
				return struct{}{}, err
			}
			cs, ok := tx.(driver.ContentSearcher)
			if !ok {
				indexed = false
				return struct{}{}, nil
			}
			var err error
			page, err = cs.GrepCandidates(ctx, driver.GrepCandidates{Prefix: dirPrefix(dir), After: after, Query: m.query,
				Limit: snapshotCandidateBatch, Deadline: deadline, MaxReadBytes: bounds.scanBytes, Read: &read})
			return struct{}{}, err
		})
		switch {
		case err != nil && ctx.Err() == nil && agentfiles.ErrorCode(err) == agentfiles.CodeTimeout:
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case !indexed || read.Stopped:
			return nil, false, nil
		}
		for _, f := range page {
			sn.files[f.Path] = f
			paths = append(paths, f.Path)
		}
		if c, changed := sn.dirChanged(dir); changed {
			return nil, false, sn.conflict(c)
		}
		if len(page) < snapshotCandidateBatch {
			return paths, true, nil
		}
		after = page[len(page)-1].Path
	}
}
