package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/fileio/patch"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// ReadManyRequest is the input of Service.ReadMany: Paths, or Glob below Path.
type ReadManyRequest struct {
	Project string
	// Paths are the files to read, as models write them ("src/a.go"; a leading "/" means the
	// same). At most Config.MaxPatchFiles.
	Paths []string
	// Glob selects the files instead (see Glob: "**/*.go"), matched below the directory Path.
	Glob string
	Path string
	// MaxBytes caps the content of the answer; 0, or more than Config.MaxReadBytes, means
	// MaxReadBytes.
	MaxBytes int64
	// Cursor continues a truncated answer: the previous result's NextCursor, with the same
	// other arguments.
	Cursor string
}

// ReadManyResult is the answer of Service.ReadMany.
type ReadManyResult struct {
	Files      []ManyFile `json:"files"` // in path order (bytewise)
	Truncated  bool       `json:"truncated"`
	NextCursor string     `json:"next_cursor,omitempty"`
	Note       string     `json:"note,omitempty"`
}

// ManyFile is one file of a ReadMany answer: its content, or its own error.
type ManyFile struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256,omitempty"` // of the whole file, even when Content is cut
	// Truncated: Content is only the file's first bytes (the file alone is larger than the
	// answer's cap); read the rest with Read from len(Content).
	Truncated bool       `json:"truncated,omitempty"`
	Error     *FileError `json:"error,omitempty"`
}

// FileError is the coded error of one file of a ReadMany answer.
type FileError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ReadMany reads several files in one call and one consistent view: each with its content,
// size and SHA-256 (as Edit's ExpectedSHA256 wants it), or with its own error (a missing file
// is NOT_FOUND, a directory IS_DIRECTORY, a bad path INVALID_PATH) without failing the call.
// The contents together stay within MaxBytes: files that do not fit are left for the next call
// (Truncated, NextCursor); a single file larger than the cap comes cut, marked Truncated.
//
// Errors of the call: INVALID_ARGUMENT for both or neither of Paths and Glob, more than
// Config.MaxPatchFiles paths, two paths that name one file ("a.txt" and "/a.txt", or two
// Unicode spellings of one name), a bad pattern or cursor; and the errors every operation
// shares.
func (s *Service) ReadMany(ctx context.Context, req ReadManyRequest) (ReadManyResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	dir := searchDir(NormalizePath(req.Path))
	ac, scope, err := s.begin(ctx, req.Project, dir)
	fp := fingerprint("read_many", req.Glob, dir, strings.Join(req.Paths, "\x00"))
	var start searchCursor
	if err == nil {
		start, err = decodeCursor(req.Cursor, fp)
	}
	var g *globmatch.Glob
	switch {
	case err != nil:
	case (len(req.Paths) > 0) == (req.Glob != ""):
		err = agentfiles.NewError(agentfiles.CodeInvalidArgument, "give either paths or glob, one of them", "paths")
	case len(req.Paths) > s.cfg.MaxPatchFiles:
		err = agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"%d paths; one call reads at most %d files. Split them across several calls", len(req.Paths), s.cfg.MaxPatchFiles), "paths")
	case req.Glob != "":
		g, err = globmatch.Compile(NormalizePath(req.Glob))
	}
	var named []string
	var pathErrs map[string]error
	if err == nil && len(req.Paths) > 0 {
		named, pathErrs, err = s.readManyPaths(req.Paths)
	}
	maxBytes := s.cfg.MaxReadBytes
	if req.MaxBytes > 0 && req.MaxBytes < maxBytes {
		maxBytes = req.MaxBytes
	}
	var res ReadManyResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (ReadManyResult, error) {
			return s.readManyTx(ctx, tx, named, pathErrs, g, dir, start.Path, maxBytes, fp)
		})
	}
	s.logOp(ctx, "read_many", ac, req.Project, dir, err, slog.Int("files", len(res.Files)), slog.Bool("truncated", res.Truncated))
	if err != nil {
		return ReadManyResult{}, err
	}
	return res, nil
}

