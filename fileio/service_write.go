package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// Write stores content at req.Path and returns the bytes written.
//
// Modes: APPEND (default) writes at end of file and ignores the offset; TRUNCATE clears the
// file first and requires offset 0; OVERWRITE writes at the offset without truncating, where
// offset == size appends and offset > size is INVALID_OFFSET. A missing file is created, with
// its parent directories implied. Writing where a directory exists is IS_DIRECTORY; writing
// below an existing file is NOT_DIRECTORY.
//
// Content must be valid UTF-8 (INVALID_ARGUMENT otherwise) and the encoding "" or "utf-8".
// An OVERWRITE may not start or end inside a multi-byte character of the existing content
// (INVALID_OFFSET naming the nearest valid offsets). Limits: content over MaxPayloadBytes is
// PAYLOAD_TOO_LARGE; a resulting file over MaxFileBytes or a project over MaxProjectBytes is
// QUOTA_EXCEEDED. Quotas are checked inside the store transaction, so concurrent writers
// cannot exceed them together.
func (s *Service) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	req.Path = NormalizePath(req.Path)
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	var mode WriteMode
	if err == nil {
		mode, err = s.checkWrite(req)
	}
	if err != nil {
		s.logWrite(ctx, ac, req, mode, err)
		return WriteResult{}, err
	}
	var opts driver.PutOptions
	if s.sealer != nil {
		ref, serr := s.sealer.Seal(ctx, ac, scope, req.Path)
		if serr != nil {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "fileio.write: sealing the credential failed; indexing will be lexical-only",
				slog.String("project", req.Project), slog.String("path", req.Path), slog.String("error", serr.Error()))
		} else {
			opts.CredentialRef = ref
		}
	}
	res, err := s.write(ctx, scope, req, mode, opts)
	err = s.explainQuota(ctx, scope, err)
	s.logWrite(ctx, ac, req, mode, err)
	return res, err
}

// write makes the write in a store transaction: TRUNCATE and APPEND through a
// ConditionalUpdater in one step when the Store has one; otherwise, or when the store declines
// a write the rules allow, in an Update (writeTx).
func (s *Service) write(ctx context.Context, scope driver.Scope, req WriteRequest, mode WriteMode, opts driver.PutOptions) (WriteResult, error) {
	if cu, ok := s.store.(driver.ConditionalUpdater); ok && mode != ModeOverwrite && req.ExpectedSHA256 == "" {
		w := s.conditionalWrite(req, mode)
		release, err := s.slots.Acquire(ctx, scope.Tenant)
		if err != nil {
			return WriteResult{}, ctxError(err)
		}
		res, err := cu.UpdateIfAllowed(ctx, scope, s.update, w, opts)
		release()
		if err != nil {
			return WriteResult{}, storeError(err)
		}
		if out, done, err := s.conditionalOutcome(req, mode, w, res); done {
			return out, err
		}
	}
	return inUpdate(ctx, s, scope, func(tx driver.WriteTx) (WriteResult, error) { return s.writeTx(ctx, tx, req, mode, opts) })
}

// conditionalWrite is the ConditionalWrite of a TRUNCATE or APPEND request.
func (s *Service) conditionalWrite(req WriteRequest, mode WriteMode) driver.ConditionalWrite {
	return driver.ConditionalWrite{Path: req.Path, Data: []byte(req.Content), Append: mode == ModeAppend, Exclusive: req.Exclusive,
		MaxFileBytes: s.cfg.MaxFileBytes, MaxProjectBytes: s.cfg.MaxProjectBytes}
}

// conditionalOutcome applies the rules to what a ConditionalWriter or ConditionalUpdater did:
// the result of a write made, the error of a write refused, or done == false when the store
// declined a write the rules allow (the caller then writes it through the other paths).
func (s *Service) conditionalOutcome(req WriteRequest, mode WriteMode, w driver.ConditionalWrite, res driver.ConditionalResult) (out WriteResult, done bool, err error) {
	rules := writeRules{path: req.Path, data: req.Content, mode: mode, offset: req.OffsetBytes, exclusive: req.Exclusive,
		inPlace: w.Append, maxFileBytes: s.cfg.MaxFileBytes, maxProjectBytes: s.cfg.MaxProjectBytes}
	if _, err := rules.apply(res.Check, func() (int64, error) { return res.Check.ProjectBytes, nil }); err != nil {
		return WriteResult{}, true, err
	}
	if res.Written {
		sum := res.SHA256
		if !w.Append {
			sum = SHA256Hex(w.Data)
		}
		return writeResult(req, res.Check, res.Info, sum), true, nil
	}
	return WriteResult{}, false, nil
}

