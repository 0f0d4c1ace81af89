package fileio

import (
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
)

// FileType says whether a FileEntry is a file or an implicit directory.
type FileType string

// The two kinds of entries. Directories are never stored: they exist while a file below them does.
const (
	TypeFile      FileType = "FILE"
	TypeDirectory FileType = "DIRECTORY"
)

// WriteMode selects how Service.Write places its content.
type WriteMode string

// The write modes. The zero value "" means ModeAppend.
const (
	// ModeAppend writes at end of file; the offset is ignored.
	ModeAppend WriteMode = "APPEND"
	// ModeOverwrite writes at the offset without truncating; offset == size appends.
	ModeOverwrite WriteMode = "OVERWRITE"
	// ModeTruncate clears the file and writes from 0; the offset must be 0.
	ModeTruncate WriteMode = "TRUNCATE"
)

// ParseWriteMode accepts the mode names in any letter case; "" is ModeAppend.
func ParseWriteMode(s string) (WriteMode, error) {
	switch WriteMode(strings.ToUpper(s)) {
	case "", ModeAppend:
		return ModeAppend, nil
	case ModeOverwrite:
		return ModeOverwrite, nil
	case ModeTruncate:
		return ModeTruncate, nil
	}
	return "", agentfiles.NewError(agentfiles.CodeInvalidArgument, "mode must be APPEND, OVERWRITE or TRUNCATE", s)
}

// ContentEncodingUTF8 is the only content encoding FileIO supports. Binary data must be
// encoded as text (for example Base64) by the client before writing.
const ContentEncodingUTF8 = "utf-8"

// FileEntry is one entry of a listing. Directories are implicit: SizeBytes is 0,
// CreatedAt is the zero time (omitted from JSON) and UpdatedAt is the newest UpdatedAt of any
// file below them.
type FileEntry struct {
	Name      string    `json:"name"`                // last path segment; "" for the project root
	Path      string    `json:"path"`                // full path, "/a/b.txt"; "" for the project root
	Type      FileType  `json:"type"`                // FILE or DIRECTORY
	SizeBytes int64     `json:"size_bytes"`          // content length in bytes; 0 for directories
	CreatedAt time.Time `json:"created_at,omitzero"` // zero (omitted) for directories
	UpdatedAt time.Time `json:"updated_at,omitzero"` // zero (omitted) for an empty project's root
}

// StatResult is the answer of Service.Stat. Exists=false is not an error.
type StatResult struct {
	Exists    bool      `json:"exists"`
	Type      FileType  `json:"type,omitempty"`      // "" when Exists is false
	SizeBytes int64     `json:"size_bytes"`          // 0 for directories
	CreatedAt time.Time `json:"created_at,omitzero"` // zero (omitted) for directories
	UpdatedAt time.Time `json:"updated_at,omitzero"` // for directories: newest descendant's; zero (omitted) when nothing exists
}

// ReadResult is the answer of Service.Read.
type ReadResult struct {
	Content         string `json:"content"`
	ContentEncoding string `json:"content_encoding"` // always "utf-8"
	OffsetBytes     int64  `json:"offset"`           // where Content starts
	ReadBytes       int64  `json:"read_bytes"`       // len(Content)
	FileSizeBytes   int64  `json:"size_bytes"`
	// Truncated is true when Content is shorter than asked for (and the file has more):
	// the read was clamped to the maximum read size or, naming no end, to the default read
	// size (Config.ReadDefaultLines, ReadDefaultBytes), or shortened so as not to end inside
	// a multi-byte character. Continue from NextOffsetBytes (a line read: see Note).
	Truncated       bool   `json:"truncated"`
	NextOffsetBytes int64  `json:"next_offset"`    // OffsetBytes + ReadBytes
	Note            string `json:"note,omitempty"` // why the read was truncated, and what to do
	// StartLine and EndLine are the 1-based lines a line-range read returned (EndLine <
	// StartLine when it returned none), TotalLines the file's line count (see LineCount); all
	// zero for a byte-range read.
	StartLine  int `json:"start_line,omitempty"`
	EndLine    int `json:"end_line,omitempty"`
	TotalLines int `json:"total_lines,omitempty"`
	// Version is the version read when ReadRequest.Version asked for one.
	Version int64 `json:"version,omitempty"`
}

// WriteRequest is the input of Service.Write. Zero values are the defaults: encoding "utf-8", offset 0, mode APPEND.
type WriteRequest struct {
	Project         string
	Path            string
	Content         string    // must be valid UTF-8
	ContentEncoding string    // "" or "utf-8"
	OffsetBytes     int64     // OVERWRITE: where to write; TRUNCATE: must be 0; APPEND: ignored
	Mode            WriteMode // "" means APPEND
	// Exclusive makes the write fail with ALREADY_EXISTS when a file exists at Path (like
	// O_EXCL), so that agents can create marker or lock files safely. Not offered to agents
	// by the tools; available to Go callers.
	Exclusive bool
	// ExpectedSHA256, when set, is the hex SHA-256 the file must still have (from an earlier
	// write, edit or read's file_versions): CONFLICT when it differs or the file is gone, so a
	// caller does not overwrite a change it has not seen. "" = no check.
	ExpectedSHA256 string
}

// WriteResult is the answer of Service.Write (and of Restore).
type WriteResult struct {
	BytesWritten  int64     `json:"bytes_written"`
	FileSizeBytes int64     `json:"size_bytes"` // size after the write
	Created       bool      `json:"created"`    // true when the file did not exist before
	UpdatedAt     time.Time `json:"updated_at"`
	// SHA256 is the hex SHA-256 of the file after the write, for the next call's
	// ExpectedSHA256. Empty only when a Store's ConditionalWriter does not report it.
	SHA256 string `json:"sha256,omitempty"`
}

// ListResult is the answer of Service.List.
type ListResult struct {
	Entries []FileEntry `json:"entries"` // sorted by path, bytewise ascending
	// Truncated says entries were cut at the limit; pass NextCursor as ListRequest.Cursor
	// for the next ones.
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor,omitempty"`
	// Limit is the limit actually applied; LimitClamped says a larger one was asked for
	// and reduced to the configured maximum.
	Limit        int    `json:"limit"`
	LimitClamped bool   `json:"limit_clamped,omitempty"`
	Note         string `json:"note,omitempty"` // how to get the rest when Truncated; that the project holds no files
}
