package fileid

import (
	"fmt"
	"strings"
)

// ListOptions page through the file listing. The zero value gives the first page.
type ListOptions struct {
	Offset   int // index of the first file to return (0 = f1)
	MaxFiles int // files per page (0 = DefaultListFiles; clamped to MaxListFiles)
}

// List returns one page of the files in ID order.
func (r *Registry) List(opts ListOptions) FileList {
	var notices []string
	limit := clampLimit("max_files", opts.MaxFiles, DefaultListFiles, MaxListFiles, &notices)
	start := min(max(opts.Offset, 0), len(r.files))
	end := min(start+limit, len(r.files))
	out := FileList{Files: make([]FileInfo, 0, end-start), Total: len(r.files)}
	for _, f := range r.files[start:end] {
		out.Files = append(out.Files, f.info)
	}
	if end < len(r.files) {
		out.Truncated = true
		out.NextOffset = end
		notices = append(notices, fmt.Sprintf("files %s to %s of %d are shown; call again with offset %d for the rest",
			FormatID(start+1), FormatID(end), len(r.files), end))
	}
	if opts.Offset > len(r.files) {
		notices = append(notices, fmt.Sprintf("offset %d is past the last file (%d files)", opts.Offset, len(r.files)))
	}
	out.Notice = strings.Join(notices, "; ")
	return out
}
