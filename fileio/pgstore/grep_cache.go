package pgstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/memgrep"
	"github.com/jackc/pgx/v5"
)

// DefaultGrepCacheBytes is the grep cache's size when Options.GrepCacheBytes is zero.
const DefaultGrepCacheBytes = 512 << 20

// How the grep cache fetches contents: at most fetchBatchFiles paths and about
// fetchBatchBytes of content per statement.
const (
	fetchBatchFiles = 256
	fetchBatchBytes = 8 << 20
)

// grepCache holds the contents of the files of recently used projects, per scope, so that a
// grep matches them in memory (internal/memgrep) instead of PostgreSQL rechecking its trigram
// index's candidates. A content is cached under its path and its updated_at, which increases
// on every write of the path: a grep lists the (path, updated_at, size) of its files in its own
// transaction (grepView) and fetches only the contents it does not hold, so it answers from
// the snapshot it listed. Writes put what they wrote once their transaction commits
// (session.cacheWritten), so a grep right after a write burst or an import on this process
// fetches nothing. The fields below mu are guarded by it; refresh (per scope) only keeps two
// greps of one project from fetching the same contents at once.
//
// # What counts against the budget
//
// Everything the cache keeps, not only contents (see the *Cost constants): each cached file
// costs its content, its path and cachedFileCost; each listing (a project's files as a grep
// listed them) its paths and listedFileCost per file; each scope scopeCost and its names; and
// the copies that open write transactions keep to put in the cache when they commit
// (pending), their contents, paths and pendingFileCost each. held (cached) plus pending never
// passes budget once a call has returned: a project whose listing and contents would not fit
// is not cached at all (its greps run in SQL), and what would pass it evicts the least
// recently used projects, then a project's own stale files.
type grepCache struct {
	budget int64
	// pending is the bytes that open write transactions keep to put in the cache when they
	// commit (their accounted cost).
	pending atomic.Int64

	// held is the accounted bytes of every scope, with their contents and listings: changed
	// under mu, read without it.
	held atomic.Int64

	mu     sync.Mutex
	tick   uint64
	scopes map[driver.Scope]*cachedScope
	// refresh holds a mutex per scope, kept while the scope's contents are fetched.
	refresh map[driver.Scope]*sync.Mutex
}

// The accounted cost, in bytes, of what the grep cache keeps besides contents and names:
// estimates of what Go allocates for each entry on a 64-bit platform, taken at the low load a
// map has right after it grows (7/16 of its slots used), so that the heap they stand for is at
// most their sum (TestGrepCacheMemoryBound measures it).
const (
	// cachedFileCost: a files map slot (a string header and a cachedFile: 64 bytes) and the
	// rounding of the path's allocation.
	cachedFileCost = 160
	// listedFileCost: a driver.FileInfo in a listing (72 bytes) and its byPath slot (24 bytes).
	listedFileCost = 136
	// scopeCost: a cachedScope, its empty maps and its slots in scopes and refresh.
	scopeCost = 512
	// pendingFileCost: the cacheEntry of a copy an open write transaction keeps.
	pendingFileCost = 64
)

// cachedCost is the accounted cost of caching a content of size bytes at path.
func cachedCost(path string, size int64) int64 { return size + int64(len(path)) + cachedFileCost }

type cachedScope struct {
	files   map[string]cachedFile
	bytes   int64  // accounted: scopeCost, the names, the files and the listing
	lastUse uint64 // grepCache.tick when a grep or a write last used it: the least recent is evicted first
	// listing is the project's files as a grep last listed them all: a grep that finds the
	// project at the same version uses it instead of listing them again.
	listing *projectListing
}

type cachedFile struct {
	updatedAt time.Time
	content   []byte // never modified once cached
}

// cacheEntry is a content to cache: the content of path as of updatedAt.
type cacheEntry struct {
	path      string
	updatedAt time.Time
	content   []byte
}

// projectVersion identifies the state of a project's active files: the position of its
// change feed, which every change of a file advances in the writing transaction
// (migration 0010), with its byte and file counts.
type projectVersion struct {
	feed, bytes, files int64
}

