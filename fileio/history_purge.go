package fileio

import (
	"context"
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
