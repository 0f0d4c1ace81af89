package fileio

import (
	"bytes"
	"context"
	"strings"
)

// Splicer is an optional interface of a WriteTx that edits a file where it is stored, so that
// Service.Edit of one exact-match replacement moves only the searched text, a window of
// context for the diff, and the replacement (pgstore: position() and overlay() in SQL, the
// content never leaves the database; a 1 MiB file costs what its few changed lines do).
// Service.Edit falls back to Get and Put whenever the window is not enough (ambiguous matches,
// lines longer than the window, several edits, the insert form, replace_all). Both paths give
// the same results; fileio/storetest runs the Edit suite with and without it.
type Splicer interface {
	// Locate reports what an edit that replaces needle in the active file at path depends on:
	// the file's info, its SHA-256 when wantSHA256, the byte offsets of the first two
	// non-overlapping occurrences of needle, and the content from radius bytes before the
	// first occurrence to radius bytes after its end (clamped to the file), with the 1-based
	// line number of the window's first byte. Exists is false when no active file is at path.
	// A store whose search may cost the file's size times the needle's length (PostgreSQL's
	// position() does) does not search when that product exceeds maxScan, and answers with
	// Searched false; the Service then searches the content itself, in linear time.
	Locate(ctx context.Context, path string, needle []byte, radius, maxScan int64, wantSHA256 bool) (Located, error)
	// Splice replaces length bytes at offset of the active file at path by data, as a Put of
	// the resulting content would (with its history and index job), and returns the new info
	// and the content's SHA-256. With dryRun it changes nothing and returns what the file
	// would be: its size and SHA-256 (UpdatedAt zero).
	Splice(ctx context.Context, path string, offset, length int64, data []byte, dryRun bool, opts PutOptions) (FileInfo, string, error)
}

// Located is a Splicer's answer to Locate.
type Located struct {
	Exists      bool
	Searched    bool // false: the store left the search to the caller (see maxScan)
	Info        FileInfo
	SHA256      string  // when asked for
	Matches     []int64 // offsets of the first (at most two) non-overlapping occurrences
	Window      []byte  // content[WindowStart : WindowStart+len(Window)] when there is a match
	WindowStart int64
	WindowLine  int // the 1-based line of the byte at WindowStart
}

// spliceRadius is the context Service.Edit asks a Splicer for on either side of the match.
const spliceRadius = 8 << 10

// spliceMaxScan is the maxScan Service.Edit gives Splicer.Locate: the most bytes × needle
// bytes a store may compare to find the text, about 0.1 s of PostgreSQL's position() at its
// worst. A 1 MiB file is searched in the store for an old_str of up to 256 bytes, a 10 MiB
// file for 25 bytes; longer ones are found by the Service's linear search.
const spliceMaxScan = 256 << 20

// LocateIn answers Splicer.Locate from the content itself. Stores that keep the content in
// memory (memstore) use it.
func LocateIn(info FileInfo, content, needle []byte, radius int64, wantSHA256 bool) Located {
	loc := Located{Exists: true, Searched: true, Info: info}
	if wantSHA256 {
		loc.SHA256 = SHA256Hex(content)
	}
	first := bytes.Index(content, needle)
	if first < 0 || len(needle) == 0 {
		return loc
	}
	loc.Matches = []int64{int64(first)}
	if second := bytes.Index(content[first+len(needle):], needle); second >= 0 {
		loc.Matches = append(loc.Matches, int64(first+len(needle)+second))
	}
	start := max(int64(first)-radius, 0)
	end := min(int64(first+len(needle))+radius, int64(len(content)))
	loc.Window, loc.WindowStart = content[start:end], start
	loc.WindowLine = 1 + bytes.Count(content[:start], []byte{'\n'})
	return loc
}

// editSpliced makes a one-replacement edit through a Splicer. done is false when the
// window cannot tell the result, and the caller must take the general path.
func (s *Service) editSpliced(ctx context.Context, sp Splicer, tx WriteTx, req EditRequest, opts PutOptions) (res EditResult, done bool, err error) {
	e := req.Edits[0]
	if e.OldStr == e.NewStr {
		return EditResult{}, false, nil
	}
	loc, err := sp.Locate(ctx, req.Path, []byte(e.OldStr), spliceRadius, spliceMaxScan, req.ExpectedSHA256 != "")
	switch {
	case err != nil:
		return EditResult{}, true, err
	case !loc.Exists:
		return EditResult{}, true, missingFileError(ctx, tx, req.Path)
	case !loc.Searched:
		return EditResult{}, false, nil
	case req.ExpectedSHA256 != "" && !strings.EqualFold(req.ExpectedSHA256, loc.SHA256):
		return EditResult{}, true, conflictError(req.Path)
	case len(loc.Matches) == 0:
		_, err := applyEdits(ctx, "", req.Edits, 0) // the NO_MATCH error, as the general path words it
		return EditResult{}, true, err
	case len(loc.Matches) > 1:
		return EditResult{}, false, nil // the general path names the lines of every match
	}
	size := loc.Info.SizeBytes
	w, ws := loc.Window, loc.WindowStart
	rel := int(loc.Matches[0] - ws)
	matchEnd := rel + len(e.OldStr)
	// Trim the window to whole lines with at least diffContext lines either side of the
	// change, unless it reaches the start or the end of the file.
	start, line := 0, loc.WindowLine
	if ws > 0 {
		i := bytes.IndexByte(w, '\n')
		if i < 0 || i >= rel {
			return EditResult{}, false, nil
		}
		start, line = i+1, line+1
		if bytes.Count(w[start:rel], []byte{'\n'}) < diffContext {
			return EditResult{}, false, nil
		}
	}
	end := len(w)
	if ws+int64(len(w)) < size {
		i := bytes.LastIndexByte(w, '\n')
		if i < matchEnd || bytes.Count(w[matchEnd:i+1], []byte{'\n'}) < diffContext+1 {
			return EditResult{}, false, nil
		}
		end = i + 1
	}
	oldWin := string(w[start:end])
	newWin := oldWin[:rel-start] + e.NewStr + oldWin[matchEnd-start:]
	newSize := size - int64(len(e.OldStr)) + int64(len(e.NewStr))
	if err := s.checkGrowth(ctx, tx, req.Path, size, newSize); err != nil {
		return EditResult{}, true, err
	}
	info, sum, err := sp.Splice(ctx, req.Path, loc.Matches[0], int64(len(e.OldStr)), []byte(e.NewStr), req.DryRun, opts)
	if err != nil {
		return EditResult{}, true, err
	}
	res = EditResult{SizeBytes: newSize, SHA256: sum, UpdatedAt: info.UpdatedAt, DryRun: req.DryRun}
	s.setDiff(&res, req.Path, oldWin, newWin, line-1)
	return res, true, nil
}