// projectListing is a project's active files in path order, never modified once made.
type projectListing struct {
	version projectVersion
	infos   []driver.FileInfo
	byPath  map[string]int // index in infos
	// cost is the listing's accounted cost; whole is what the cache holds when the listing and
	// every file it lists are cached.
	cost, whole int64
}

// newListing returns the listing of infos (in path order, never modified afterwards), its
// costs counted.
func newListing(infos []driver.FileInfo) *projectListing {
	l := &projectListing{infos: infos, byPath: make(map[string]int, len(infos))}
	for i, fi := range infos {
		l.byPath[fi.Path] = i
		l.cost += int64(len(fi.Path)) + listedFileCost
		l.whole += cachedCost(fi.Path, fi.SizeBytes)
	}
	l.whole += l.cost
	return l
}

func newGrepCache(budget int64) *grepCache {
	switch {
	case budget == 0:
		budget = DefaultGrepCacheBytes
	case budget < 0:
		return nil
	}
	return &grepCache{budget: budget, scopes: map[driver.Scope]*cachedScope{}, refresh: map[driver.Scope]*sync.Mutex{}}
}

// refreshLock returns the locked refresh mutex of scope.
func (c *grepCache) refreshLock(scope driver.Scope) *sync.Mutex {
	c.mu.Lock()
	m := c.refresh[scope]
	if m == nil {
		m = &sync.Mutex{}
		c.refresh[scope] = m
	}
	c.mu.Unlock()
	m.Lock()
	return m
}

// lookup sets contents[i] for each i of idx whose version (updated_at and size of infos[i])
// the cache holds, and returns the others.
func (c *grepCache) lookup(scope driver.Scope, infos []driver.FileInfo, contents [][]byte, idx []int) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scopes[scope]
	if sc == nil {
		return idx
	}
	var missing []int
	for _, i := range idx {
		f, ok := sc.files[infos[i].Path]
		if ok && f.updatedAt.Equal(infos[i].UpdatedAt) && int64(len(f.content)) == infos[i].SizeBytes {
			contents[i] = f.content
			continue
		}
		missing = append(missing, i)
	}
	return missing
}

// put caches entries for scope, replacing what it held for their paths, then makes room
// (fit), keeping the scope's paths that keep accepts (nil: none).
func (c *grepCache) put(scope driver.Scope, entries []cacheEntry, keep func(path string) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.use(scope)
	for _, e := range entries {
		if old, ok := sc.files[e.path]; ok {
			c.add(sc, -cachedCost(e.path, int64(len(old.content))))
		}
		sc.files[e.path] = cachedFile{updatedAt: e.updatedAt, content: e.content}
		c.add(sc, cachedCost(e.path, int64(len(e.content))))
	}
	c.fit(sc, keep)
}

// fit evicts until what the cache holds and the copies of open write transactions are within
// the budget: the least recently used scopes other than sc first, then sc's own paths that keep
// rejects (nil: any), then sc's listing. c.mu is held; sc may be nil.
func (c *grepCache) fit(sc *cachedScope, keep func(path string) bool) {
	over := func() bool { return c.held.Load()+c.pending.Load() > c.budget }
	for over() {
		var lru driver.Scope
		var victim *cachedScope
		for s, o := range c.scopes {
			if o != sc && (victim == nil || o.lastUse < victim.lastUse) {
				lru, victim = s, o
			}
		}
		if victim == nil {
			break
		}
		c.add(victim, -victim.bytes)
		delete(c.scopes, lru)
		delete(c.refresh, lru)
	}
	if sc == nil || !over() {
		return
	}
	for p, f := range sc.files {
		if !over() {
			return
		}
		if keep == nil || !keep(p) {
			c.add(sc, -cachedCost(p, int64(len(f.content))))
			delete(sc.files, p)
		}
	}
	if over() && sc.listing != nil {
		c.add(sc, -sc.listing.cost)
		sc.listing = nil
	}
}