func (s *Service) logWrite(ctx context.Context, ac agentfiles.AuthContext, req WriteRequest, mode WriteMode, err error) {
	s.logOp(ctx, "write", ac, req.Project, req.Path, err,
		slog.String("mode", string(mode)), slog.Int64("offset", req.OffsetBytes), contentAttr(req.Content, &s.cfg))
}

// checkWrite validates everything that does not need the stored state.
func (s *Service) checkWrite(req WriteRequest) (WriteMode, error) {
	if req.Path == "" {
		return "", agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; write to a file path such as \"/notes.md\"", "")
	}
	if enc := strings.ToLower(req.ContentEncoding); enc != "" && enc != ContentEncodingUTF8 && enc != "utf8" {
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "content_encoding must be \"utf-8\"; encode binary data as text (e.g. Base64) first", req.ContentEncoding)
	}
	mode, err := ParseWriteMode(string(req.Mode))
	if err != nil {
		return "", err
	}
	if err := checkExpectedSHA256(req.ExpectedSHA256); err != nil {
		return "", err
	}
	if n := int64(len(req.Content)); n > s.cfg.MaxPayloadBytes {
		return "", agentfiles.NewError(agentfiles.CodePayloadTooLarge, fmt.Sprintf(
			"content is %d bytes; the maximum per write is %d. Split it: write the first part, then APPEND the rest",
			n, s.cfg.MaxPayloadBytes), req.Path)
	}
	if !utf8.ValidString(req.Content) {
		return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "content is not valid UTF-8; encode binary data as text (e.g. Base64) first", req.Path)
	}
	switch {
	case mode == ModeAppend:
	case req.OffsetBytes < 0:
		return "", agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf("offset must be >= 0, got %d", req.OffsetBytes), req.Path)
	case mode == ModeTruncate && req.OffsetBytes != 0:
		return "", agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf("TRUNCATE writes from offset 0, got %d; use OVERWRITE to write at an offset", req.OffsetBytes), req.Path)
	}
	return mode, nil
}

// writeTx makes the write inside the store transaction, by the cheapest path the WriteTx
// offers: TRUNCATE and APPEND through a ConditionalWriter in one step; otherwise the state
// from a WriteChecker or from ReadTx calls (inspectWrite), the rules, and a Put. Every path
// decides with writeRules.apply, so results and errors do not depend on the path.
func (s *Service) writeTx(ctx context.Context, tx driver.WriteTx, req WriteRequest, mode WriteMode, opts driver.PutOptions) (WriteResult, error) {
	rules := writeRules{path: req.Path, data: req.Content, mode: mode, offset: req.OffsetBytes, exclusive: req.Exclusive,
		maxFileBytes: s.cfg.MaxFileBytes, maxProjectBytes: s.cfg.MaxProjectBytes}
	if cw, ok := tx.(driver.ConditionalWriter); ok && mode != ModeOverwrite && req.ExpectedSHA256 == "" {
		w := s.conditionalWrite(req, mode)
		res, err := cw.WriteIfAllowed(ctx, w, opts)
		if err != nil {
			return WriteResult{}, err
		}
		// A refusal returns the Service's error, so Update rolls back whatever the store wrote;
		// a write the store declined although the rules allow it is made through the other paths.
		if out, done, err := s.conditionalOutcome(req, mode, w, res); done {
			return out, err
		}
	}
	check, complete, err := inspectWrite(ctx, tx, req.Path, mode != ModeTruncate || req.ExpectedSHA256 != "")
	if err != nil {
		return WriteResult{}, err
	}
	if h := req.ExpectedSHA256; h != "" {
		if check.Existing == nil {
			return WriteResult{}, agentfiles.NewError(CodeConflict,
				"the file no longer exists, so its sha256 cannot be expected_sha256; read the directory again (file_list) before writing", req.Path)
		}
		if !strings.EqualFold(h, SHA256Hex(check.Existing.Content)) {
			return WriteResult{}, conflictError(req.Path)
		}
	}
	projectBytes := func() (int64, error) { return check.ProjectBytes, nil }
	if !complete {
		projectBytes = func() (int64, error) { return tx.ProjectBytes(ctx) }
	}
	content, err := rules.apply(check, projectBytes)
	if err != nil {
		return WriteResult{}, err
	}
	info, err := tx.Put(ctx, req.Path, content, opts)
	if err != nil {
		return WriteResult{}, err
	}
	return writeResult(req, check, info, SHA256Hex(content)), nil
}

func writeResult(req WriteRequest, before driver.WriteCheck, info driver.FileInfo, sum string) WriteResult {
	return WriteResult{BytesWritten: int64(len(req.Content)), FileSizeBytes: info.SizeBytes, Created: before.Existing == nil, UpdatedAt: info.UpdatedAt, SHA256: sum}
}

