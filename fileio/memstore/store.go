package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Store is an in-memory driver.Store. It is safe for concurrent use by multiple goroutines.
// Create it with New.
type Store struct {
	now func() time.Time

	mu       sync.Mutex // guards projects and tenants
	projects map[driver.Scope]*project
	tenants  map[string]*tenantUsage

	outbox outbox
}

var _ driver.Store = (*Store)(nil)

// Options are the optional settings of a Store. The zero value is valid.
type Options struct {
	// Now replaces time.Now for file timestamps and job times, for callers that run on a
	// simulated clock. Nil: time.Now.
	Now func() time.Time
}

// New returns an empty Store. The lock timeout comes with every Update
// (driver.UpdateOptions, which the fileio.Service fills in from its Config).
func New(opts Options) *Store {
	s := &Store{now: opts.Now, projects: map[driver.Scope]*project{}, tenants: map[string]*tenantUsage{}}
	if s.now == nil {
		s.now = time.Now
	}
	s.outbox.init(s.now)
	return s
}

// project is the committed state of one (tenant, project).
type project struct {
	writeLock chan struct{} // capacity 1: held for a whole Update

	mu    sync.RWMutex // guards the fields below; written only while writeLock is held
	files map[string]*fileRec
	index []driver.FileInfo // the infos of files, sorted by Path bytewise: List copies a range
	bytes int64

	history      map[string][]*versionRec // kept previous versions per path, oldest first
	historyBytes int64
	nextPurge    time.Time // no kept version expires before it, pinned ones aside (zero: none kept)

	feed feed // the change feed and the checkpoints
}

type fileRec struct {
	info    driver.FileInfo
	content []byte // never modified after commit
	version int64
}

// versionRec is a kept previous version of a path.
type versionRec struct {
	rec        *fileRec
	replacedAt time.Time
	deleted    bool
	purgeAfter time.Time
	from, to   int64 // the feed positions at which it was written and replaced
}

var emptyProject = &project{files: map[string]*fileRec{}}

func (s *Store) project(scope driver.Scope, create bool) *project {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[scope]
	if p == nil && create {
		p = &project{writeLock: make(chan struct{}, 1), files: map[string]*fileRec{}}
		s.projects[scope] = p
	}
	return p
}

// View implements driver.Store.
func (s *Store) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.project(scope, false)
	if p == nil {
		p = emptyProject
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return fn(&readTx{p: p, now: s.now})
}

// Update implements driver.Store. Deleted files are gone at commit: opts.DeleteRetention does
// not apply.
func (s *Store) Update(ctx context.Context, scope driver.Scope, opts driver.UpdateOptions, fn func(driver.WriteTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.project(scope, true)
	wait := opts.LockWait()
	deadline := time.Now().Add(wait)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p.writeLock <- struct{}{}:
	case <-timer.C:
		return agentfiles.NewError(agentfiles.CodeResourceBusy, fmt.Sprintf(
			"another write to this project holds its lock for more than %s; retry shortly", wait), scope.Project)
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.writeLock }()

	tx := &writeTx{readTx: readTx{p: p, now: s.now, keepN: opts.HistoryVersions}, now: s.now, overlay: map[string]*fileRec{}, opts: opts}
	tx.readTx.overlay = tx.overlay
	tx.readTx.kept = &tx.kept
	tx.readTx.dropped = &tx.drop
	tx.readTx.cp = &tx.cp
	tx.readTx.events = &tx.events
	if err := fn(tx); err != nil {
		return err
	}
	if len(tx.overlay) == 0 && len(tx.drop) == 0 && len(tx.cp.added) == 0 && len(tx.cp.deleted) == 0 {
		return nil
	}
	if err := lockBefore(ctx, &p.mu, deadline); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return agentfiles.NewError(agentfiles.CodeResourceBusy, fmt.Sprintf(
			"reads of this project held it for more than %s, so this write could not commit and changed nothing; retry shortly", wait), scope.Project)
	}
	defer p.mu.Unlock()
	// The tenant's counts change with this commit: no other commit of the tenant's projects
	// checks or changes them meanwhile (p.mu, then the tenant's, is the order of every commit).
	tu := s.tenant(scope.Tenant)
	tu.mu.Lock()
	defer tu.mu.Unlock()
	before := p.usage()
	if opts.Quota != (driver.Quota{}) && tx.wrote() {
		if err := opts.Quota.Check(before, tx.usage(), func() (driver.TenantUsage, error) { return tu.others(before), nil }); err != nil {
			return err
		}
	}
	commitAt := s.now().UTC()
	p.apply(tx.overlay)
	p.commitFeed(tx, commitAt)
	p.dropVersions(tx.drop)
	p.keep(tx, commitAt)
	tu.count(before, p.usage())
	s.outbox.enqueue(scope, tx, commitAt)
	return nil
}

