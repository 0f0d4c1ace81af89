package fileid

import (
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles"
)

// PreambleTitle is the title shown for section "0", the text before the first heading.
const PreambleTitle = "(text before the first heading)"

// TOCOptions select what TableOfContents returns. The zero value gives the whole file to the
// registry's default depth.
type TOCOptions struct {
	// MaxDepth is how many levels of the tree to show, counted from the top of the file or from
	// Section (0 = the registry's default, Options.MaxTOCDepth; clamped to MaxTOCDepth).
	// Entries whose children were cut report how many in HiddenSubsections.
	MaxDepth int
	// Section, if set, limits the TOC to that section and its subsections.
	Section string
	// MaxEntries caps the number of entries (0 = DefaultTOCEntries; clamped to MaxTOCEntries).
	MaxEntries int
	// Cursor continues a truncated TOC: its NextCursor (the ID of the first section to return),
	// with the same Section and MaxDepth; "" starts at the first entry.
	Cursor string
}

// TableOfContents returns the sections of a file, built from goldmark's CommonMark AST (see
// the package documentation for how sections are numbered). An unknown Section fails with
// SECTION_NOT_FOUND naming the valid top-level IDs.
func (r *Registry) TableOfContents(fileID string, opts TOCOptions) (TOC, error) {
	f, err := r.lookup(fileID)
	if err != nil {
		return TOC{}, err
	}
	o := f.outline()
	var notices []string

	depth := clampLimit("max_depth", opts.MaxDepth, r.opts.MaxTOCDepth, MaxTOCDepth, &notices)
	maxEntries := clampLimit("max_entries", opts.MaxEntries, DefaultTOCEntries, MaxTOCEntries, &notices)

	toc := TOC{FileID: f.info.FileID, Filename: f.info.Filename, MaxDepth: depth, Entries: []TOCEntry{}}
	first, last, baseDepth := 0, len(o.headings), 0 // headings[first:last], depths relative to baseDepth
	section := strings.TrimSpace(opts.Section)
	if pre, ok := o.section(PreambleID); ok && (section == "" || section == PreambleID) {
		toc.Entries = append(toc.Entries, pre.tocEntry())
	}
	switch {
	case section == "":
	case section == PreambleID && o.preamble:
		toc.Section, last = section, 0
	default:
		i, ok := o.byID[normalizeSectionID(section)]
		if !ok {
			return TOC{}, sectionNotFound(o, section)
		}
		toc.Section = o.headings[i].id
		first, last, baseDepth = i, i+1+o.headings[i].descendants, o.headings[i].depth-1
	}

	// The listing is the preamble entry (already in toc.Entries, if any) and the headings
	// within depth; Cursor and MaxEntries pick a window of it.
	cursor := normalizeSectionID(opts.Cursor)
	offset := -1 // position of the cursor's entry in the listing
	if cursor == "" {
		offset = 0
	}
	all := toc.Entries
	toc.Entries = []TOCEntry{}
	index := 0 // position in the listing
	next := "" // the ID of the first entry after the window
	add := func(e TOCEntry) {
		if offset < 0 && e.ID == cursor {
			offset = index
		}
		switch {
		case offset < 0:
		case len(toc.Entries) < maxEntries:
			toc.Entries = append(toc.Entries, e)
		case next == "":
			next = e.ID
		}
		index++
	}
	for _, e := range all {
		add(e)
	}
	for i := first; i < last; i++ {
		h := o.headings[i]
		rel := h.depth - baseDepth
		if rel > depth {
			continue
		}
		e := h.tocEntry()
		if rel == depth {
			e.HiddenSubsections = h.descendants
		}
		add(e)
	}
	if offset < 0 {
		return TOC{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"cursor names no entry of this table of contents; pass next_cursor unchanged with the same fileId, section and max_depth, or leave it out to start at the first entry", opts.Cursor)
	}
	toc.TotalEntries = index
	if next != "" {
		toc.Truncated, toc.NextCursor = true, next
		notices = append(notices, fmt.Sprintf(
			"entries %d to %d of %d are shown; call again with cursor %q for the next ones (max_entries up to %d)",
			offset+1, offset+len(toc.Entries), index, next, MaxTOCEntries))
	}
	toc.Note = strings.Join(notices, "; ")
	return toc, nil
}

func (h heading) tocEntry() TOCEntry {
	return TOCEntry{ID: h.id, Title: h.title, Level: h.level, Line: h.line, SizeBytes: h.end - h.start}
}

// normalizeSectionID accepts light variations agents produce: spaces and slashes around the
// ID ("/2/1/" → "2/1").
func normalizeSectionID(id string) string {
	return strings.Trim(strings.TrimSpace(id), "/")
}

func sectionNotFound(o *outline, id string) *agentfiles.Error {
	top := o.topLevelIDs()
	msg := "the file has no section with this ID"
	if len(top) == 0 {
		msg += "; the file has no sections (it is empty or blank)"
	} else {
		msg += "; valid top-level IDs are " + strings.Join(top, ", ") +
			" (call table_of_contents for the full list, including subsections like 1/2)"
	}
	return agentfiles.NewError(CodeSectionNotFound, msg, id)
}
