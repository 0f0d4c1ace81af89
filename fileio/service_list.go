package fileio

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// DefaultListDepth is the default depth for List: immediate children.
const DefaultListDepth = 1

// ListRequest is a Service.List call (file_list).
type ListRequest struct {
	Project string
	// Path is the directory to list; "" or "/" is the root. A file path lists that file at
	// Depth 0.
	Path string
	// Depth is how many levels to list: 0 the entry for Path itself, 1 its immediate children
	// (DefaultListDepth), n down to n levels.
	Depth int
	// Limit is the most entries returned; 0 means Config.ListLimitDefault, more than
	// Config.ListLimitMax is clamped (LimitClamped).
	Limit int
	// Cursor continues a truncated answer: the previous result's NextCursor, with the same
	// Path and Depth.
	Cursor string
}

// List returns the entries below req.Path, files and implicit directories, sorted by
// path ascending (bytewise).
//
//   - Depth 0: the entry for Path itself; 1: its immediate children; n: down to n levels.
//   - Path "" is the root; "/" is accepted and means the root too. A file path lists that
//     file at depth 0 and is NOT_DIRECTORY at depth >= 1; a missing path is NOT_FOUND (the
//     root always exists, possibly empty).
//   - Limit 0 means Config.ListLimitDefault; a limit over Config.ListLimitMax is clamped
//     (LimitClamped=true). Truncated=true means entries were cut: pass NextCursor as Cursor
//     (same Path and Depth) for the next ones; following cursors to the end yields every
//     entry once.
//
// Negative depth or limit, and a cursor this call did not make, are INVALID_ARGUMENT.
func (s *Service) List(ctx context.Context, req ListRequest) (ListResult, error) {
	project, path, depthLevels, limit := req.Project, req.Path, req.Depth, req.Limit
	if path == "/" {
		path = ""
	}
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	fp := fingerprint("list", path, strconv.Itoa(depthLevels))
	var start searchCursor
	if err == nil {
		switch {
		case depthLevels < 0:
			err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("depth must be >= 0 (0: the path itself, 1: its children), got %d", depthLevels), "depth")
		case limit < 0:
			err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("limit must be >= 0 (0: the default %d), got %d", s.cfg.ListLimitDefault, limit), "limit")
		default:
			start, err = decodeCursor(req.Cursor, fp)
		}
	}
	if err != nil {
		s.logOp(ctx, "list", ac, project, path, err)
		return ListResult{}, err
	}
	res := ListResult{Limit: limit}
	switch {
	case limit == 0:
		res.Limit = s.cfg.ListLimitDefault
	case limit > s.cfg.ListLimitMax:
		res.Limit, res.LimitClamped = s.cfg.ListLimitMax, true
	}
	// One entry past the limit is enough to know that there are more.
	entries, err := inView(ctx, s, scope, func(tx driver.ReadTx) ([]FileEntry, error) {
		return listTx(ctx, tx, path, depthLevels, start.Path, res.Limit+1)
	})
	if err == nil {
		if len(entries) > res.Limit {
			entries, res.Truncated = entries[:res.Limit], true
			res.NextCursor = searchCursor{Path: entries[len(entries)-1].Path}.encode(fp)
			res.Note = fmt.Sprintf("only %d entries are shown; continue with cursor=next_cursor, or list a subdirectory or use a smaller depth", res.Limit)
		}
		if entries == nil {
			entries = []FileEntry{}
		}
		if len(entries) == 0 && path == "" && start.Path == "" {
			res.Note = fmt.Sprintf("project %q holds no files (a project exists once a file is written to it): check the project name, or create a file with file_write", project)
		}
		res.Entries = entries
	}
	s.logOp(ctx, "list", ac, project, path, err, slog.Int("depth", depthLevels), slog.Int("limit", res.Limit), slog.Int("entries", len(res.Entries)))
	if err != nil {
		return ListResult{}, err
	}
	return res, nil
}