// get returns the cached content of the file at the version info names (its path,
// updated_at and size). A nil cache holds nothing.
func (c *grepCache) get(scope driver.Scope, info driver.FileInfo) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.scopes[scope]; sc != nil {
		if f, ok := sc.files[info.Path]; ok && f.updatedAt.Equal(info.UpdatedAt) && int64(len(f.content)) == info.SizeBytes {
			return f.content, true
		}
	}
	return nil, false
}

// lastListing returns the listing of scope a grep made last, or nil.
func (c *grepCache) lastListing(scope driver.Scope) *projectListing {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.scopes[scope]; sc != nil {
		return sc.listing
	}
	return nil
}

// retain marks scope used and, when l is not nil (a listing of the whole project, whose
// whole cost is within the budget), keeps it and drops the paths it does not list: files
// deleted or renamed since they were cached.
func (c *grepCache) retain(scope driver.Scope, l *projectListing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.use(scope)
	if l == nil || sc.listing == l {
		return
	}
	if sc.listing != nil {
		c.add(sc, -sc.listing.cost)
	}
	sc.listing = l
	c.add(sc, l.cost)
	for p, f := range sc.files {
		if _, ok := l.byPath[p]; !ok {
			c.add(sc, -cachedCost(p, int64(len(f.content))))
			delete(sc.files, p)
		}
	}
	c.fit(sc, func(p string) bool { _, ok := l.byPath[p]; return ok })
}

// use returns the cached scope (created when missing) and marks it the most recently used;
// c.mu is held.
func (c *grepCache) use(scope driver.Scope) *cachedScope {
	c.tick++
	sc := c.scopes[scope]
	if sc == nil {
		sc = &cachedScope{files: map[string]cachedFile{}}
		c.scopes[scope] = sc
		c.add(sc, scopeCost+int64(len(scope.Tenant)+len(scope.Project)))
	}
	sc.lastUse = c.tick
	return sc
}

func (c *grepCache) add(sc *cachedScope, n int64) {
	sc.bytes += n
	c.held.Add(n)
}

// Where a grep view finds the project's version, lists its files (the active files below $4
// after $3, as grepWhere selects them, with the columns of a FileInfo) and fetches their
// contents.
const (
	sqlCacheVersion = `SELECT COALESCE(u.size_bytes, 0), COALESCE(u.file_count, 0), COALESCE(h.last_position, 0),
       COALESCE(h.pruned_through, 0)
FROM (SELECT) AS one
LEFT JOIN mcp_file_project_usage u ON u.apikey_hash = $1 AND u.project = $2
LEFT JOIN mcp_file_feed_heads h ON h.apikey_hash = $1 AND h.project = $2`
	sqlCacheList = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND starts_with(path, $4)`
	sqlCacheFetch = `SELECT path, updated_at, content FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($3)`
	// sqlCacheFetchRange fetches the files from $3 to $4: a batch of files that are next to
	// each other in the listing (a cold cache), in one walk of the path index.
	sqlCacheFetchRange = `SELECT path, updated_at, content FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path >= $3 AND path <= $4`
	// The paths the change feed names between two positions, and their files now.
	sqlCacheChanged = `SELECT DISTINCT path FROM mcp_file_events
WHERE apikey_hash = $1 AND project = $2 AND position > $3 AND position <= $4`
	sqlCacheStat = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($3) ORDER BY path`
)

// grepView is the files below a prefix and after a path as a read transaction sees them, in
// path order, with the contents it has needed so far (from the grep cache, or fetched in the
// transaction and then cached). The transaction's snapshot does not change, so one view
// answers every grep question of the transaction within its range.
type grepView struct {
	prefix, after string
	// declined: the files hold more than the cache's budget; the transaction greps in SQL.
	declined bool
	infos    []driver.FileInfo // list.infos[base : base+len(infos)]
	contents [][]byte          // of infos; nil until needed
	list     *projectListing
	base     int
}

// index returns the index in v.infos of path.
func (v *grepView) index(path string) (int, bool) {
	i, ok := v.list.byPath[path]
	i -= v.base
	return i, ok && i >= 0 && i < len(v.infos)
}

