package fileid

import (
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// ListOptions page through the file listing. The zero value gives the first page.
type ListOptions struct {
	// Cursor continues a truncated listing: the NextCursor of the previous page (the ID of the
	// first file to return); "" starts at f1.
	Cursor   string
	MaxFiles int // files per page (0 = DefaultListFiles; clamped to MaxListFiles)
}

// List returns one page of the files in ID order. A cursor that is not a file ID of this
// registry fails with INVALID_ARGUMENT.
func (r *Registry) List(opts ListOptions) (FileList, error) {
	var notices []string
	limit := clampLimit("max_files", opts.MaxFiles, DefaultListFiles, MaxListFiles, &notices)
	start := 0
	if opts.Cursor != "" {
		n, err := ParseID(opts.Cursor)
		if err != nil || n > len(r.files) {
			return FileList{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
				"cursor is not one this listing returned; pass next_cursor unchanged, or leave it out to start at f1", opts.Cursor)
		}
		start = n - 1
	}
	end := min(start+limit, len(r.files))
	out := FileList{Files: make([]FileInfo, 0, end-start), Total: len(r.files)}
	for _, f := range r.files[start:end] {
		out.Files = append(out.Files, f.info)
	}
	if end < len(r.files) {
		out.Truncated = true
		out.NextCursor = FormatID(end + 1)
		notices = append(notices, fmt.Sprintf("files %s to %s of %d are shown; call again with cursor %q for the rest",
			FormatID(start+1), FormatID(end), len(r.files), out.NextCursor))
	}
	out.Note = strings.Join(notices, "; ")
	return out, nil
}
