package pgstore

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/parallel"
	"github.com/agentfiles/agentfiles/internal/rarebyte"
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

// How a cached grep matches: the files of a block are matched on the free CPUs at once, then
// taken in path order, so that the limit and the read budget end the answer exactly where one
// file at a time would have; a block with less than matchSerialBytes is matched on the calling
// goroutine.
const (
	matchBlockFiles  = 512
	matchBlockBytes  = 4 << 20
	matchSerialBytes = 256 << 10
)

// grepCache holds the contents of the files of recently grepped projects, per scope, so
// that GrepLiterals matches them in memory. A content is cached under its path and its
// updated_at, which increases on every write of the path: a grep lists the (path, updated_at,
// size) of its files in its own transaction and fetches only those it does not hold, so it
// answers from the snapshot it listed. All fields are guarded by mu; refresh (per scope) only
// keeps two greps of one project from fetching the same contents at once.
type grepCache struct {
	budget int64

	mu     sync.Mutex
	total  int64 // bytes of content held, over all scopes
	tick   uint64
	scopes map[driver.Scope]*cachedScope
	// refresh holds a mutex per scope, kept while the scope's contents are fetched.
	refresh map[driver.Scope]*sync.Mutex
}

type cachedScope struct {
	files   map[string]cachedFile
	bytes   int64
	lastUse uint64 // grepCache.tick when a grep last used it: the least recent is evicted first
}