// grepView returns the transaction's view of the files below prefix after after; nil when the
// grep cache is off, the transaction writes, or the files hold more than the cache's budget.
// A project within the budget is listed whole, once per version (projectVersion): while no
// file changes, greps reuse the listing of the first, and after a few changes the next grep
// updates it from the change feed (updateListing).
func (tx *readTx) grepView(ctx context.Context, prefix, after string) (*grepView, error) {
	c := tx.x.s.grepCache
	if c == nil || !tx.x.readOnly {
		return nil, nil
	}
	if v := tx.x.view; v != nil && v.prefix == prefix && after >= v.after {
		if v.declined {
			return nil, nil
		}
		return v, nil
	}
	sc := tx.x.scope
	v := &grepView{prefix: prefix, after: after, declined: true}
	tx.x.view = v
	var pv projectVersion
	var pruned int64
	err := tx.x.query(ctx, opRead, sqlCacheVersion, []any{sc.Tenant, sc.Project}, func(r pgx.Rows) error {
		return r.Scan(&pv.bytes, &pv.files, &pv.feed, &pruned)
	})
	if err != nil {
		return nil, err
	}
	// What caching the project whole would cost at the least (paths of one byte), and at most
	// what a listing may cost for the scope to stay within the budget.
	least := pv.bytes + pv.files*(2+cachedFileCost+listedFileCost)
	limit := c.budget - scopeCost - int64(len(sc.Tenant)+len(sc.Project))
	var l *projectListing
	switch {
	case least <= limit:
		last := c.lastListing(sc)
		if last != nil && last.version == pv {
			l = last
		} else {
			if last != nil && last.version.feed < pv.feed && pruned <= last.version.feed {
				l, err = tx.updateListing(ctx, last, pv)
			}
			if l == nil && err == nil {
				l, err = tx.listFiles(ctx, "/", "", limit)
			}
			if err != nil || l == nil || l.whole > limit {
				return nil, err
			}
			l.version = pv
		}
		c.retain(sc, l)
	case prefix != "" && prefix != "/": // the files below prefix may fit
		if l, err = tx.listFiles(ctx, prefix, after, limit); err != nil || l == nil {
			return nil, err
		}
		c.retain(sc, nil)
	default:
		return nil, nil
	}
	from := sort.Search(len(l.infos), func(i int) bool { p := l.infos[i].Path; return p >= prefix && p > after })
	rest := l.infos[from:]
	to := from + sort.Search(len(rest), func(i int) bool { return !strings.HasPrefix(rest[i].Path, prefix) })
	v.declined, v.list, v.base, v.infos = false, l, from, l.infos[from:to]
	v.contents = make([][]byte, len(v.infos))
	return v, nil
}

// maxListingChanges is how many change-feed events past an old listing updateListing applies
// at most; past it (or past a quarter of the listing) a grep lists the project anew.
const maxListingChanges = 4096