// readManyPaths cleans the paths of a ReadMany as models write them ("src/a.go" is "/src/a.go")
// and returns them, with the error of each that breaks the path rules (kept as given), or
// INVALID_ARGUMENT when two of them name one path.
func (s *Service) readManyPaths(in []string) ([]string, map[string]error, error) {
	out := make([]string, 0, len(in))
	pathErrs := map[string]error{}
	named := make(map[string]string, len(in)) // path → the argument that named it
	for _, p := range in {
		clean := NormalizePath(patch.CleanPath(p))
		if err := s.cfg.PathRule.Validate(clean); err != nil || clean == "" {
			if err == nil {
				err = agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; name files", "")
			}
			clean = p
			pathErrs[clean] = err
		}
		if other, dup := named[clean]; dup {
			return nil, nil, duplicatePathError("paths", clean, other, p)
		}
		named[clean] = p
		out = append(out, clean)
	}
	return out, pathErrs, nil
}

// readManyTx picks the paths after `after`, reads those that fit in maxBytes and reports the
// rest through the cursor.
func (s *Service) readManyTx(ctx context.Context, tx driver.ReadTx, named []string, pathErrs map[string]error, g *globmatch.Glob, dir, after string, maxBytes int64, fp string) (ReadManyResult, error) {
	res := ReadManyResult{Files: []ManyFile{}}
	var paths []string
	more := false
	if g != nil {
		page, err := globTx(ctx, tx, g, dir, after, s.cfg.MaxPatchFiles, deadlineOf(ctx))
		if err != nil {
			return res, err
		}
		paths, more = page.paths, page.more
	} else {
		for _, p := range named {
			if p > after || after == "" {
				paths = append(paths, p)
			}
		}
		slices.Sort(paths)
	}
	infos, err := driver.StatMany(ctx, tx, paths)
	if err != nil {
		return res, err
	}
	// Choose the files that fit, then read only those.
	var budget int64 = maxBytes
	var toRead []string
	stop := len(paths)
	for i, p := range paths {
		info, ok := infos[p]
		if !ok || pathErrs[p] != nil {
			continue
		}
		if info.SizeBytes > budget {
			if len(toRead) == 0 && budget == maxBytes {
				toRead = append(toRead, p) // alone larger than the cap: sent cut
				stop = i + 1
			} else {
				stop = i
			}
			break
		}
		budget -= info.SizeBytes
		toRead = append(toRead, p)
	}
	files, err := driver.GetMany(ctx, tx, toRead)
	if err != nil {
		return res, err
	}
	byPath := make(map[string]driver.File, len(files))
	for _, f := range files {
		byPath[f.Path] = f
	}
	for _, p := range paths[:stop] {
		mf := ManyFile{Path: p}
		f, ok := byPath[p]
		switch {
		case pathErrs[p] != nil:
			mf.Error = fileError(pathErrs[p])
		case !ok:
			mf.Error = fileError(missingFileError(ctx, tx, p))
		default:
			mf.SizeBytes, mf.SHA256 = f.SizeBytes, SHA256Hex(f.Content)
			content := f.Content
			if int64(len(content)) > maxBytes {
				content, mf.Truncated = content[:boundaryBefore(content, maxBytes)], true
				res.Note = fmt.Sprintf("%s is larger than the answer's cap of %d bytes and comes cut; read the rest with file_read from offset %d", p, maxBytes, len(content))
			}
			mf.Content = string(content)
		}
		res.Files = append(res.Files, mf)
	}
	if stop < len(paths) || more {
		res.Truncated = true
		last := after
		if len(res.Files) > 0 {
			last = res.Files[len(res.Files)-1].Path
		}
		res.NextCursor = searchCursor{Path: last}.encode(fp)
		if res.Note == "" {
			res.Note = fmt.Sprintf("the answer holds at most %d bytes of content; continue with cursor=next_cursor", maxBytes)
		}
	}
	return res, nil
}

// fileError is the per-file form of a coded error.
func fileError(err error) *FileError {
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return &FileError{Code: e.Code.String(), Message: e.Message}
	}
	return &FileError{Code: agentfiles.CodeInternal.String(), Message: "the file could not be read; retry later"}
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
