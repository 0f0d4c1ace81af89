package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentfiles/agentfiles"
)

// VersionInfo describes one version of a file: the active content or a kept previous one.
type VersionInfo struct {
	Version   int64     `json:"version"` // per path: 1, 2, …; a file created again after a delete continues the numbering
	SizeBytes int64     `json:"size_bytes"`
	SHA256    string    `json:"sha256"`     // of the content, as file_edit's expected_sha256 takes it
	WrittenAt time.Time `json:"written_at"` // when this content was written (the file's UpdatedAt then)
	// ReplacedAt is when a newer version or a delete replaced it; zero for the current version.
	ReplacedAt time.Time `json:"replaced_at,omitzero"`
	Current    bool      `json:"current"` // the active file's content
	Deleted    bool      `json:"deleted"` // a delete (or a rename away) replaced it
}

// Historian is the file history part of a ReadTx. A store keeps versions when
// UpdateOptions.HistoryVersions > 0: each Put that replaces a file and each Delete keeps the
// replaced content as a version, for as long as the options of that Update say.
type Historian interface {
	// Versions returns the versions of path newest first: the active file's (Current) when
	// there is one, then the kept previous ones whose retention has not run out.
	Versions(ctx context.Context, path string) ([]VersionInfo, error)
	// GetVersion returns the content of one version of path (the active one included), or
	// an *agentfiles.Error with code NOT_FOUND.
	GetVersion(ctx context.Context, path string, version int64) (File, error)
}

// Versions lists the versions of the file at path, newest first: the current content (when
// the file exists) and the previous versions the history keeps (see Config.HistoryVersions and
// HistoryRetention), including those of a deleted file. NOT_FOUND when there is neither.
func (s *Service) Versions(ctx context.Context, project, path string) ([]VersionInfo, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil && path == "" {
		err = agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; name a file", "")
	}
	var out []VersionInfo
	if err == nil {
		out, err = inView(ctx, s, scope, func(tx ReadTx) ([]VersionInfo, error) {
			vs, err := tx.Versions(ctx, path)
			if err != nil || len(vs) > 0 {
				return vs, err
			}
			return nil, missingFileError(ctx, tx, path)
		})
	}
	s.logOp(ctx, "versions", ac, project, path, err, slog.Int("versions", len(out)))
	return out, err
}

// Restore makes version the current content of the file at path, as a write of that content
// would: it is itself a new version, and the content it replaces is kept. A deleted file comes
// back while its version is kept. Errors: NOT_FOUND when the version is not (or no longer)
// kept, and Write's errors (IS_DIRECTORY, NOT_DIRECTORY, QUOTA_EXCEEDED, …).
func (s *Service) Restore(ctx context.Context, project, path string, version int64) (WriteResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil {
		err = checkVersionArg(path, version)
	}
	var res WriteResult
	if err == nil {
		opts := s.seal(ctx, ac, scope, path)
		res, err = inUpdate(ctx, s, scope, func(tx WriteTx) (WriteResult, error) {
			f, err := getVersion(ctx, tx, path, version)
			if err != nil {
				return WriteResult{}, err
			}
			req := WriteRequest{Project: project, Path: path, Content: string(f.Content), Mode: ModeTruncate}
			return s.writeTx(ctx, tx, req, ModeTruncate, opts)
		})
	}
	err = s.explainQuota(ctx, scope, err)
	s.logOp(ctx, "restore", ac, project, path, err, slog.Int64("version", version))
	return res, err
}

func checkVersionArg(path string, version int64) error {
	if path == "" {
		return agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; name a file", "")
	}
	if version < 1 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("version must be >= 1, got %d; file_versions lists them", version), "version")
	}
	return nil
}

// getVersion returns one version of path from the history.
func getVersion(ctx context.Context, tx ReadTx, path string, version int64) (File, error) {
	f, err := tx.GetVersion(ctx, path, version)
	if errors.Is(err, agentfiles.ErrNotFound) {
		return File{}, agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf(
			"version %d of this file is not kept (never written, or past the history's retention); file_versions lists the kept ones", version), path)
	}
	return f, err
}
