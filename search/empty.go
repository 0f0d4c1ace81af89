package search

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// projectEmpty reports whether scope's project holds no active file, from the store (the
// source of truth), reading at most one file's entry.
func (s *Searcher) projectEmpty(ctx context.Context, scope driver.Scope) (bool, error) {
	var files []driver.FileInfo
	err := s.store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		files, err = tx.List(ctx, "", 1)
		return err
	})
	if err != nil {
		return false, backendError("checking whether the project holds files failed", err)
	}
	return len(files) == 0, nil
}
