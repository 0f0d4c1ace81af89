package fileio

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles"
)

// The budget of one call (see the package documentation, Budgets). Every operation starts
// with callBudget, so the store and every loop of the Service see one deadline, and checks
// it with stillWanted between steps whose cost grows with the caller's input.

// callBudget returns ctx bounded by Config.CallTimeout: the caller's own deadline when it is
// earlier. Stores turn the deadline into their own (pgstore: the transaction's
// statement_timeout), so nothing runs on after it.
func (s *Service) callBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.CallTimeout)
}

// stillWanted returns the coded TIMEOUT or CANCELED error once ctx has ended, nil before.
// Loops over edits, lines and files call it between steps.
func stillWanted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	return nil
}

// checkEditCount refuses an Edit of more than Config.MaxEditsPerCall replacements.
func (s *Service) checkEditCount(n int) error {
	if n > s.cfg.MaxEditsPerCall {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"%d edits in one call; the maximum is %d. Split them across several file_edit calls", n, s.cfg.MaxEditsPerCall), "edits")
	}
	return nil
}

// checkRenameCount refuses a Rename of more than Config.MaxRenameFiles files.
func (s *Service) checkRenameCount(from string, n int) error {
	if n > s.cfg.MaxRenameFiles {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"%s holds %d files; one rename moves at most %d. Rename its subdirectories one at a time", from, n, s.cfg.MaxRenameFiles), from)
	}
	return nil
}

// setDiff puts the diff of old → new (excerpts after line skipped) into res, within
// Config.MaxDiffCost and MaxDiffBytes.
func (s *Service) setDiff(res *EditResult, path, old, new string, skipped int) {
	d := unifiedDiff(path, old, new, skipped, diffLimits{steps: s.cfg.MaxDiffCost, bytes: s.cfg.MaxDiffBytes})
	res.Diff, res.DiffTruncated, res.DiffNote = d.text, d.truncated, d.note()
}