// listTx lists path down to depth levels, returning at most maxEntries (>= 1) entries whose
// path sorts after after ("": from the first).
func listTx(ctx context.Context, tx driver.ReadTx, path string, depth int, after string, maxEntries int) ([]FileEntry, error) {
	if path != "" {
		info, isFile, err := tx.Stat(ctx, path)
		if err != nil {
			return nil, err
		}
		if isFile {
			if depth == 0 {
				return []FileEntry{fileEntry(info)}, nil
			}
			return nil, agentfiles.NewError(CodeNotDirectory, "path is a file; use file_read to read it, file_stat or depth=0 to describe it", path)
		}
	}
	files, err := tx.List(ctx, dirPrefix(path), 0)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 && path != "" {
		return nil, agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; list the parent directory or \"\" for the project root", path)
	}
	if depth == 0 && after != "" {
		return nil, nil // the one entry was on the first page
	}
	if depth == 0 {
		e := FileEntry{Name: baseName(path), Path: path, Type: TypeDirectory}
		for _, f := range files {
			if f.UpdatedAt.After(e.UpdatedAt) {
				e.UpdatedAt = f.UpdatedAt
			}
		}
		return []FileEntry{e}, nil
	}
	return entriesBelow(path, files, depth, after, maxEntries), nil
}

// entriesBelow turns the files below dir into the first maxEntries entries after the path after
// ("": from the first), by path, within depth levels of it: files at most depth levels down, and the implicit directories at most
// depth levels down that contain files.
//
// files must be sorted by path, as every Store returns them. Then the files below any one
// directory form a contiguous run, so each directory is found in one pass without a map, and
// the (few) directories are merged into the files instead of sorting every entry.
func entriesBelow(dir string, files []driver.FileInfo, depth int, after string, maxEntries int) []FileEntry {
	prefixLen := len(dirPrefix(dir))
	var dirs []FileEntry // implicit directories, newest UpdatedAt below each
	var open []int       // open[l]: index in dirs of the current directory l+1 levels down
	shallowFiles := 0    // files within depth
	for _, f := range files {
		rel := f.Path[prefixLen:]
		level, end := 0, 0
		for ; level < depth; level++ {
			slash := strings.IndexByte(rel[end:], '/')
			if slash < 0 {
				break
			}
			end += slash
			if level < len(open) && dirs[open[level]].Path == f.Path[:prefixLen+end] {
				if d := &dirs[open[level]]; f.UpdatedAt.After(d.UpdatedAt) {
					d.UpdatedAt = f.UpdatedAt
				}
			} else {
				d := f.Path[:prefixLen+end]
				open = append(open[:level], len(dirs))
				dirs = append(dirs, FileEntry{Name: baseName(d), Path: d, Type: TypeDirectory, UpdatedAt: f.UpdatedAt})
			}
			end++
		}
		if level < depth {
			shallowFiles++
		}
	}
	// Directories come out in the order of their first file, which is nearly but not quite
	// path order: "/a/b" sorts before "/a/b.txt", whose file comes before "/a/b/c".
	slices.SortFunc(dirs, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })

	entries := make([]FileEntry, 0, min(shallowFiles+len(dirs), maxEntries))
	next, nextDir := 0, 0
	for len(entries) < maxEntries {
		for next < len(files) && strings.Count(files[next].Path[prefixLen:], "/") >= depth {
			next++ // deeper than depth
		}
		switch {
		case nextDir < len(dirs) && (next == len(files) || dirs[nextDir].Path < files[next].Path):
			if dirs[nextDir].Path > after {
				entries = append(entries, dirs[nextDir])
			}
			nextDir++
		case next < len(files):
			if files[next].Path > after {
				entries = append(entries, fileEntry(files[next]))
			}
			next++
		default:
			return entries
		}
	}
	return entries
}

func fileEntry(f driver.FileInfo) FileEntry {
	return FileEntry{Name: baseName(f.Path), Path: f.Path, Type: TypeFile, SizeBytes: f.SizeBytes, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}
