package fileio

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// Glob returns the paths of the files below req.Path whose path relative to it matches
// req.Pattern (see Glob for the syntax: "*.md" matches only at the top, "**/*.md" at any
// depth), sorted bytewise. At most the limit (Config.ListLimitDefault, clamped to
// Config.ListLimitMax) are returned; Truncated and NextCursor say when there are more. The
// call is bounded by Config.GrepTimeout like Grep.
//
// Errors: INVALID_PATTERN for a bad pattern; INVALID_ARGUMENT for a bad limit or cursor; INVALID_PATH; NOT_FOUND when
// req.Path does not exist; and the errors every operation shares.
func (s *Service) Glob(ctx context.Context, req GlobRequest) (GlobResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	dir := searchDir(NormalizePath(req.Path))
	ac, scope, err := s.begin(ctx, req.Project, dir)
	var g *globmatch.Glob
	var start searchCursor
	fp := fingerprint("glob", req.Pattern, dir)
	if err == nil {
		g, err = globmatch.Compile(NormalizePath(req.Pattern))
	}
	if err == nil && req.Limit < 0 {
		err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("limit must be >= 0 (0: the default %d), got %d", s.cfg.ListLimitDefault, req.Limit), "limit")
	}
	if err == nil {
		start, err = decodeCursor(req.Cursor, fp)
	}
	if err != nil {
		s.logOp(ctx, "glob", ac, req.Project, dir, err)
		return GlobResult{}, err
	}
	res := GlobResult{Limit: req.Limit}
	switch {
	case req.Limit == 0:
		res.Limit = s.cfg.ListLimitDefault
	case req.Limit > s.cfg.ListLimitMax:
		res.Limit, res.LimitClamped = s.cfg.ListLimitMax, true
	}
	timeout := s.cfg.grepLimits().timeout
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := runCtx.Deadline()
	page, err := inScan(runCtx, s, scope, func(tx driver.ReadTx) (globPage, error) {
		return globTx(runCtx, tx, g, dir, start.Path, res.Limit, deadline)
	})
	if err != nil && ctx.Err() == nil && agentfiles.ErrorCode(err) == agentfiles.CodeTimeout {
		err = agentfiles.WrapError(agentfiles.CodeTimeout, fmt.Sprintf("the glob used its time budget of %s; narrow it with a path", timeout), "", err)
	}
	if err == nil {
		res.Paths = page.paths
		if res.Paths == nil {
			res.Paths = []string{}
		}
		if page.more {
			res.Truncated = true
			res.NextCursor = searchCursor{Path: res.Paths[len(res.Paths)-1]}.encode(fp)
			res.Note = fmt.Sprintf("only the first %d paths are shown; continue with cursor=next_cursor or narrow the pattern", res.Limit)
		}
	}
	s.logOp(ctx, "glob", ac, req.Project, dir, err, slog.Int("pattern_bytes", len(req.Pattern)), slog.Int("paths", len(res.Paths)))
	if err != nil {
		return GlobResult{}, err
	}
	return res, nil
}

type globPage struct {
	paths []string
	more  bool
}

// globTx lists the files below dir after the path after, in pages, keeping those g matches,
// until limit are found and one more shows that the answer is cut.
func globTx(ctx context.Context, tx driver.ReadTx, g *globmatch.Glob, dir, after string, limit int, deadline time.Time) (globPage, error) {
	if dir != "" {
		if _, isFile, err := tx.Stat(ctx, dir); err != nil || isFile {
			return globPage{}, err // a file has nothing below it: no paths
		}
		if ok, err := hasDescendant(ctx, tx, dir); err != nil || !ok {
			if err == nil {
				err = agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; glob \"\" for the whole project, or file_list the parent directory", dir)
			}
			return globPage{}, err
		}
	}
	prefix := dirPrefix(dir) + g.LiteralDirs()
	var page globPage
	next := listPages(tx, prefix, deadline)
	for {
		infos, err := next(ctx, after)
		if err != nil || len(infos) == 0 {
			return page, err
		}
		for _, f := range infos {
			// A match costs up to pattern × path steps: look at the budget before each one.
			if err := ctx.Err(); err != nil {
				return page, err
			}
			if rel, ok := globmatch.RelativeTo(dir, f.Path); !ok || !g.Match(rel) {
				continue
			}
			if len(page.paths) == limit {
				page.more = true
				return page, nil
			}
			page.paths = append(page.paths, f.Path)
		}
		after = infos[len(infos)-1].Path
		if len(infos) < grepCandidateBatch {
			return page, nil
		}
	}
}

// listPages returns the function that lists the files below prefix after a path, a page at a
// time: with ContentSearcher's paging (its statements bounded by deadline) when the store has
// it, else from one List.
func listPages(tx driver.ReadTx, prefix string, deadline time.Time) func(context.Context, string) ([]driver.FileInfo, error) {
	if cs, ok := tx.(driver.ContentSearcher); ok {
		return func(ctx context.Context, after string) ([]driver.FileInfo, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return cs.GrepCandidates(ctx, driver.GrepCandidates{Prefix: prefix, After: after, Query: driver.ContentQuery{Op: driver.QueryAll},
				Limit: grepCandidateBatch, Deadline: deadline})
		}
	}
	var all []driver.FileInfo
	listed := false
	return func(ctx context.Context, after string) ([]driver.FileInfo, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !listed {
			var err error
			if all, err = tx.List(ctx, prefix, 0); err != nil {
				return nil, err
			}
			listed = true
		}
		i := 0
		for after != "" && i < len(all) && all[i].Path <= after {
			i++
		}
		all = all[i:]
		return all[:min(len(all), grepCandidateBatch)], nil
	}
}

// searchDir is the directory a Grep or Glob searches below: path without a trailing "/", "" for
// the root ("" or "/").
func searchDir(path string) string {
	if len(path) > 1 {
		return strings.TrimSuffix(path, "/")
	}
	return strings.TrimPrefix(path, "/")
}
