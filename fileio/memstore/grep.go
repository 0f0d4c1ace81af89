package memstore

import (
	"context"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

var (
	_ driver.ContentSearcher = (*readTx)(nil)
	_ driver.MultiGetter     = (*readTx)(nil)
)

// GrepCandidates implements driver.ContentSearcher by checking c.Query against each file's
// content in memory: substring searches (linear in the content), far cheaper than matching
// the pattern line by line. The content it reads goes to c.Read and stops at c.MaxReadBytes;
// it looks at the context and c.Deadline before each file, and past the deadline it fails
// with TIMEOUT.
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
	var out []driver.FileInfo
	read := c.Read
	if read == nil {
		read = &driver.CandidateRead{}
	}
	for ; i < len(infos) && len(out) < c.Limit; i++ {
		info := infos[i]
		if !strings.HasPrefix(info.Path, c.Prefix) {
			if info.Path > c.Prefix {
				break
			}
			continue
		}
		if info.Path <= c.After {
			continue
		}
		if c.Query.Op == driver.QueryAll {
			out = append(out, info)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !c.Deadline.IsZero() && time.Now().After(c.Deadline) {
			return nil, agentfiles.NewError(agentfiles.CodeTimeout, "the search ran past its time budget; narrow it with a path, a glob or more literal text", "")
		}
		if c.MaxReadBytes > 0 && read.Bytes >= c.MaxReadBytes && read.Through != "" {
			read.Stopped = true
			break
		}
		content := tx.lookup(info.Path).content
		read.Bytes += int64(len(content))
		read.Through = info.Path
		if c.Query.Matches(content) {
			out = append(out, info)
		}
	}
	return out, nil
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
