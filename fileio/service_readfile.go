package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// ReadRequest is the input of Service.Read: a byte range (OffsetBytes, LengthBytes), as
// Service.Read takes it, or a line range (StartLine, EndLine), not both; optionally of a kept
// version.
type ReadRequest struct {
	Project, Path string
	OffsetBytes   int64
	// LengthBytes is the bytes to read: nil, the default read (at most Config.ReadDefaultLines
	// lines and ReadDefaultBytes bytes); ReadToEOF (-1), to the end of the file (at most
	// MaxReadBytes).
	LengthBytes *int64
	// StartLine and EndLine select lines, 1-based and inclusive; 0 leaves an end open (the
	// first or the last line). A negative value counts from the end: -1 is the last line, so
	// StartLine -20 reads the last 20 lines. Lines past the end are ignored.
	StartLine, EndLine int
	// LineNumbers prefixes each returned line with its number, right-aligned in six columns,
	// and a tab, as Anthropic's memory tool `view` shows files. It implies a line-range read.
	LineNumbers bool
	// Version reads a kept version (see Service.Versions) instead of the current content; 0:
	// the current content.
	Version int64
}

// lineMode reports whether req asks for lines.
func (req ReadRequest) lineMode() bool {
	return req.StartLine != 0 || req.EndLine != 0 || req.LineNumbers
}

// Read reads a file by bytes or by lines, optionally from a kept version.
//
// A byte read returns LengthBytes bytes from OffsetBytes (*LengthBytes -1, ReadToEOF: to end of
// file; nil: at most Config.ReadDefaultLines lines and ReadDefaultBytes bytes, cut at a line
// end); an offset past EOF returns empty content. The result is always valid UTF-8: an offset
// inside a multi-byte character is INVALID_OFFSET naming the nearest valid offsets; a range
// that would end inside a character is shortened to the character's start and reported with
// Truncated and NextOffsetBytes (the next read starts there); reads longer than
// Config.MaxReadBytes are clamped the same way. NOT_FOUND for a missing file, IS_DIRECTORY for
// a directory, INVALID_OFFSET for a negative offset, INVALID_ARGUMENT for a length below -1.
//
// A line-range read returns whole lines (with their newlines) and reports StartLine, EndLine
// and TotalLines; OffsetBytes and NextOffsetBytes are the byte offsets of the range in the file,
// and ReadBytes its length (without the line-number prefixes LineNumbers adds to Content). Lines
// beyond Config.MaxReadBytes of Content (line-number prefixes included) are cut at a line boundary with Truncated=true and a Note naming
// the next start_line (a single line longer than the maximum is cut inside, at a character
// boundary). A read that names no end (LengthBytes nil, or StartLine without EndLine) returns
// at most Config.ReadDefaultLines lines and Config.ReadDefaultBytes bytes, ending at a line
// boundary, with Truncated=true, NextOffsetBytes and a Note naming the continuation when the
// file goes on. Errors are Read's, plus INVALID_ARGUMENT when byte offsets and lines are both
// given or EndLine resolves before StartLine, and NOT_FOUND for a version that is not kept.
func (s *Service) Read(ctx context.Context, req ReadRequest) (ReadResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	req.Path = NormalizePath(req.Path)
	ac, scope, err := s.begin(ctx, req.Project, req.Path)
	length := int64(ReadToEOF)
	if req.LengthBytes != nil {
		length = *req.LengthBytes
	}
	if err == nil {
		err = checkReadArgs(req.Path, req.OffsetBytes, length)
	}
	if err == nil && req.lineMode() && (req.OffsetBytes != 0 || req.LengthBytes != nil) {
		err = agentfiles.NewError(agentfiles.CodeInvalidArgument, "give byte offsets (offset, length) or lines (start_line, end_line, line_numbers), not both", "start_line")
	}
	if err == nil && req.Version < 0 {
		err = checkVersionArg(req.Path, req.Version)
	}
	var res ReadResult
	if err == nil {
		res, err = inView(ctx, s, scope, func(tx driver.ReadTx) (ReadResult, error) {
			var f driver.File
			var err error
			if req.Version > 0 {
				f, err = getVersion(ctx, tx, req.Path, req.Version)
			} else if f, err = tx.Get(ctx, req.Path); errors.Is(err, agentfiles.ErrNotFound) {
				err = missingFileError(ctx, tx, req.Path)
			}
			if err != nil {
				return ReadResult{}, err
			}
			var res ReadResult
			switch {
			case req.lineMode() && req.EndLine == 0:
				res, err = s.readLinesDefault(f.Content, req)
			case req.lineMode():
				res, err = readLines(f.Content, req, s.cfg.MaxReadBytes)
			case req.LengthBytes == nil:
				res, err = s.readRangeDefault(f.Content, req.Path, req.OffsetBytes)
			default:
				res, err = readRange(f.Content, req.Path, req.OffsetBytes, length, s.cfg.MaxReadBytes)
			}
			res.Version = req.Version
			return res, err
		})
	}
	s.logOp(ctx, "read", ac, req.Project, req.Path, err, slog.Int64("offset", req.OffsetBytes), slog.Int64("length", length),
		slog.Int("start_line", req.StartLine), slog.Int("end_line", req.EndLine), slog.Int64("version", req.Version),
		slog.Int64("read_bytes", res.ReadBytes))
	return res, err
}

