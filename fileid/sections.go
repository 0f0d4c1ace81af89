package fileid

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// ReadOptions bound ReadSections. The zero value gives the defaults.
type ReadOptions struct {
	// MaxBytes caps the section bytes returned in one call (0 = DefaultReadBytes; clamped to
	// MaxReadBytes). A section that does not fit is cut at a line boundary and flagged; the
	// sections after it are listed in Omitted.
	MaxBytes int
	// Offset continues a cut section: the first requested section is returned from this byte
	// offset within it (the NextOffset of the cut section in the previous result). 0 reads
	// sections from their start.
	Offset int
}

// ReadSections returns the requested sections of a file, in the order requested (duplicates
// once). Unknown IDs are reported per ID in Errors with SECTION_NOT_FOUND while the others are
// returned; when none of the IDs exists, ReadSections fails with SECTION_NOT_FOUND. An empty
// list fails with INVALID_ARGUMENT.
func (r *Registry) ReadSections(fileID string, sectionIDs []string, opts ReadOptions) (Sections, error) {
	f, err := r.lookup(fileID)
	if err != nil {
		return Sections{}, err
	}
	o := f.outline()
	if len(sectionIDs) == 0 {
		return Sections{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"pass at least one section ID from table_of_contents, e.g. [\"1\"] or [\"2/1\", \"3\"]", fileID)
	}
	var notices []string
	budget := clampLimit("max_bytes", opts.MaxBytes, DefaultReadBytes, MaxReadBytes, &notices)

	res := Sections{FileID: f.info.FileID, Filename: f.info.Filename, Sections: []Section{}}
	seen := map[string]bool{}
	var found []heading
	for _, raw := range sectionIDs {
		id := normalizeSectionID(raw)
		if seen[id] {
			continue
		}
		seen[id] = true
		h, ok := o.section(id)
		if !ok {
			e := sectionNotFound(o, raw)
			res.Errors = append(res.Errors, SectionError{SectionID: raw, Code: e.Code.String(), Message: e.Message})
			continue
		}
		if len(found) == MaxSectionsPerRead {
			res.Omitted = append(res.Omitted, h.id)
			continue
		}
		found = append(found, h)
	}
	if len(found) == 0 {
		if len(res.Errors) == 1 {
			return Sections{}, sectionNotFound(o, res.Errors[0].SectionID)
		}
		ids := make([]string, len(res.Errors))
		for i, e := range res.Errors {
			ids[i] = e.SectionID
		}
		return Sections{}, sectionNotFound(o, strings.Join(ids, ", "))
	}
	if len(res.Omitted) > 0 {
		notices = append(notices, fmt.Sprintf("at most %d sections are read per call; request the omitted ones next", MaxSectionsPerRead))
	}

	for k, h := range found {
		full := f.content[h.start:h.end]
		s := Section{ID: h.id, Title: h.title, Line: h.line, SizeBytes: len(full)}
		start := 0
		if k == 0 && opts.Offset > 0 {
			start = min(opts.Offset, len(full))
			for start < len(full) && !utf8.RuneStart(full[start]) {
				start++ // never split a character
			}
			s.Offset = start
			if opts.Offset >= len(full) {
				notices = append(notices, fmt.Sprintf("offset %d is at or past the end of section %s (%d bytes)", opts.Offset, h.id, len(full)))
			}
		}
		switch piece := full[start:]; {
		case budget <= 0:
			res.Omitted = append(res.Omitted, h.id)
			continue
		case len(piece) <= budget:
			s.Content = string(piece)
			budget -= len(piece)
		default:
			cut := cutAt(piece, budget)
			s.Content = string(piece[:cut])
			s.Truncated = true
			s.NextOffset = start + cut
			budget = 0
			notices = append(notices, fmt.Sprintf(
				"section %s was cut after byte %d of %d: call read_sections again with section_ids [%q] and offset %d for the rest, pass a larger max_bytes (up to %d), or read its subsections (table_of_contents with section %q)",
				h.id, start+cut, len(full), h.id, start+cut, MaxReadBytes, h.id))
		}
		res.Sections = append(res.Sections, s)
	}
	if len(res.Omitted) > 0 && budget <= 0 {
		notices = append(notices, "the byte budget was used up; request the omitted sections in another call")
	}
	res.Truncated = len(res.Omitted) > 0 || hasCut(res.Sections)
	res.Note = strings.Join(notices, "; ")
	return res, nil
}

func hasCut(ss []Section) bool {
	for _, s := range ss {
		if s.Truncated {
			return true
		}
	}
	return false
}

// cutAt returns a cut point ≤ limit: after the last newline in the second half of the window
// if there is one, otherwise at the last UTF-8 character boundary.
func cutAt(b []byte, limit int) int {
	if limit >= len(b) {
		return len(b)
	}
	if i := bytes.LastIndexByte(b[:limit], '\n'); i >= limit/2 {
		return i + 1
	}
	cut := limit
	for cut > 0 && cut > limit-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	if cut == 0 { // a budget smaller than the first character: return that character
		_, n := utf8.DecodeRune(b)
		cut = n
	}
	return cut
}
