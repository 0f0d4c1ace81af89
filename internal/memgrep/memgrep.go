// Package memgrep answers the questions fileio.Service.Grep asks a store's index
// (driver.GrepCandidates and driver.LiteralGrep) over files whose contents are in memory.
//
// # Use
//
// A store gives the files of a project in path order as Files (memstore: its index; pgstore:
// a grep's listing, with contents from its grep cache) and calls Candidates or Literals with
// the question. Both look at the context and the question's deadline before each block of
// files, and fail with TIMEOUT past the deadline.
//
// # How it matches
//
// Each literal of the question is searched with internal/rarebyte (linear in the content,
// skipping to the literal's rarest byte), far cheaper than matching a pattern line by line.
// The files of a block (at most 512 files or 4 MiB) are checked on the free CPUs at once
// (internal/parallel), then taken in path order, so that a limit or a read budget ends the
// answer exactly where one file at a time would have.
package memgrep

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/parallel"
	"github.com/agentfiles/agentfiles/internal/rarebyte"
)

// How files are checked: in blocks of at most blockFiles files or about blockBytes of
// content; a block with less than serialBytes is checked on the calling goroutine.
const (
	blockFiles  = 512
	blockBytes  = 4 << 20
	serialBytes = 256 << 10
)

// FilterCost is how many bytes of content Candidates searches for one byte it charges to the
// scan budget (driver.CandidateRead.Bytes, driver.GrepCandidates.MaxReadBytes): a substring
// search that skips to a literal's rarest byte is well over sixteen times cheaper than matching
// a pattern line by line, which the budget is set for.
const FilterCost = 16

// charge is what searching a file of size bytes costs the scan budget (at least 1 byte).
func charge(size int64) int64 { return (size + FilterCost - 1) / FilterCost }

// Files is the files of a project in path order, with their contents.
type Files struct {
	// Infos are the files, sorted by path (bytewise); SizeBytes is the length of the content.
	Infos []driver.FileInfo
	// Content returns the content of Infos[i] (after Load, for a store that loads contents).
	// Callers must not modify it.
	Content func(i int) []byte
	// Load, when not nil, is called with a range [from, to) of Infos before the contents of
	// those files are read: a store that fetches contents does it here, in one step. Its error
	// ends the search.
	Load func(ctx context.Context, from, to int) error
}

// Candidates answers c as driver.ContentSearcher.GrepCandidates: the files whose path starts
// with c.Prefix and sorts after c.After and whose content can match c.Query, in path order, at
// most c.Limit. For a query other than QueryAll the contents it searches go to c.Read (at
// 1/FilterCost of their size) and stop at c.MaxReadBytes (after at least one file).
func Candidates(ctx context.Context, c driver.GrepCandidates, files Files) ([]driver.FileInfo, error) {
	infos := files.Infos
	i := seek(infos, c.Prefix, c.After)
	var out []driver.FileInfo
	if c.Query.Op == driver.QueryAll { // every file matches: no content to read
		for ; i < len(infos) && len(out) < c.Limit && strings.HasPrefix(infos[i].Path, c.Prefix); i++ {
			out = append(out, infos[i])
		}
		return out, ctx.Err()
	}
	read := c.Read
	if read == nil {
		read = &driver.CandidateRead{}
	}
	filter := compile(c.Query)
	match := make([]bool, 0, blockFiles)
	for i < len(infos) && len(out) < c.Limit {
		if err := alive(ctx, c.Deadline); err != nil {
			return nil, err
		}
		// The next block: the files below the prefix, within the read budget.
		from, end, size := i, i, int64(0)
		readBytes, through := read.Bytes, read.Through
		budgetSpent, last := false, false
		for ; end < len(infos) && end-from < blockFiles && size < blockBytes; end++ {
			info := infos[end]
			if !strings.HasPrefix(info.Path, c.Prefix) {
				last = true
				break
			}
			if c.MaxReadBytes > 0 && readBytes >= c.MaxReadBytes && through != "" {
				budgetSpent = true
				break
			}
			readBytes += charge(info.SizeBytes)
			through = info.Path
			size += info.SizeBytes
		}
		if err := files.load(ctx, from, end); err != nil {
			return nil, err
		}
		match = match[:end-from]
		each(end-from, size, func(k int) { match[k] = filter.matches(files.Content(from + k)) })
		for k, ok := range match {
			if len(out) >= c.Limit {
				return out, nil
			}
			info := infos[from+k]
			read.Bytes += charge(info.SizeBytes)
			read.Through = info.Path
			if ok {
				out = append(out, info)
			}
		}
		i = end
		if budgetSpent {
			read.Stopped = len(out) < c.Limit
			break
		}
		if last {
			break
		}
	}
	return out, nil
}

