package memstore

import (
	"context"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/parallel"
	"github.com/agentfiles/agentfiles/internal/rarebyte"
)

var (
	_ driver.ContentSearcher = (*readTx)(nil)
	_ driver.MultiGetter     = (*readTx)(nil)
)

// How GrepCandidates filters: the files of a block are checked on the free CPUs at once, then
// taken in path order, so that the limit and the read budget end the list exactly where one
// file at a time would have.
const (
	filterBlockFiles = 512
	filterBlockBytes = 4 << 20
	// filterSerialBytes: a block with less content is checked on the calling goroutine.
	filterSerialBytes = 256 << 10
)

// GrepCandidates implements driver.ContentSearcher by checking c.Query against each file's
// content in memory: substring searches (linear in the content, skipping to each literal's
// rarest byte), far cheaper than matching the pattern line by line, on the free CPUs. The
// content it reads goes to c.Read and stops at c.MaxReadBytes; it looks at the context and
// c.Deadline before each block of files, and past the deadline it fails with TIMEOUT.
func (tx *readTx) GrepCandidates(ctx context.Context, c driver.GrepCandidates) ([]driver.FileInfo, error) {
	infos := tx.p.index
	if len(tx.overlay) > 0 { // a write transaction's own changes: list them in
		var err error
		if infos, err = tx.List(ctx, c.Prefix, 0); err != nil {
			return nil, err
		}
	}
	i := 0
	if len(tx.overlay) == 0 {
		i = max(tx.p.position(c.Prefix), tx.p.position(c.After))
	}
	read := c.Read
	if read == nil {
		read = &driver.CandidateRead{}
	}
	filter := compileFilter(c.Query)
	var out []driver.FileInfo
	type file struct {
		info    driver.FileInfo
		content []byte
		match   bool
	}
	var block []file
	for i < len(infos) && len(out) < c.Limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !c.Deadline.IsZero() && time.Now().After(c.Deadline) {
			return nil, agentfiles.NewError(agentfiles.CodeTimeout, "the search ran past its time budget; narrow it with a path, a glob or more literal text", "")
		}
		// The next block: the files below the prefix, after c.After, within the read budget.
		block = block[:0]
		blockBytes, readBytes, through, budgetSpent, end := 0, read.Bytes, read.Through, false, false
		for ; i < len(infos) && len(block) < filterBlockFiles && blockBytes < filterBlockBytes; i++ {
			info := infos[i]
			if !strings.HasPrefix(info.Path, c.Prefix) {
				if info.Path > c.Prefix {
					end = true
					break
				}
				continue
			}
			if info.Path <= c.After {
				continue
			}
			if c.Query.Op == driver.QueryAll {
				block = append(block, file{info: info, match: true})
				if len(block) >= c.Limit {
					break
				}
				continue
			}
			if c.MaxReadBytes > 0 && readBytes >= c.MaxReadBytes && through != "" {
				budgetSpent = true
				break
			}
			content := tx.lookup(info.Path).content
			readBytes += int64(len(content))
			through = info.Path
			blockBytes += len(content)
			block = append(block, file{info: info, content: content})
		}
		if c.Query.Op != driver.QueryAll {
			check := func(k int) { block[k].match = filter.matches(block[k].content) }
			if blockBytes < filterSerialBytes {
				for k := range block {
					check(k)
				}
			} else {
				parallel.For(len(block), check)
			}
		}
		for _, f := range block {
			if len(out) >= c.Limit {
				return out, nil
			}
			if f.content != nil {
				read.Bytes += int64(len(f.content))
				read.Through = f.info.Path
			}
			if f.match {
				out = append(out, f.info)
			}
		}
		if budgetSpent && len(out) < c.Limit {
			read.Stopped = true
			break
		}
		if end {
			break
		}
	}
	return out, nil
}

// contentFilter is a driver.ContentQuery compiled for checking many files: each literal
// with its rarebyte.Finder.
type contentFilter struct {
	op     driver.ContentQueryOp
	finder rarebyte.Finder
	sub    []contentFilter
}

func compileFilter(q driver.ContentQuery) contentFilter {
	f := contentFilter{op: q.Op}
	if q.Op == driver.QueryLiteral {
		f.finder = rarebyte.New(q.Literal, q.IgnoreCase)
	}
	for _, s := range q.Sub {
		f.sub = append(f.sub, compileFilter(s))
	}
	return f
}

// matches is driver.ContentQuery.Matches.
func (f contentFilter) matches(content []byte) bool {
	switch f.op {
	case driver.QueryAll:
		return true
	case driver.QueryLiteral:
		return f.finder.Index(content) >= 0
	case driver.QueryAnd:
		for _, s := range f.sub {
			if !s.matches(content) {
				return false
			}
		}
		return true
	case driver.QueryOr:
		for _, s := range f.sub {
			if s.matches(content) {
				return true
			}
		}
		return false
	case driver.QuerySequence:
		// The leftmost occurrence of each literal ends first, which leaves the most room for
		// the next one.
		for _, s := range f.sub {
			at := s.finder.Index(content)
			if at < 0 {
				return false
			}
			content = content[at+len(s.finder.Literal()):]
		}
		return true
	}
	return false // QueryNone
}

// GetMany implements driver.MultiGetter without copying: committed contents are never
// modified.
func (tx *readTx) GetMany(ctx context.Context, paths []string) ([]driver.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]driver.File, 0, len(paths))
	for _, p := range paths {
		if rec := tx.lookup(p); rec != nil {
			out = append(out, driver.File{FileInfo: rec.info, Content: rec.content})
		}
	}
	return out, nil
}
