package fileio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Edit is one exact-match replacement of an EditRequest.
type Edit struct {
	OldStr     string // the exact text to find; must not be empty
	NewStr     string // its replacement
	ReplaceAll bool   // replace every occurrence; otherwise OldStr must occur exactly once
}

// EditRequest is the input of Service.Edit: either Edits, or the insert form (Insert with
// InsertLine and InsertText).
type EditRequest struct {
	Project, Path string
	Edits         []Edit // applied in order, all or nothing
	// Insert selects the insert form instead of Edits: InsertText goes after line InsertLine
	// (0 = at the top), as whole lines (a newline is added where needed).
	Insert         bool
	InsertLine     int
	InsertText     string
	DryRun         bool
	ExpectedSHA256 string // "" = no check; otherwise CONFLICT when the file's sha256 differs
}

// EditResult is the answer of Service.Edit.
type EditResult struct {
	SizeBytes int64  `json:"size_bytes"` // size of the new content
	SHA256    string `json:"sha256"`     // hex SHA-256 of the new content
	Diff      string `json:"diff"`       // unified diff of the change
	// DiffTruncated is true when Diff was cut at Config.MaxDiffBytes; DiffNote says what the
	// diff's limits did (cut it, or showed a large change as one hunk) and what to do.
	DiffTruncated bool      `json:"diff_truncated,omitempty"`
	DiffNote      string    `json:"diff_note,omitempty"`
	UpdatedAt     time.Time `json:"updated_at,omitzero"` // zero (omitted) for a dry run
	DryRun        bool      `json:"dry_run"`
}

// SHA256Hex returns the lowercase hex SHA-256 of content, as EditResult.SHA256 and
// EditRequest.ExpectedSHA256 spell it.
func SHA256Hex(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// Edit changes a file in place without the caller sending the whole file: each Edit replaces
// the exact text OldStr by NewStr, in order, each seeing the result of the ones before; or, in
// the insert form, InsertText is inserted after line InsertLine. Either every edit applies or
// none does.
//
// Errors: NO_MATCH when an OldStr occurs nowhere, AMBIGUOUS_MATCH when it occurs more than once
// without ReplaceAll (the message names the lines of the matches; Arg names the edit), CONFLICT
// when ExpectedSHA256 is set and differs from the file's, NOT_FOUND for a missing file,
// IS_DIRECTORY for a directory, INVALID_ARGUMENT for an empty OldStr, an InsertLine out of range
// or text that is not UTF-8, PAYLOAD_TOO_LARGE when the new text exceeds MaxPayloadBytes,
// QUOTA_EXCEEDED as for Write. DryRun returns the diff and changes nothing. The file keeps its
// previous version in its history (see Versions) like any write.
func (s *Service) Edit(ctx context.Context, req EditRequest) (EditResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	req.Path = NormalizePath(req.Path)
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	if err == nil {
		err = s.checkEdit(req)
	}
	var res EditResult
	if err == nil {
		var opts driver.PutOptions
		if !req.DryRun {
			opts = s.seal(ctx, ac, scope, req.Path)
		}
		res, err = inUpdate(ctx, s, scope, func(tx driver.WriteTx) (EditResult, error) { return s.editTx(ctx, tx, req, opts) })
	}
	err = s.explainQuota(ctx, scope, err)
	s.logOp(ctx, "edit", ac, req.Project, req.Path, err, slog.Int("edits", len(req.Edits)),
		slog.Bool("insert", req.Insert), slog.Bool("dry_run", req.DryRun), slog.Int64("size_bytes", res.SizeBytes))
	return res, err
}

// seal returns the PutOptions of a write by ac to path: the sealed credential reference when
// the Service has a sealer. A failure is logged and leaves the reference empty.
func (s *Service) seal(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, path string) driver.PutOptions {
	var opts driver.PutOptions
	if s.sealer == nil {
		return opts
	}
	ref, err := s.sealer.Seal(ctx, ac, scope, path)
	if err != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "fileio: sealing the credential failed; indexing will be lexical-only",
			slog.String("project", scope.Project), slog.String("path", path), slog.String("error", err.Error()))
		return opts
	}
	opts.CredentialRef = ref
	return opts
}