// writeRules are Write's rules for one request against the stored state.
type writeRules struct {
	path      string
	data      string
	mode      WriteMode
	offset    int64
	exclusive bool
	// inPlace: an APPEND that the store makes itself; apply checks sizes only and returns
	// no content (the existing content is not needed).
	inPlace                       bool
	maxFileBytes, maxProjectBytes int64
}

// apply checks the write against the state before it and returns the new content (nil when
// inPlace), or the error that refuses the write. projectBytes is called only when the write
// grows the project. check.Existing must carry its content unless the mode is TRUNCATE or
// inPlace.
func (r writeRules) apply(check driver.WriteCheck, projectBytes func() (int64, error)) ([]byte, error) {
	path := r.path
	if dir := check.AncestorFile; dir != "" {
		return nil, agentfiles.NewError(CodeNotDirectory, fmt.Sprintf("%s is a file, so it cannot contain %s; choose another path", dir, path), dir)
	}
	if check.HasDescendant {
		return nil, agentfiles.NewError(agentfiles.CodeIsDirectory, "a directory exists at this path; write to a file inside it or choose another path", path)
	}
	var old []byte
	var oldSize int64
	if check.Existing != nil {
		if r.exclusive {
			return nil, agentfiles.NewError(agentfiles.CodeAlreadyExists, "a file already exists at this path (exclusive write); choose another path or write without exclusive", path)
		}
		old, oldSize = check.Existing.Content, check.Existing.SizeBytes
	}
	var content []byte
	newSize := oldSize + int64(len(r.data))
	if !r.inPlace {
		var err error
		if content, err = applyWrite(old, r.data, r.mode, r.offset, path); err != nil {
			return nil, err
		}
		newSize = int64(len(content))
	}
	if newSize > r.maxFileBytes {
		return nil, agentfiles.NewError(CodeQuotaExceeded, fmt.Sprintf(
			"the file would be %d bytes; the maximum file size is %d. Split the content across several files",
			newSize, r.maxFileBytes), path)
	}
	if grow := newSize - oldSize; grow > 0 {
		total, err := projectBytes()
		if err != nil {
			return nil, err
		}
		if total+grow > r.maxProjectBytes {
			return nil, newProjectQuotaError(total+grow, r.maxProjectBytes, path)
		}
	}
	return content, nil
}

// inspectWrite returns what a write to path depends on. A WriteChecker answers in one call
// (complete: ProjectBytes is filled in). Otherwise it asks the ReadTx step by step, as the
// Service always did, and stops at the first conflict, leaving ProjectBytes for the caller to
// ask only when the write grows the project. Without a WriteChecker the Existing file carries
// its content whether or not wantContent asks for it.
func inspectWrite(ctx context.Context, tx driver.WriteTx, path string, wantContent bool) (check driver.WriteCheck, complete bool, err error) {
	if c, ok := tx.(driver.WriteChecker); ok {
		check, err = c.CheckWrite(ctx, path, wantContent)
		return check, true, err
	}
	for _, dir := range ancestors(path) {
		_, isFile, err := tx.Stat(ctx, dir)
		if err != nil || isFile {
			return driver.WriteCheck{AncestorFile: dir}, false, err
		}
	}
	isDir, err := hasDescendant(ctx, tx, path)
	if err != nil || isDir {
		return driver.WriteCheck{HasDescendant: isDir}, false, err
	}
	existing, err := tx.Get(ctx, path)
	switch {
	case err == nil:
		return driver.WriteCheck{Existing: &existing}, false, nil
	case errors.Is(err, agentfiles.ErrNotFound):
		return driver.WriteCheck{}, false, nil
	default:
		return driver.WriteCheck{}, false, err
	}
}

// applyWrite returns the new content of a file whose old content is old.
func applyWrite(old []byte, data string, mode WriteMode, offset int64, path string) ([]byte, error) {
	switch mode {
	case ModeTruncate:
		return []byte(data), nil
	case ModeAppend:
		out := make([]byte, 0, len(old)+len(data))
		return append(append(out, old...), data...), nil
	}
	size := int64(len(old))
	if offset > size {
		return nil, agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf(
			"offset %d is past the end of the file (size %d); use an offset between 0 and %d, or APPEND", offset, size, size), path)
	}
	if !charBoundary(old, offset) {
		return nil, splitCharError("offset", old, offset, path)
	}
	end := offset + int64(len(data))
	if end < size && !charBoundary(old, end) {
		return nil, agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf(
			"the overwrite would end at byte %d, inside a multi-byte UTF-8 character of the existing content; make it end at byte %d or %d",
			end, boundaryBefore(old, end), boundaryAfter(old, end)), path)
	}
	outLen := size
	if end > outLen {
		outLen = end
	}
	out := make([]byte, outLen)
	copy(out, old)
	copy(out[offset:], data)
	return out, nil
}
