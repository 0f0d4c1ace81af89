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

	depth := clampLimit("maxDepth", opts.MaxDepth, r.opts.MaxTOCDepth, MaxTOCDepth, &notices)
	maxEntries := clampLimit("maxEntries", opts.MaxEntries, DefaultTOCEntries, MaxTOCEntries, &notices)

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

	shown := 0
	for i := first; i < last; i++ {
		h := o.headings[i]
		rel := h.depth - baseDepth
		if rel > depth {
			continue
		}
		if shown == maxEntries {
			toc.Truncated = true
			notices = append(notices, fmt.Sprintf(
				"only the first %d entries are shown; the next is section %s: pass it as section, or lower maxDepth", maxEntries, h.id))
			break
		}
		e := h.tocEntry()
		if rel == depth {
			e.HiddenSubsections = h.descendants
		}
		toc.Entries = append(toc.Entries, e)
		shown++
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