func (s *Service) checkEdit(req EditRequest) error {
	if req.Path == "" {
		return agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; edit a file path such as \"/notes.md\"", "")
	}
	if err := checkExpectedSHA256(req.ExpectedSHA256); err != nil {
		return err
	}
	var payload int64
	if req.Insert {
		if len(req.Edits) > 0 {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "give either edits or insert_line with insert_text, not both", "edits")
		}
		if req.InsertLine < 0 {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("insert_line must be >= 0 (0 inserts at the top), got %d", req.InsertLine), "insert_line")
		}
		if !utf8.ValidString(req.InsertText) {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "insert_text is not valid UTF-8", "insert_text")
		}
		payload = int64(len(req.InsertText))
	} else {
		if len(req.Edits) == 0 {
			return agentfiles.NewError(agentfiles.CodeInvalidArgument, "give at least one edit {old_str, new_str}, or insert_line with insert_text", "edits")
		}
		if err := s.checkEditCount(len(req.Edits)); err != nil {
			return err
		}
		for i, e := range req.Edits {
			arg := fmt.Sprintf("edits[%d].old_str", i)
			if e.OldStr == "" {
				return agentfiles.NewError(agentfiles.CodeInvalidArgument, "old_str must not be empty; to add text use insert_line with insert_text", arg)
			}
			if !utf8.ValidString(e.OldStr) || !utf8.ValidString(e.NewStr) {
				return agentfiles.NewError(agentfiles.CodeInvalidArgument, "old_str and new_str must be valid UTF-8", arg)
			}
			payload += int64(len(e.OldStr) + len(e.NewStr))
		}
	}
	if payload > s.cfg.MaxPayloadBytes {
		return agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"the edit carries %d bytes of text; the maximum per call is %d. Split it into several edits", payload, s.cfg.MaxPayloadBytes), req.Path)
	}
	return nil
}

// editTx reads the file, applies the edits, checks the quotas and writes the result.
func (s *Service) editTx(ctx context.Context, tx driver.WriteTx, req EditRequest, opts driver.PutOptions) (EditResult, error) {
	if sp, ok := tx.(driver.Splicer); ok && !req.Insert && len(req.Edits) == 1 && !req.Edits[0].ReplaceAll {
		if res, done, err := s.editSpliced(ctx, sp, tx, req, opts); done {
			return res, err
		}
	}
	f, err := tx.Get(ctx, req.Path)
	if err != nil {
		if errors.Is(err, agentfiles.ErrNotFound) {
			return EditResult{}, missingFileError(ctx, tx, req.Path)
		}
		return EditResult{}, err
	}
	if req.ExpectedSHA256 != "" && !strings.EqualFold(req.ExpectedSHA256, SHA256Hex(f.Content)) {
		return EditResult{}, conflictError(req.Path)
	}
	old := string(f.Content)
	var updated string
	if req.Insert {
		updated, err = applyInsert(old, req.InsertLine, req.InsertText)
	} else {
		updated, err = applyEdits(ctx, old, req.Edits, editLimits{maxFileBytes: s.cfg.MaxFileBytes, maxWorkBytes: s.cfg.MaxEditWorkBytes})
	}
	if err != nil {
		return EditResult{}, err
	}
	newContent := []byte(updated)
	res := EditResult{SizeBytes: int64(len(newContent)), SHA256: SHA256Hex(newContent), DryRun: req.DryRun}
	s.setDiff(&res, req.Path, old, updated, 0)
	if err := s.checkGrowth(ctx, tx, req.Path, f.SizeBytes, res.SizeBytes); err != nil {
		return EditResult{}, err
	}
	if req.DryRun || updated == old {
		res.UpdatedAt = f.UpdatedAt
		if req.DryRun {
			res.UpdatedAt = time.Time{}
		}
		return res, nil
	}
	info, err := tx.Put(ctx, req.Path, newContent, opts)
	if err != nil {
		return EditResult{}, err
	}
	res.UpdatedAt = info.UpdatedAt
	return res, nil
}

func conflictError(path string) error {
	return agentfiles.NewError(CodeConflict,
		"the file changed since you read it (its sha256 differs from expected_sha256); read it again and redo the change", path)
}

// expectSHA256 fails with CONFLICT unless the active file at path has content whose SHA-256 is
// expected ("" = no check); a missing file (or a directory) is a conflict too.
func expectSHA256(ctx context.Context, tx driver.ReadTx, path, expected string) error {
	if expected == "" {
		return nil
	}
	f, err := tx.Get(ctx, path)
	if errors.Is(err, agentfiles.ErrNotFound) {
		return conflictError(path)
	}
	if err != nil {
		return err
	}
	if !strings.EqualFold(SHA256Hex(f.Content), expected) {
		return conflictError(path)
	}
	return nil
}

// checkExpectedSHA256 checks the form of an expected_sha256 argument ("" = no check).
func checkExpectedSHA256(h string) error {
	if h == "" {
		return nil
	}
	if _, err := hex.DecodeString(h); err != nil || len(h) != 64 {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, "expected_sha256 must be 64 hex digits, as returned by file_write, file_edit or file_versions", "expected_sha256")
	}
	return nil
}

