package fileio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// ReadToEOF is the length that reads to end of file.
const ReadToEOF = -1

// Read returns lengthBytes bytes of the file at path starting at offsetBytes.
// lengthBytes -1 (ReadToEOF) reads to end of file; an offset past EOF returns empty content.
//
// Limits and UTF-8: the result is always valid UTF-8.
//   - An offset inside a multi-byte character is INVALID_OFFSET naming the nearest valid offsets.
//   - A range that would end inside a character is shortened to the character's start and
//     reported with Truncated=true and NextOffsetBytes (the next read starts there). If that
//     leaves nothing (length shorter than the character) the read is INVALID_OFFSET.
//   - Reads longer than Config.MaxReadBytes are clamped the same way (Truncated=true).
//
// Errors: NOT_FOUND for a missing file, IS_DIRECTORY for a directory, INVALID_OFFSET for a
// negative offset, INVALID_ARGUMENT for a length below -1.
func (s *Service) readRange(ctx context.Context, project, path string, offsetBytes, lengthBytes int64) (ReadResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	path = NormalizePath(path)
	ac, scope, err := s.begin(ctx, project, path)
	if err == nil {
		err = checkReadArgs(path, offsetBytes, lengthBytes)
	}
	var res ReadResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (ReadResult, error) {
			return s.readTx(ctx, tx, path, offsetBytes, lengthBytes)
		})
	}
	s.logOp(ctx, "read", ac, project, path, err,
		slog.Int64("offset", offsetBytes), slog.Int64("length", lengthBytes), slog.Int64("read_bytes", res.ReadBytes))
	return res, err
}

func checkReadArgs(path string, offset, length int64) error {
	if path == "" {
		return agentfiles.NewError(agentfiles.CodeIsDirectory, "the project root is a directory; use file_list to see its files", path)
	}
	if offset < 0 {
		return agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf("offset must be >= 0, got %d", offset), path)
	}
	if length < ReadToEOF {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf("length must be -1 (to end of file) or >= 0, got %d", length), path)
	}
	return nil
}

func (s *Service) readTx(ctx context.Context, tx driver.ReadTx, path string, offset, length int64) (ReadResult, error) {
	f, err := tx.Get(ctx, path)
	if err != nil {
		if errors.Is(err, agentfiles.ErrNotFound) {
			return ReadResult{}, missingFileError(ctx, tx, path)
		}
		return ReadResult{}, err
	}
	return readRange(f.Content, path, offset, length, s.cfg.MaxReadBytes)
}

// missingFileError tells a directory from a missing path.
func missingFileError(ctx context.Context, tx driver.ReadTx, path string) error {
	isDir, err := hasDescendant(ctx, tx, path)
	if err != nil {
		return err
	}
	if isDir {
		return agentfiles.NewError(agentfiles.CodeIsDirectory, "path is a directory; use file_list to see its files", path)
	}
	return agentfiles.NewError(agentfiles.CodeNotFound, "no file at this path; use file_list to see existing files", path)
}

// readRange applies the offset, length, clamp and UTF-8 rules to content.
func readRange(content []byte, path string, offset, length, maxRead int64) (ReadResult, error) {
	size := int64(len(content))
	res := ReadResult{ContentEncoding: ContentEncodingUTF8, OffsetBytes: offset, FileSizeBytes: size, NextOffsetBytes: offset}
	if offset >= size {
		return res, nil
	}
	if !charBoundary(content, offset) {
		return ReadResult{}, splitCharError("offset", content, offset, path)
	}
	want := size - offset
	if length != ReadToEOF && length < want {
		want = length
	}
	clamped := false
	if want > maxRead {
		want, clamped = maxRead, true
	}
	end := offset + want
	if !charBoundary(content, end) {
		end = boundaryBefore(content, end)
		if end == offset {
			next := boundaryAfter(content, offset+1)
			return ReadResult{}, agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf(
				"length %d ends inside the multi-byte UTF-8 character at offset %d; read at least %d bytes",
				want, offset, next-offset), path)
		}
	}
	res.Content = string(content[offset:end])
	res.ReadBytes = end - offset
	res.NextOffsetBytes = end
	if end < offset+want || clamped {
		res.Truncated = true
		switch {
		case clamped:
			res.Note = fmt.Sprintf("read clamped to the maximum of %d bytes per call; continue with offset=%d", maxRead, end)
		default:
			res.Note = fmt.Sprintf("shortened to end on a UTF-8 character boundary; continue with offset=%d", end)
		}
	}
	return res, nil
}
