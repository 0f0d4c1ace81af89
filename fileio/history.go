package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Versions lists the versions of the file at path, newest first: the current content (when
// the file exists) and the previous versions the history keeps (see Config.HistoryVersions and
// HistoryRetention), including those of a deleted file. NOT_FOUND when there is neither.
func (s *Service) Versions(ctx context.Context, req VersionsRequest) ([]driver.VersionInfo, error) {
	project, path := req.Project, req.Path
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil && path == "" {
		err = agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; name a file", "")
	}
	var out []driver.VersionInfo
	if err == nil {
		out, err = inView(ctx, s, scope, func(tx driver.ReadTx) ([]driver.VersionInfo, error) {
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
func (s *Service) Restore(ctx context.Context, req RestoreRequest) (WriteResult, error) {
	project, path, version := req.Project, req.Path, req.Version
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil {
		err = checkVersionArg(path, version)
	}
	if err == nil {
		err = checkExpectedSHA256(req.ExpectedSHA256)
	}
	var res WriteResult
	if err == nil {
		opts := s.seal(ctx, ac, scope, path)
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (WriteResult, error) {
			f, err := getVersion(ctx, tx, path, version)
			if err != nil {
				return WriteResult{}, err
			}
			req := WriteRequest{Project: project, Path: path, Content: string(f.Content), Mode: ModeTruncate, ExpectedSHA256: req.ExpectedSHA256}
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
func getVersion(ctx context.Context, tx driver.ReadTx, path string, version int64) (driver.File, error) {
	f, err := tx.GetVersion(ctx, path, version)
	if errors.Is(err, agentfiles.ErrNotFound) {
		return driver.File{}, agentfiles.NewError(agentfiles.CodeNotFound, fmt.Sprintf(
			"version %d of this file is not kept (never written, or past the history's retention); file_versions lists the kept ones", version), path)
	}
	return f, err
}
