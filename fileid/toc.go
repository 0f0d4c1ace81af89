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
	// Offset skips that many entries of the listing (after the depth limit): pass NextOffset
	// of a truncated TOC to get the entries after it.
	Offset int
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
	// within depth; Offset and MaxEntries pick a window of it.
	offset := max(opts.Offset, 0)
	all := toc.Entries
	toc.Entries = []TOCEntry{}
	index := 0 // position in the listing
	add := func(e TOCEntry) {
		if index >= offset && len(toc.Entries) < maxEntries {
			toc.Entries = append(toc.Entries, e)
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
	toc.TotalEntries = index
	if end := offset + len(toc.Entries); end < index {
		toc.Truncated = true
		toc.NextOffset = end
		notices = append(notices, fmt.Sprintf(
			"entries %d to %d of %d are shown; call again with offset %d for the next ones (max_entries up to %d)",
			offset+1, end, index, end, MaxTOCEntries))
	} else if offset > 0 && offset >= index {
		notices = append(notices, fmt.Sprintf("offset %d is past the last entry (%d entries)", offset, index))
	}
	toc.Notice = strings.Join(notices, "; ")
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
