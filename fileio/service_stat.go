package fileio

import (
	"context"
	"log/slog"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Stat describes path in project. A file reports its size and times; a directory
// exists while any file lies below it and reports size 0, a zero CreatedAt and the newest
// descendant's UpdatedAt; the root "" always exists. A missing path is Exists=false, not an
// error.
func (s *Service) Stat(ctx context.Context, req StatRequest) (StatResult, error) {
	project, path := req.Project, req.Path
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	var res StatResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (StatResult, error) { return statTx(ctx, tx, path) })
	}
	s.logOp(ctx, "stat", ac, project, path, err, slog.Bool("exists", res.Exists))
	return res, err
}

func statTx(ctx context.Context, tx driver.ReadTx, path string) (StatResult, error) {
	if path != "" {
		info, ok, err := tx.Stat(ctx, path)
		if err != nil {
			return StatResult{}, err
		}
		if ok {
			return StatResult{Exists: true, Type: TypeFile, SizeBytes: info.SizeBytes, CreatedAt: info.CreatedAt, UpdatedAt: info.UpdatedAt}, nil
		}
	}
	found, newest, err := dirInfo(ctx, tx, path)
	if err != nil {
		return StatResult{}, err
	}
	if !found && path != "" {
		return StatResult{}, nil
	}
	return StatResult{Exists: true, Type: TypeDirectory, UpdatedAt: newest}, nil
}