// defaultReadBytes is the byte bound of a read that names no end: ReadDefaultBytes, at most
// MaxReadBytes.
func (s *Service) defaultReadBytes() int64 { return min(s.cfg.ReadDefaultBytes, s.cfg.MaxReadBytes) }

// readRangeDefault reads from offset without a length: at most ReadDefaultLines lines and
// defaultReadBytes bytes, ending at a line boundary when one lies within the bounds, and says
// how to continue when that leaves part of the file unread.
func (s *Service) readRangeDefault(content []byte, path string, offset int64) (ReadResult, error) {
	rest := int64(len(content)) - offset
	if offset < 0 || rest <= 0 {
		return readRange(content, path, offset, ReadToEOF, s.cfg.MaxReadBytes)
	}
	limit, lines := defaultReadEnd(content[offset:], s.cfg.ReadDefaultLines, s.defaultReadBytes())
	if limit >= rest {
		return readRange(content, path, offset, ReadToEOF, s.cfg.MaxReadBytes)
	}
	res, err := readRange(content, path, offset, limit, s.cfg.MaxReadBytes)
	if err != nil {
		return res, err
	}
	res.Truncated = true
	res.Note = fmt.Sprintf("a read without length returns at most %d lines and %d bytes (here %d lines); continue with offset=%d, "+
		"or pass length (up to %d bytes) or start_line and end_line", s.cfg.ReadDefaultLines, s.defaultReadBytes(), lines, res.NextOffsetBytes, s.cfg.MaxReadBytes)
	return res, nil
}

// defaultReadEnd returns how many bytes of text a default read takes, and how many lines that
// is: up to maxLines whole lines within maxBytes, or, when the first line alone is longer,
// maxBytes (the caller cuts at a character boundary).
func defaultReadEnd(text []byte, maxLines int, maxBytes int64) (n int64, lines int) {
	pos := int64(0)
	for lines < maxLines && pos < int64(len(text)) {
		i := bytes.IndexByte(text[pos:], '\n')
		next := int64(len(text))
		if i >= 0 {
			next = pos + int64(i) + 1
		}
		if next > maxBytes {
			if lines == 0 {
				return maxBytes, 1
			}
			break
		}
		pos, lines = next, lines+1
	}
	return pos, lines
}

