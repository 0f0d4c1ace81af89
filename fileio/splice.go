package fileio

import (
	"bytes"
	"context"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// spliceRadius is the context Service.Edit asks a Splicer for on either side of the match.
const spliceRadius = 8 << 10

// spliceMaxScan is the maxScan Service.Edit gives Splicer.Locate: the most bytes × needle
// bytes a store may compare to find the text, about 0.1 s of PostgreSQL's position() at its
// worst. A 1 MiB file is searched in the store for an old_str of up to 256 bytes, a 10 MiB
// file for 25 bytes; longer ones are found by the Service's linear search.
const spliceMaxScan = 256 << 20

// editSpliced makes a one-replacement edit through a Splicer. done is false when the
// window cannot tell the result, and the caller must take the general path.
func (s *Service) editSpliced(ctx context.Context, sp driver.Splicer, tx driver.WriteTx, req EditRequest, opts driver.PutOptions) (res EditResult, done bool, err error) {
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
		_, err := applyEdits(ctx, "", req.Edits, editLimits{}) // the NO_MATCH error, as the general path words it
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