// apply makes the overlay (nil value: delete) the committed state. Caller holds p.mu.
func (p *project) apply(overlay map[string]*fileRec) {
	var added []driver.FileInfo
	removed := map[string]bool{}
	for path, rec := range overlay {
		old := p.files[path]
		switch {
		case rec == nil && old != nil:
			p.bytes -= old.info.SizeBytes
			delete(p.files, path)
			removed[path] = true
		case rec != nil:
			if old != nil {
				p.bytes -= old.info.SizeBytes
				p.index[p.position(path)] = rec.info
			} else {
				added = append(added, rec.info)
			}
			p.bytes += rec.info.SizeBytes
			p.files[path] = rec
		}
	}
	if len(removed) > 0 {
		p.index = slices.DeleteFunc(p.index, func(f driver.FileInfo) bool { return removed[f.Path] })
	}
	switch {
	case len(added) == 0:
	case len(added) <= 8:
		for _, info := range added {
			p.index = slices.Insert(p.index, p.position(info.Path), info)
		}
	default:
		p.index = append(p.index, added...)
		slices.SortFunc(p.index, func(a, b driver.FileInfo) int { return strings.Compare(a.Path, b.Path) })
	}
}

// position is the index in p.index of path, or of the first path after it.
func (p *project) position(path string) int {
	i, _ := slices.BinarySearchFunc(p.index, path, func(f driver.FileInfo, path string) int { return strings.Compare(f.Path, path) })
	return i
}

// readTx reads the committed state, overlaid with a transaction's own changes.
type readTx struct {
	p       *project
	overlay map[string]*fileRec // nil for View; nil values are deletions
	kept    *[]keptVersion      // nil for View: the versions the transaction replaced
	dropped *[]string           // nil for View: the paths whose committed versions it drops
	cp      *checkpointChanges  // nil for View: the checkpoints it adds and deletes
	events  *[]feedEvent        // nil for View: the changes it made
	keepN   int                 // UpdateOptions.HistoryVersions; 0 for View
	now     func() time.Time
}

func (tx *readTx) lookup(path string) *fileRec {
	if rec, ok := tx.overlay[path]; ok {
		return rec
	}
	return tx.p.files[path]
}

func (tx *readTx) Get(ctx context.Context, path string) (driver.File, error) {
	rec := tx.lookup(path)
	if rec == nil {
		return driver.File{}, agentfiles.NewError(agentfiles.CodeNotFound, "no file at this path", path)
	}
	return driver.File{FileInfo: rec.info, Content: append([]byte(nil), rec.content...)}, nil
}

func (tx *readTx) Stat(ctx context.Context, path string) (driver.FileInfo, bool, error) {
	rec := tx.lookup(path)
	if rec == nil {
		return driver.FileInfo{}, false, nil
	}
	return rec.info, true, nil
}