// readLinesDefault is readLines for a range without EndLine: at most ReadDefaultLines lines
// and defaultReadBytes bytes from StartLine, then Truncated with the next start_line.
func (s *Service) readLinesDefault(content []byte, req ReadRequest) (ReadResult, error) {
	total := LineCount(string(content))
	start := req.StartLine
	if start < 0 {
		start = total + 1 + start
	}
	start = max(start, 1)
	capped := total-start+1 > s.cfg.ReadDefaultLines
	if capped {
		req.EndLine = start + s.cfg.ReadDefaultLines - 1
	}
	res, err := readLines(content, req, s.defaultReadBytes())
	wholeLines := res.NextOffsetBytes > 0 && content[res.NextOffsetBytes-1] == '\n'
	if err != nil || !(capped || res.Truncated) || !wholeLines {
		return res, err // a single line longer than the bound keeps readLines' note
	}
	res.Truncated = true
	res.Note = fmt.Sprintf("a read without end_line returns at most %d lines and %d bytes; continue with start_line=%d, or pass end_line",
		s.cfg.ReadDefaultLines, s.defaultReadBytes(), res.EndLine+1)
	return res, nil
}

// readLines applies a line range to content.
func readLines(content []byte, req ReadRequest, maxRead int64) (ReadResult, error) {
	text := string(content)
	total := LineCount(text)
	resolve := func(n, open int) int {
		switch {
		case n == 0:
			return open
		case n < 0:
			return total + 1 + n
		}
		return n
	}
	start, end := max(resolve(req.StartLine, 1), 1), min(resolve(req.EndLine, total), total)
	if req.EndLine != 0 && req.StartLine != 0 && resolve(req.EndLine, total) < resolve(req.StartLine, 1) {
		return ReadResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"end_line %d comes before start_line %d; the file has %d lines", req.EndLine, req.StartLine, total), "end_line")
	}
	res := ReadResult{ContentEncoding: ContentEncodingUTF8, FileSizeBytes: int64(len(content)), TotalLines: total}
	// Byte offset of the start of line `start`.
	off := 0
	for line := 1; line < start && off < len(text); line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			off = len(text)
			break
		}
		off += i + 1
	}
	res.OffsetBytes, res.NextOffsetBytes = int64(off), int64(off)
	res.StartLine, res.EndLine = start, start-1
	if start > end {
		return res, nil
	}
	var sb strings.Builder
	pos, line := off, start
	for ; line <= end && pos < len(text); line++ {
		next := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		prefix := numberWidth(req.LineNumbers, line)
		if int64(sb.Len()+prefix+next-pos) > maxRead { // the line numbers count too
			res.Truncated = true
			res.Note = fmt.Sprintf("read clamped to the maximum of %d bytes per call; continue with start_line=%d", maxRead, line)
			if line == start { // one line longer than the maximum: cut it at a character boundary
				cut := int(boundaryBefore(content, int64(off)+max(maxRead-int64(prefix), 1)))
				writeNumbered(&sb, req.LineNumbers, line, text[pos:cut])
				pos = cut
				res.Note = fmt.Sprintf("line %d is longer than the maximum of %d bytes per call; read the rest of it with offset=%d (and no lines)", line, maxRead, cut)
			}
			break
		}
		writeNumbered(&sb, req.LineNumbers, line, text[pos:next])
		pos = next
		res.EndLine = line
	}
	if res.Truncated && pos > off && res.EndLine < start {
		res.EndLine = start // a cut single line
	}
	res.Content = sb.String()
	res.ReadBytes = int64(pos - off)
	res.NextOffsetBytes = int64(pos)
	return res, nil
}

// numberWidth is the length of the prefix writeNumbered puts before line n: its number in at
// least six columns and a tab; 0 when not numbered.
func numberWidth(numbered bool, n int) int {
	if !numbered {
		return 0
	}
	return max(len(strconv.Itoa(n)), 6) + 1
}

// writeNumbered writes one line, with its number when numbered.
func writeNumbered(sb *strings.Builder, numbered bool, n int, line string) {
	if numbered {
		num := strconv.Itoa(n)
		for i := len(num); i < 6; i++ {
			sb.WriteByte(' ')
		}
		sb.WriteString(num)
		sb.WriteByte('\t')
	}
	sb.WriteString(line)
}