// Literals answers g as driver.LiteralGrepper.GrepLiterals: the files whose path starts with
// g.Prefix and sorts after g.After that hold a line with one of g.Literals and no NUL byte, in
// path order, at most g.Limit, each added while the ones before hold less than g.MaxReadBytes;
// with g.CountLines, each with its number of matching lines.
func Literals(ctx context.Context, g driver.LiteralGrep, files Files) ([]driver.LiteralFile, error) {
	finders := make([]rarebyte.Finder, len(g.Literals))
	for i, l := range g.Literals {
		finders[i] = rarebyte.New(l, g.IgnoreCase)
	}
	budget := g.MaxReadBytes
	if budget <= 0 {
		budget = 1 << 62
	}
	infos := files.Infos
	var out []driver.LiteralFile
	var before int64
	lines := make([]int, 0, blockFiles)
	for i := seek(infos, g.Prefix, g.After); i < len(infos); {
		if err := alive(ctx, g.Deadline); err != nil {
			return nil, err
		}
		from, end, size := i, i, int64(0)
		for end < len(infos) && end-from < blockFiles && size < blockBytes && strings.HasPrefix(infos[end].Path, g.Prefix) {
			size += infos[end].SizeBytes
			end++
		}
		if end == from {
			break
		}
		if err := files.load(ctx, from, end); err != nil {
			return nil, err
		}
		lines = lines[:end-from]
		each(end-from, size, func(k int) { lines[k] = matchingLines(finders, files.Content(from+k), g.CountLines) })
		for k, n := range lines {
			if n == 0 {
				continue
			}
			if len(out) >= g.Limit || before >= budget {
				return out, nil
			}
			info := infos[from+k]
			out = append(out, driver.LiteralFile{FileInfo: info, Lines: n})
			before += info.SizeBytes
		}
		i = end
	}
	return out, nil
}

func (f Files) load(ctx context.Context, from, to int) error {
	if f.Load == nil || from == to {
		return nil
	}
	return f.Load(ctx, from, to)
}

// seek returns the index of the first file of infos whose path is at least prefix and sorts
// after after.
func seek(infos []driver.FileInfo, prefix, after string) int {
	return sort.Search(len(infos), func(i int) bool {
		p := infos[i].Path
		return p >= prefix && p > after
	})
}

// alive is the context's error, or TIMEOUT past deadline (when not zero).
func alive(ctx context.Context, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !deadline.IsZero() && time.Now().After(deadline) {
		return agentfiles.NewError(agentfiles.CodeTimeout, "the search ran past its time budget; narrow it with a path, a glob or more literal text", "")
	}
	return nil
}

// each calls do for each of n files of a block holding size bytes: on the calling goroutine
// for a small block, else on the free CPUs.
func each(n int, size int64, do func(k int)) {
	if size < serialBytes {
		for k := range n {
			do(k)
		}
		return
	}
	parallel.For(n, do)
}

// filter is a driver.ContentQuery compiled for checking many files: each literal with its
// rarebyte.Finder.
type filter struct {
	op     driver.ContentQueryOp
	finder rarebyte.Finder
	sub    []filter
}

func compile(q driver.ContentQuery) filter {
	f := filter{op: q.Op}
	if q.Op == driver.QueryLiteral {
		f.finder = rarebyte.New(q.Literal, q.IgnoreCase)
	}
	for _, s := range q.Sub {
		f.sub = append(f.sub, compile(s))
	}
	return f
}

// matches is driver.ContentQuery.Matches.
func (f filter) matches(content []byte) bool {
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

// matchingLines returns the number of lines of content (split at "\n") that hold one of the
// literals of finders, or, without count, 1 when there is one; 0 when content holds a NUL
// byte. No literal holds "\n", so a match lies within one line.
func matchingLines(finders []rarebyte.Finder, content []byte, count bool) int {
	if bytes.IndexByte(content, 0) >= 0 {
		return 0
	}
	literals := rarebyte.NewEarliest(finders)
	n := 0
	for pos := 0; pos <= len(content); {
		first := literals.Index(content, pos)
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