type cachedFile struct {
	updatedAt time.Time
	content   []byte // never modified once cached
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

// listedFile is a file a cached grep considers, with its content once known.
type listedFile struct {
	info    driver.FileInfo
	content []byte
	known   bool
}

// missing returns the indexes of the files of list whose version the cache does not hold,
// and fills in the content of the others.
func (c *grepCache) missing(scope driver.Scope, list []listedFile) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	sc := c.scopes[scope]
	for i := range list {
		if sc != nil {
			if f, ok := sc.files[list[i].info.Path]; ok && f.updatedAt.Equal(list[i].info.UpdatedAt) && int64(len(f.content)) == list[i].info.SizeBytes {
				list[i].content, list[i].known = f.content, true
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// store caches the contents of list (all known, fetched of them just fetched) for scope;
// when whole is set, list holds every file of the project and the scope's other paths are
// dropped. It then evicts the least recently used scopes, and finally the scope's own paths
// not in list, until the cache is within its budget.
func (c *grepCache) store(scope driver.Scope, list []listedFile, fetched int, whole bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	sc := c.scopes[scope]
	if sc != nil && fetched == 0 && (!whole || len(sc.files) == len(list)) {
		sc.lastUse = c.tick // the cache held every file (and, when whole, no other)
		return
	}
	if sc == nil {
		sc = &cachedScope{files: make(map[string]cachedFile, len(list))}
		c.scopes[scope] = sc
	}
	sc.lastUse = c.tick
	listed := make(map[string]bool, len(list))
	for _, f := range list {
		listed[f.info.Path] = true
		old, ok := sc.files[f.info.Path]
		if ok && !old.updatedAt.Before(f.info.UpdatedAt) {
			continue // as new as this grep's, or newer (a grep with an older snapshot)
		}
		c.add(sc, -int64(len(old.content)))
		sc.files[f.info.Path] = cachedFile{updatedAt: f.info.UpdatedAt, content: f.content}
		c.add(sc, int64(len(f.content)))
	}
	if whole {
		c.dropUnlisted(sc, listed)
	}
	for c.total > c.budget {
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
	if c.total > c.budget {
		c.dropUnlisted(sc, listed)
	}
}

// storeKnown caches the files of list whose contents are known (a fill that stopped part way).
func (c *grepCache) storeKnown(scope driver.Scope, list []listedFile) {
	var known []listedFile
	for _, f := range list {
		if f.known {
			known = append(known, f)
		}
	}
	c.store(scope, known, len(known), false)
}

// errGrepTimeout is the error of a cached grep past its deadline, as memstore's.
func errGrepTimeout() error {
	return agentfiles.NewError(agentfiles.CodeTimeout, "the search ran past its time budget; narrow it with a path, a glob or more literal text", "")
}

// dropUnlisted removes the paths of sc that are not in listed.
func (c *grepCache) dropUnlisted(sc *cachedScope, listed map[string]bool) {
	for p, f := range sc.files {
		if !listed[p] {
			c.add(sc, -int64(len(f.content)))
			delete(sc.files, p)
		}
	}
}

func (c *grepCache) add(sc *cachedScope, n int64) {
	sc.bytes += n
	c.total += n
}

// Where the cached grep lists its files: the active files below $4 after $3, as grepWhere
// selects them, with the sizes and times a LiteralFile reports.
const (
	sqlCacheList = `SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND starts_with(path, $4)`
	sqlCacheFetch = `SELECT path, updated_at, content FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($3)`
	sqlCacheProjectBytes = `SELECT COALESCE((SELECT size_bytes FROM mcp_file_project_usage WHERE apikey_hash = $1 AND project = $2), 0)`
)

// grepCached answers g from the grep cache, after the caller's decline check and statement
// deadline; false (and no error) when the files below g.Prefix hold more than the cache's
// budget, which leaves g to SQL.
func (tx *readTx) grepCached(ctx context.Context, c *grepCache, g driver.LiteralGrep) ([]driver.LiteralFile, bool, error) {
	sc := tx.x.scope
	whole := (g.Prefix == "" || g.Prefix == "/") && g.After == ""
	if g.Prefix == "" || g.Prefix == "/" {
		var n int64
		err := tx.x.query(ctx, opRead, sqlCacheProjectBytes, []any{sc.Tenant, sc.Project}, func(r pgx.Rows) error { return r.Scan(&n) })
		if err != nil || n > c.budget {
			return nil, false, err
		}
	}
	sql, args := sqlCacheList, []any{sc.Tenant, sc.Project, g.After, g.Prefix}
	if end, bounded := prefixEnd(g.Prefix); bounded {
		sql += " AND path < $5"
		args = append(args, end)
	}
	var list []listedFile
	var total int64
	err := tx.x.query(ctx, opRead, sql+" ORDER BY path", args, func(r pgx.Rows) error {
		if total > c.budget {
			return nil // too large for the cache: the rest of the rows are only read
		}
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		total += fi.SizeBytes
		list = append(list, listedFile{info: fi})
		return nil
	})
	if err != nil || total > c.budget {
		return nil, false, err
	}
	if ok, err := tx.fillFromCache(ctx, c, list, whole, g.Deadline); !ok || err != nil {
		return nil, false, err
	}
	out, err := matchListed(ctx, g, list)
	return out, err == nil, err
}

// fillFromCache sets the content of every file of list, from the cache or fetched in the
// transaction (and then cached); false when a listed file could not be fetched. It looks at
// the context and the deadline before each batch, TIMEOUT past the deadline; the contents
// fetched before a failure are cached all the same, so the next grep fetches only the rest.
func (tx *readTx) fillFromCache(ctx context.Context, c *grepCache, list []listedFile, whole bool, deadline time.Time) (bool, error) {
	sc := tx.x.scope
	m := c.refreshLock(sc)
	defer m.Unlock()
	need := c.missing(sc, list)
	fetched := len(need)
	at := make(map[string]int, len(need))
	for len(need) > 0 {
		err := ctx.Err()
		if err == nil && !deadline.IsZero() && time.Now().After(deadline) {
			err = errGrepTimeout()
		}
		if err != nil {
			c.storeKnown(sc, list)
			return false, err
		}
		n, bytes := 0, int64(0)
		for n < len(need) && n < fetchBatchFiles && (n == 0 || bytes+list[need[n]].info.SizeBytes <= fetchBatchBytes) {
			bytes += list[need[n]].info.SizeBytes
			n++
		}
		paths := make([]string, n)
		clear(at)
		for k, i := range need[:n] {
			paths[k] = list[i].info.Path
			at[paths[k]] = i
		}
		need = need[n:]
		err = tx.x.query(ctx, opRead, sqlCacheFetch, []any{sc.Tenant, sc.Project, paths}, func(r pgx.Rows) error {
			var path string
			var updatedAt time.Time
			var content []byte
			if err := r.Scan(&path, &updatedAt, &content); err != nil {
				return err
			}
			if i, ok := at[path]; ok && updatedAt.Equal(list[i].info.UpdatedAt) && int64(len(content)) == list[i].info.SizeBytes {
				if content == nil {
					content = []byte{}
				}
				list[i].content, list[i].known = content, true
			}
			return nil
		})
		if err != nil {
			c.storeKnown(sc, list)
			return false, err
		}
	}
	for _, f := range list {
		if !f.known {
			return false, nil
		}
	}
	c.store(sc, list, fetched, whole)
	return true, nil
}

// matchListed answers g from the files of list (in path order, all with their contents) as
// GrepLiterals's SQL does: the files with a line that holds a literal and no NUL byte, at most
// g.Limit, each added while the ones before hold less than g.MaxReadBytes.
func matchListed(ctx context.Context, g driver.LiteralGrep, list []listedFile) ([]driver.LiteralFile, error) {
	finders := make([]rarebyte.Finder, len(g.Literals))
	for i, l := range g.Literals {
		finders[i] = rarebyte.New(l, g.IgnoreCase)
	}
	budget := g.MaxReadBytes
	if budget <= 0 {
		budget = 1 << 62
	}
	var out []driver.LiteralFile
	var before int64
	lines := make([]int, 0, matchBlockFiles)
	for start := 0; start < len(list); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !g.Deadline.IsZero() && time.Now().After(g.Deadline) {
			return nil, errGrepTimeout()
		}
		end, blockBytes := start, 0
		for end < len(list) && end-start < matchBlockFiles && blockBytes < matchBlockBytes {
			blockBytes += len(list[end].content)
			end++
		}
		block := list[start:end]
		lines = lines[:len(block)]
		match := func(k int) { lines[k] = matchingLines(finders, block[k].content, g.CountLines) }
		if blockBytes < matchSerialBytes {
			for k := range block {
				match(k)
			}
		} else {
			parallel.For(len(block), match)
		}
		for k, f := range block {
			if lines[k] == 0 {
				continue
			}
			if len(out) >= g.Limit || before >= budget {
				return out, nil
			}
			out = append(out, driver.LiteralFile{FileInfo: f.info, Lines: lines[k]})
			before += f.info.SizeBytes
		}
		start = end
	}
	return out, nil
}

// matchingLines returns the number of lines of content (split at "\n") that hold one of the
// literals of finders, or, without count, 1 when there is one; 0 when content holds a NUL
// byte. No literal holds "\n", so a match lies within one line.
func matchingLines(finders []rarebyte.Finder, content []byte, count bool) int {
	if bytes.IndexByte(content, 0) >= 0 {
		return 0
	}
	// next[i] is where literal i next occurs at or after pos (-1: nowhere), -2 until searched.
	next := make([]int, len(finders))
	for i := range next {
		next[i] = -2
	}
	n := 0
	for pos := 0; pos <= len(content); {
		first := -1
		for i, f := range finders {
			if next[i] == -2 || (next[i] >= 0 && next[i] < pos) {
				next[i] = -1
				if k := f.Index(content[pos:]); k >= 0 {
					next[i] = pos + k
				}
			}
			if next[i] >= 0 && (first < 0 || next[i] < first) {
				first = next[i]
			}
		}
		if first < 0 {
			break
		}
		n++
		if !count {
			break
		}
		eol := bytes.IndexByte(content[first:], '\n')
		if eol < 0 {
			break
		}
		pos = first + eol + 1
	}
	return n
}

// GrepCacheHeld returns the bytes of file content the grep cache holds now (0 when it is
// off; see Options.GrepCacheBytes), never more than its budget once a grep has finished
// filling it.
func (s *Store) GrepCacheHeld() int64 {
	if s.grepCache == nil {
		return 0
	}
	s.grepCache.mu.Lock()
	defer s.grepCache.mu.Unlock()
	return s.grepCache.total
}
