package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// PurgeHistoryResult is the answer of Service.PurgeHistory.
type PurgeHistoryResult struct {
	Versions   int   `json:"versions"`    // how many kept versions were dropped
	BytesFreed int64 `json:"bytes_freed"` // their size, no longer counted toward the quota
	// PinnedVersions and PinnedBytes are the kept versions of the project that checkpoints
	// pin: they stay until file_checkpoint_delete removes those checkpoints.
	PinnedVersions int   `json:"pinned_versions,omitempty"`
	PinnedBytes    int64 `json:"pinned_bytes,omitempty"`
}

// PurgeHistory drops the kept versions (see Versions) of the file or directory at path, or of
// the whole project when path is "", before their retention runs out: deleted files can no
// longer be restored from them, and their bytes stop counting toward max_project_bytes.
// Active files are not changed, nor are the versions checkpoints pin (the answer counts them).
// Nothing kept is not an error (Versions 0). A store whose
// WriteTx is not a HistoryPurger answers INVALID_ARGUMENT.
func (s *Service) PurgeHistory(ctx context.Context, req PurgeHistoryRequest) (PurgeHistoryResult, error) {
	project, path := req.Project, req.Path
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	var res PurgeHistoryResult
	if err == nil {
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (PurgeHistoryResult, error) {
			p, ok := tx.(driver.HistoryPurger)
			if !ok {
				return PurgeHistoryResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
					"this file store cannot drop kept versions; they go when history_retention_days runs out", "")
			}
			n, bytes, err := p.DropVersions(ctx, path)
			res := PurgeHistoryResult{Versions: n, BytesFreed: bytes}
			if f, ok := tx.(driver.FeedReader); ok && err == nil {
				res.PinnedVersions, res.PinnedBytes, err = f.PinnedBytes(ctx)
			}
			return res, err
		})
	}
	s.logOp(ctx, "purge_history", ac, project, path, err, slog.Int("versions", res.Versions), slog.Int64("bytes", res.BytesFreed))
	return res, err
}

// projectQuotaError is the QUOTA_EXCEEDED of a write that would take the project past
// max_project_bytes. It travels out of the transaction as it is, and explainQuota words it
// once it knows what holds the space.
type projectQuotaError struct {
	err          *agentfiles.Error
	total, quota int64
}

func (e *projectQuotaError) Error() string { return e.err.Error() }
func (e *projectQuotaError) Unwrap() error { return e.err }

func newProjectQuotaError(total, quota int64, path string) error {
	return &projectQuotaError{total: total, quota: quota, err: agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
		"the project would hold %d bytes (files and their kept versions), over its quota of %d. Delete files you no longer need, or drop kept versions with file_purge_history, then retry",
		total, quota), path)}
}

// explainQuota turns a projectQuotaError into a QUOTA_EXCEEDED that says how much the files and
// the kept versions hold, and what frees each; other errors pass unchanged.
func (s *Service) explainQuota(ctx context.Context, scope driver.Scope, err error) error {
	var pq *projectQuotaError
	if !errors.As(err, &pq) {
		return err
	}
	var pinned int64
	kept, kerr := inView(ctx, s, scope, func(tx driver.ReadTx) (int64, error) {
		if f, ok := tx.(driver.FeedReader); ok {
			var err error
			if _, pinned, err = f.PinnedBytes(ctx); err != nil {
				return 0, err
			}
		}
		if h, ok := tx.(driver.HistorySizer); ok {
			return h.KeptBytes(ctx)
		}
		return -1, nil
	})
	if kerr != nil || kept < 0 {
		return pq.err
	}
	files, hint := pq.total-kept, "Delete files you no longer need"
	if kept > 0 {
		hint = "Drop kept versions with file_purge_history (path \"\" for the whole project), or delete files you no longer need"
	}
	if pinned > 0 {
		hint = fmt.Sprintf("%d bytes of the kept versions are pinned by checkpoints and stay until you delete those checkpoints (file_checkpoints, file_checkpoint_delete). %s",
			pinned, hint)
	}
	return agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
		"the project would hold %d bytes, over its quota of %d (%d in files, this write included, and %d in kept versions of earlier content, see file_versions). %s, then retry",
		pq.total, pq.quota, files, kept, hint), pq.err.Arg)
}