// updateListing returns old brought to the project's version v from the change feed: the
// paths of the events after old's position are looked up again (their files now, if any)
// and merged in. It returns nil, for the caller to list the project anew, when there are too
// many changes, or when the result does not hold v's files and bytes (a safety net: the feed
// and the counts are written in the same transactions as the files).
func (tx *readTx) updateListing(ctx context.Context, old *projectListing, v projectVersion) (*projectListing, error) {
	if n := v.feed - old.version.feed; n > maxListingChanges || n > int64(max(len(old.infos)/4, 64)) {
		return nil, nil
	}
	sc := tx.x.scope
	changed := map[string]bool{}
	var paths []string
	err := tx.x.query(ctx, opRead, sqlCacheChanged, []any{sc.Tenant, sc.Project, old.version.feed, v.feed}, func(r pgx.Rows) error {
		var p string
		if err := r.Scan(&p); err != nil {
			return err
		}
		changed[p] = true
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var now []driver.FileInfo
	err = tx.x.query(ctx, opRead, sqlCacheStat, []any{sc.Tenant, sc.Project, paths}, func(r pgx.Rows) error {
		fi, err := scanFileInfo(r)
		now = append(now, fi)
		return err
	})
	if err != nil {
		return nil, err
	}
	infos := make([]driver.FileInfo, 0, len(old.infos)+len(now))
	var bytes int64
	i := 0
	for _, fi := range old.infos {
		if changed[fi.Path] {
			continue
		}
		for ; i < len(now) && now[i].Path < fi.Path; i++ {
			infos = append(infos, now[i])
			bytes += now[i].SizeBytes
		}
		infos = append(infos, fi)
		bytes += fi.SizeBytes
	}
	for ; i < len(now); i++ {
		infos = append(infos, now[i])
		bytes += now[i].SizeBytes
	}
	if int64(len(infos)) != v.files || bytes != v.bytes {
		return nil, nil
	}
	return newListing(infos), nil
}

// listFiles lists the active files below prefix after after in path order; nil when caching
// the listing and all their contents would cost more than limit bytes (projectListing.whole),
// which it finds out reading at most the rows that could fit.
func (tx *readTx) listFiles(ctx context.Context, prefix, after string, limit int64) (*projectListing, error) {
	sc := tx.x.scope
	sql, args := sqlCacheList, []any{sc.Tenant, sc.Project, after, prefix}
	if end, bounded := prefixEnd(prefix); bounded {
		sql += " AND path < $5"
		args = append(args, end)
	}
	if limit < 0 {
		return nil, nil
	}
	args = append(args, limit/(2+cachedFileCost+listedFileCost)+1)
	sql += fmt.Sprintf(" ORDER BY path LIMIT $%d", len(args))
	var infos []driver.FileInfo
	var whole int64
	err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		if whole > limit {
			return nil // too large for the cache: the rest of the rows are only read
		}
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		whole += cachedCost(fi.Path, fi.SizeBytes) + int64(len(fi.Path)) + listedFileCost
		infos = append(infos, fi)
		return nil
	})
	if err != nil || whole > limit {
		return nil, err
	}
	return newListing(slices.Clip(infos)), nil
}

// files is the view as memgrep searches it, loading contents as it goes.
func (tx *readTx) files(v *grepView, deadline time.Time) memgrep.Files {
	return memgrep.Files{
		Infos:   v.infos,
		Content: func(i int) []byte { return v.contents[i] },
		Load: func(ctx context.Context, from, to int) error {
			idx := make([]int, 0, to-from)
			for i := from; i < to; i++ {
				idx = append(idx, i)
			}
			return tx.load(ctx, v, idx, deadline)
		},
	}
}

// load sets the contents of the files idx of v: from the cache where it holds their version,
// else fetched in statements of at most fetchBatchFiles files or fetchBatchBytes and then
// cached. It looks at the context and deadline (when not zero) before each statement.
func (tx *readTx) load(ctx context.Context, v *grepView, idx []int, deadline time.Time) error {
	need := idx[:0:0]
	for _, i := range idx {
		if v.contents[i] == nil {
			need = append(need, i)
		}
	}
	if len(need) == 0 {
		return nil
	}
	c, sc := tx.x.s.grepCache, tx.x.scope
	m := c.refreshLock(sc)
	defer m.Unlock()
	need = c.lookup(sc, v.infos, v.contents, need)
	var fetched []cacheEntry
	defer func() { c.put(sc, fetched, func(p string) bool { _, ok := v.list.byPath[p]; return ok }) }()
	for len(need) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return errGrepTimeout()
		}
		n, size := 0, int64(0)
		for n < len(need) && n < fetchBatchFiles && (n == 0 || size+v.infos[need[n]].SizeBytes <= fetchBatchBytes) {
			size += v.infos[need[n]].SizeBytes
			n++
		}
		sql, args := sqlCacheFetchRange, []any{sc.Tenant, sc.Project, v.infos[need[0]].Path, v.infos[need[n-1]].Path}
		if need[n-1]-need[0] != n-1 { // not next to each other
			paths := make([]string, n)
			for k, i := range need[:n] {
				paths[k] = v.infos[i].Path
			}
			sql, args = sqlCacheFetch, []any{sc.Tenant, sc.Project, paths}
		}
		err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
			var e cacheEntry
			if err := r.Scan(&e.path, &e.updatedAt, &e.content); err != nil {
				return err
			}
			if e.content == nil {
				e.content = []byte{}
			}
			e.updatedAt = e.updatedAt.UTC()
			if i, ok := v.index(e.path); ok && e.updatedAt.Equal(v.infos[i].UpdatedAt) && int64(len(e.content)) == v.infos[i].SizeBytes {
				v.contents[i] = e.content
				fetched = append(fetched, e)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, i := range need[:n] {
			if v.contents[i] == nil { // the transaction's snapshot cannot lose a file it listed
				return fmt.Errorf("pgstore: %s changed within one read transaction", v.infos[i].Path)
			}
		}
		need = need[n:]
	}
	return nil
}

