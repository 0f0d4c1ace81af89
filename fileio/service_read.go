package fileio

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// ReadToEOF is the length that reads to end of file.
const ReadToEOF = -1

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
