package fileio

import (
	"context"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Delete removes the file at path, or the directory at path. A directory with
// files below it needs Recursive (NOT_EMPTY otherwise), which removes all of them. A
// missing path is NOT_FOUND.
//
// The project root "" is PERMISSION_DENIED unless Config.AllowRootWipe is set; then
// Recursive removes every file of the project (the root itself always exists) and
// recursive=false is NOT_EMPTY while files remain.
func (s *Service) Delete(ctx context.Context, req DeleteRequest) error {
	project, path, recursive := req.Project, req.Path, req.Recursive
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil && path == "" && !s.cfg.AllowRootWipe {
		err = agentfiles.NewError(agentfiles.CodePermissionDenied, "the project root cannot be deleted; delete files or directories below it instead", "")
	}
	if err == nil {
		err = checkExpectedSHA256(req.ExpectedSHA256)
	}
	deleted := 0
	if err == nil {
		deleted, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (int, error) {
			if err := expectSHA256(ctx, tx, path, req.ExpectedSHA256); err != nil {
				return 0, err
			}
			return deleteTx(ctx, tx, path, recursive)
		})
	}
	s.logOp(ctx, "delete", ac, project, path, err, slog.Bool("recursive", recursive), slog.Int("deleted_files", deleted))
	return err
}

func deleteTx(ctx context.Context, tx driver.WriteTx, path string, recursive bool) (int, error) {
	if path != "" {
		_, isFile, err := tx.Stat(ctx, path)
		if err != nil {
			return 0, err
		}
		if isFile {
			return 1, tx.Delete(ctx, path)
		}
	}
	if !recursive {
		isDir, err := hasDescendant(ctx, tx, path)
		switch {
		case err != nil:
			return 0, err
		case isDir:
			return 0, agentfiles.NewError(CodeNotEmpty, "the directory has files below it; pass recursive=true to delete them all", path)
		case path == "":
			return 0, nil // the empty root: nothing to do, the root always exists
		}
		return 0, agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; use file_list to see existing files", path)
	}
	files, err := tx.List(ctx, dirPrefix(path), 0)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		if path == "" {
			return 0, nil
		}
		return 0, agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; use file_list to see existing files", path)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return len(paths), tx.Delete(ctx, paths...)
}