// errGrepTimeout is the error of a cached grep past its deadline, as memgrep's.
func errGrepTimeout() error {
	return agentfiles.NewError(agentfiles.CodeTimeout, "the search ran past its time budget; narrow it with a path, a glob or more literal text", "")
}

// getCached answers GetMany from the transaction's grep view when it lists every path (the
// candidates of the grep that made it); false otherwise.
func (tx *readTx) getCached(ctx context.Context, paths []string) ([]driver.File, bool, error) {
	v := tx.x.view
	if v == nil || v.declined {
		return nil, false, nil
	}
	idx := make([]int, len(paths))
	for k, p := range paths {
		i, ok := v.index(p)
		if !ok {
			return nil, false, nil
		}
		idx[k] = i
	}
	if err := tx.load(ctx, v, idx, time.Time{}); err != nil {
		return nil, true, err
	}
	out := make([]driver.File, len(idx))
	for k, i := range idx {
		out[k] = driver.File{FileInfo: v.infos[i], Content: v.contents[i]}
	}
	return out, true, nil
}

// cacheWritten keeps content, written to path at updatedAt by the transaction, to put in the
// grep cache when the transaction commits; the caller gives a content nothing will modify (a
// copy of its own). The copies count against the cache's budget (pendingFileCost each besides
// their contents and paths), which the cache makes room for by evicting; when what all open
// write transactions keep would pass the budget, the transaction caches nothing.
func (x *session) cacheWritten(path string, updatedAt time.Time, content []byte) {
	c := x.s.grepCache
	if c == nil || x.written.skip {
		return
	}
	n := int64(len(content)+len(path)) + pendingFileCost
	x.written.bytes += n
	if c.pending.Add(n) > c.budget {
		x.forgetWritten()
		x.written.skip = true
		return
	}
	x.written.entries = append(x.written.entries, cacheEntry{path: path, updatedAt: updatedAt, content: content})
	if c.held.Load()+c.pending.Load() > c.budget {
		c.mu.Lock()
		c.fit(nil, nil)
		c.mu.Unlock()
	}
}

// writtenContents is what a write transaction wrote, for the grep cache.
type writtenContents struct {
	entries []cacheEntry
	bytes   int64 // accounted in grepCache.pending
	skip    bool  // more than the cache's budget
}

// cacheCommitted puts the contents the committed transaction wrote in the grep cache.
func (x *session) cacheCommitted() {
	entries := x.written.entries
	x.forgetWritten() // before put, so that the copies are not counted twice
	if len(entries) > 0 {
		x.s.grepCache.put(x.scope, entries, nil)
	}
}

// forgetWritten drops the copies the transaction kept for the grep cache (at its end, whether
// or not it committed them).
func (x *session) forgetWritten() {
	if c := x.s.grepCache; c != nil && x.written.bytes > 0 {
		c.pending.Add(-x.written.bytes)
	}
	x.written = writtenContents{skip: x.written.skip}
}

// GrepCacheHeld returns the bytes the grep cache accounts for now (0 when it is off; see
// Options.GrepCacheBytes): the contents, paths and listings it holds with a fixed cost per
// entry for Go's own structures, and the copies open write transactions keep for it. Once a
// grep or a write has returned it is at most GrepCacheBytes.
func (s *Store) GrepCacheHeld() int64 {
	if s.grepCache == nil {
		return 0
	}
	return s.grepCache.held.Load() + s.grepCache.pending.Load()
}
