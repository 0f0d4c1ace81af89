package memstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/memgrep"
)

var (
	_ driver.ContentSearcher = (*readTx)(nil)
	_ driver.MultiGetter     = (*readTx)(nil)
)

// GrepCandidates implements driver.ContentSearcher by checking c.Query against each file's
// content in memory (internal/memgrep: substring searches that skip to each literal's rarest
// byte, on the free CPUs). The content it reads goes to c.Read and stops at c.MaxReadBytes; it
// looks at the context and c.Deadline before each block of files, and past the deadline it
// fails with TIMEOUT.
func (tx *readTx) GrepCandidates(ctx context.Context, c driver.GrepCandidates) ([]driver.FileInfo, error) {
	infos := tx.p.index
	if len(tx.overlay) > 0 { // a write transaction's own changes: list them in
		var err error
		if infos, err = tx.List(ctx, c.Prefix, 0); err != nil {
			return nil, err
		}
	}
	return memgrep.Candidates(ctx, c, memgrep.Files{Infos: infos, Content: func(i int) []byte { return tx.lookup(infos[i].Path).content }})
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