func (tx *readTx) List(ctx context.Context, prefix string, limit int) ([]driver.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	index := tx.p.index
	i := tx.p.position(prefix)
	if len(tx.overlay) == 0 {
		end := i
		for end < len(index) && strings.HasPrefix(index[end].Path, prefix) && (limit <= 0 || end-i < limit) {
			end++
		}
		out := make([]driver.FileInfo, end-i)
		copy(out, index[i:end])
		return out, nil
	}
	var out []driver.FileInfo
	for ; i < len(index) && strings.HasPrefix(index[i].Path, prefix); i++ {
		if _, changed := tx.overlay[index[i].Path]; !changed {
			out = append(out, index[i])
		}
	}
	for path, rec := range tx.overlay {
		if rec != nil && strings.HasPrefix(path, prefix) {
			out = append(out, rec.info)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (tx *readTx) ProjectBytes(ctx context.Context) (int64, error) {
	u := tx.usage()
	return u.Bytes - u.Events, ctx.Err()
}

// writeTx collects a transaction's changes in an overlay, committed by Update.
type writeTx struct {
	readTx
	now     func() time.Time
	overlay map[string]*fileRec
	order   []string                     // paths in first-change order, for the outbox
	creds   map[string]driver.PutOptions // per path, the last Put's options
	opts    driver.UpdateOptions
	kept    []keptVersion    // versions this transaction replaced, in order
	drop    []string         // paths whose committed versions go at commit (DropVersions)
	events  []feedEvent      // the changes it made, in order, for the change feed
	lastPos map[string]int64 // per path, the position of its newest event in events
	cp      checkpointChanges
}

// keptVersion is a version a transaction replaced, to be kept at commit.
type keptVersion struct {
	path string
	v    versionRec
}

func (tx *writeTx) touch(path string) {
	if _, seen := tx.overlay[path]; !seen {
		tx.order = append(tx.order, path)
	}
}

func (tx *writeTx) Put(ctx context.Context, path string, content []byte, opts driver.PutOptions) (driver.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return driver.FileInfo{}, err
	}
	return tx.store(path, append([]byte(nil), content...), opts), nil
}

// store records content as the new version of path, taking ownership of it, and returns its
// info: CreatedAt kept from an existing version, UpdatedAt now but strictly after the
// previous version's.
func (tx *writeTx) store(path string, content []byte, opts driver.PutOptions) driver.FileInfo {
	now := tx.now().UTC()
	info := driver.FileInfo{Path: path, SizeBytes: int64(len(content)), CreatedAt: now, UpdatedAt: now}
	version := int64(1)
	if old := tx.lookup(path); old != nil {
		info.CreatedAt = old.info.CreatedAt
		if !now.After(old.info.UpdatedAt) {
			info.UpdatedAt = old.info.UpdatedAt.Add(time.Microsecond)
		}
		version = old.version
		if tx.opts.HistoryVersions > 0 {
			version++ // as pgstore's trigger, which runs only while the history is on
		}
		pos, prev := tx.record(path, driver.ChangeModified, version, old.version, content)
		tx.keepVersion(path, old, now, false, prev, pos)
	} else {
		if tx.opts.HistoryVersions > 0 {
			version = tx.lastVersion(path) + 1
		}
		tx.record(path, driver.ChangeCreated, version, 0, content)
	}
	tx.touch(path)
	tx.overlay[path] = &fileRec{info: info, content: content, version: version}
	if tx.creds == nil {
		tx.creds = map[string]driver.PutOptions{}
	}
	tx.creds[path] = opts
	return info
}

func (tx *writeTx) Delete(ctx context.Context, paths ...string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := tx.now().UTC()
	for _, path := range paths {
		old := tx.lookup(path)
		if old == nil {
			continue
		}
		pos, prev := tx.record(path, driver.ChangeDeleted, old.version, old.version, nil)
		tx.keepVersion(path, old, now, true, prev, pos)
		tx.touch(path)
		tx.overlay[path] = nil
	}
	return nil
}

var _ driver.MultiStater = (*readTx)(nil)

// StatMany implements driver.MultiStater.
func (tx *readTx) StatMany(ctx context.Context, paths []string) (map[string]driver.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]driver.FileInfo, len(paths))
	for _, p := range paths {
		if rec := tx.lookup(p); rec != nil {
			out[p] = rec.info
		}
	}
	return out, nil
}

// lockBefore write-locks mu by polling TryLock until deadline. Unlike mu.Lock, a waiting
// writer does not stop new readers from entering (sync.RWMutex queues them behind it), so a
// slow read never turns into a queue of reads behind a write; the write gives up at its
// deadline instead. It returns ctx's error, or a non-nil error at the deadline.
func lockBefore(ctx context.Context, mu *sync.RWMutex, deadline time.Time) error {
	for pause := 50 * time.Microsecond; !mu.TryLock(); pause = min(2*pause, 5*time.Millisecond) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errLockDeadline
		}
		time.Sleep(pause)
	}
	return nil
}

var errLockDeadline = errors.New("memstore: project lock not free before the deadline")