// checkGrowth applies the file and project quotas to a file of oldSize bytes that becomes
// newSize bytes.
func (s *Service) checkGrowth(ctx context.Context, tx driver.ReadTx, path string, oldSize, newSize int64) error {
	if newSize > s.cfg.MaxFileBytes {
		return agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
			"the file would be %d bytes; the maximum file size is %d. Split the content across several files", newSize, s.cfg.MaxFileBytes), path)
	}
	if grow := newSize - oldSize; grow > 0 {
		total, err := tx.ProjectBytes(ctx)
		if err != nil {
			return err
		}
		if total+grow > s.cfg.MaxProjectBytes {
			return newProjectQuotaError(total+grow, s.cfg.MaxProjectBytes, path)
		}
	}
	return nil
}

// editLimits bound applyEdits (Config.MaxFileBytes and MaxEditWorkBytes); zero: unbounded.
type editLimits struct {
	maxFileBytes, maxWorkBytes int64
}

// applyEdits applies the edits in order to content. No intermediate result may exceed
// maxFileBytes (QUOTA_EXCEEDED, found before the replacement is built), the text scanned by
// all edits together may not exceed maxWorkBytes (INVALID_ARGUMENT, found before the edit
// that would pass it), and it stops between edits once ctx ends.
func applyEdits(ctx context.Context, content string, edits []Edit, lim editLimits) (string, error) {
	var work int64
	for i, e := range edits {
		if err := stillWanted(ctx); err != nil {
			return "", err
		}
		if work += int64(len(content)); lim.maxWorkBytes > 0 && work > lim.maxWorkBytes {
			return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
				"edit %d would take the text these edits scan past %d bytes (each edit scans the whole file, %d bytes now); send at most %d edits of this file per call",
				i+1, lim.maxWorkBytes, len(content), max(int64(i), 1)), "edits")
		}
		arg := fmt.Sprintf("edits[%d].old_str", i)
		n := strings.Count(content, e.OldStr)
		switch {
		case n == 0:
			msg := "old_str occurs nowhere in the file"
			if i > 0 {
				msg += " (after the edits before it)"
			}
			return "", agentfiles.NewError(CodeNoMatch, msg+"; read the file again and copy the text exactly, whitespace included", arg)
		case n > 1 && !e.ReplaceAll:
			return "", agentfiles.NewError(CodeAmbiguousMatch, fmt.Sprintf(
				"old_str occurs %d times, at lines %s; add surrounding lines to make it unique, or set replace_all",
				n, matchLines(content, e.OldStr)), arg)
		}
		if size := int64(len(content)) + int64(n)*int64(len(e.NewStr)-len(e.OldStr)); lim.maxFileBytes > 0 && size > lim.maxFileBytes {
			return "", agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
				"replacing %d occurrences would make the file %d bytes; the maximum file size is %d. Replace fewer occurrences or shorter text",
				n, size, lim.maxFileBytes), arg)
		}
		if e.ReplaceAll {
			content = strings.ReplaceAll(content, e.OldStr, e.NewStr)
		} else {
			content = strings.Replace(content, e.OldStr, e.NewStr, 1)
		}
	}
	return content, nil
}

// maxListedLines bounds the line numbers an AMBIGUOUS_MATCH message lists.
const maxListedLines = 20

// matchLines lists the 1-based line numbers where old starts in content, comma-separated,
// each once.
func matchLines(content, old string) string {
	var out []string
	line, pos := 1, 0
	for len(out) < maxListedLines {
		i := strings.Index(content[pos:], old)
		if i < 0 {
			return strings.Join(out, ", ")
		}
		line += strings.Count(content[pos:pos+i], "\n")
		if n := strconv.Itoa(line); len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
		line += strings.Count(old, "\n")
		pos += i + len(old)
	}
	return strings.Join(out, ", ") + ", …"
}

// LineCount is the number of lines of content: its newlines, plus one for a last line
// without a newline.
func LineCount(content string) int {
	n := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		n++
	}
	return n
}

// applyInsert inserts text as whole lines after line `after` of content.
func applyInsert(content string, after int, text string) (string, error) {
	lines := LineCount(content)
	if after > lines {
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"insert_line %d is past the end of the file, which has %d lines; use 0 to %d", after, lines, lines), "insert_line")
	}
	pos := 0
	for range after {
		i := strings.IndexByte(content[pos:], '\n')
		if i < 0 {
			pos = len(content)
			break
		}
		pos += i + 1
	}
	var sb strings.Builder
	sb.Grow(len(content) + len(text) + 2)
	sb.WriteString(content[:pos])
	if pos == len(content) && content != "" && !strings.HasSuffix(content, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(content[pos:])
	return sb.String(), nil
}
