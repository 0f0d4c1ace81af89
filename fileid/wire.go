package fileid

// The results of List, TableOfContents, ReadSections and Search: what the four tools show an
// agent, with the JSON names and the schema descriptions of each field, kept together so that
// the wire format reads as one.

// FileInfo describes one file of the registry, as list_documentation_files shows it.
type FileInfo struct {
	FileID          string `json:"fileId" jsonschema:"the file's ID, e.g. f1; pass it to table_of_contents, read_sections and search"`
	Filename        string `json:"filename" jsonschema:"path of the file relative to its source directory, slash-separated"`
	Title           string `json:"title" jsonschema:"front-matter title, else the first level-1 heading, else the file name"`
	Description     string `json:"description,omitempty" jsonschema:"front-matter description, if any"`
	SourceDirectory string `json:"sourceDirectory" jsonschema:"label of the documentation directory that holds the file"`
	Size            string `json:"size" jsonschema:"human-readable size, e.g. 2.5kb"`
	SizeBytes       int64  `json:"size_bytes" jsonschema:"size in bytes"`
}

// FileList is one page of the listing.
type FileList struct {
	Files      []FileInfo `json:"files" jsonschema:"files in file-ID order"`
	Total      int        `json:"total" jsonschema:"number of files in the registry"`
	Truncated  bool       `json:"truncated" jsonschema:"true when more files follow; call again with cursor=next_cursor"`
	NextCursor string     `json:"next_cursor,omitempty" jsonschema:"when truncated, pass this as cursor for the next page"`
	Note       string     `json:"note,omitempty" jsonschema:"what was clamped or cut and how to get the rest"`
}

// TOC is the table of contents of one file.
type TOC struct {
	FileID   string     `json:"fileId" jsonschema:"the file ID"`
	Filename string     `json:"filename" jsonschema:"path of the file relative to its source directory"`
	Section  string     `json:"section,omitempty" jsonschema:"the section this TOC is limited to, if any"`
	MaxDepth int        `json:"max_depth" jsonschema:"depth applied"`
	Entries  []TOCEntry `json:"toc" jsonschema:"sections in document order"`
	// TotalEntries counts the entries of the whole listing at this depth; Entries is the window
	// from the requested offset.
	TotalEntries int    `json:"total_entries" jsonschema:"number of entries in the whole table of contents at this depth"`
	Truncated    bool   `json:"truncated" jsonschema:"true when more entries follow; call again with cursor=next_cursor"`
	NextCursor   string `json:"next_cursor,omitempty" jsonschema:"when truncated, pass this as cursor (with the same fileId, section and max_depth) for the next entries"`
	Note         string `json:"note,omitempty" jsonschema:"what was clamped or cut and how to get the rest"`
}

// TOCEntry is one section in a table of contents. Entries are listed in document order; the
// ID encodes the tree ("2/1" is the first subsection of "2").
type TOCEntry struct {
	ID                string `json:"id" jsonschema:"section ID to pass to read_sections, e.g. 2 or 2/1; 0 is the text before the first heading"`
	Title             string `json:"title" jsonschema:"heading text"`
	Level             int    `json:"level" jsonschema:"Markdown heading level as written: 1 for #, 2 for ##; 0 for section 0"`
	Line              int    `json:"line" jsonschema:"1-based line of the heading in the file"`
	SizeBytes         int    `json:"size_bytes" jsonschema:"size of the whole section in bytes, subsections included"`
	HiddenSubsections int    `json:"hidden_subsections,omitempty" jsonschema:"number of subsections not shown because of the depth limit; ask for this section to see them"`
}

// Sections is the result of ReadSections.
type Sections struct {
	FileID    string         `json:"fileId" jsonschema:"the file ID"`
	Filename  string         `json:"filename" jsonschema:"path of the file relative to its source directory"`
	Sections  []Section      `json:"sections" jsonschema:"the sections found, in the order requested"`
	Errors    []SectionError `json:"errors,omitempty" jsonschema:"requested IDs that do not exist; the others are still returned"`
	Omitted   []string       `json:"omitted,omitempty" jsonschema:"valid IDs not returned because of the byte or count budget; request them in another call"`
	Truncated bool           `json:"truncated" jsonschema:"true when a section was cut or IDs were omitted; see note"`
	Note      string         `json:"note,omitempty" jsonschema:"what was clamped or cut and how to get the rest"`
}

// Section is the Markdown source of one section, byte-exact from the file: from its heading
// line up to the next heading of the same or a higher level, subsections included.
type Section struct {
	ID        string `json:"id" jsonschema:"the section ID as listed by table_of_contents"`
	Title     string `json:"title" jsonschema:"heading text"`
	Line      int    `json:"line" jsonschema:"1-based line where the section starts"`
	SizeBytes int    `json:"size_bytes" jsonschema:"size of the whole section in bytes"`
	Content   string `json:"content" jsonschema:"the Markdown source of the section (from offset, when given)"`
	Offset    int    `json:"offset,omitempty" jsonschema:"byte offset within the section where content starts, when an offset was passed"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"true when content was cut by the byte budget"`
	// NextOffset is set when Truncated: pass it as ReadOptions.Offset, with this section
	// first, for the rest.
	NextOffset int `json:"next_offset,omitempty" jsonschema:"when truncated, pass this as offset (with this section first in section_ids) to read the rest"`
}

// SectionError reports one requested section ID that could not be returned.
type SectionError struct {
	SectionID string `json:"section_id" jsonschema:"the requested ID"`
	Code      string `json:"code" jsonschema:"machine-stable code, e.g. SECTION_NOT_FOUND"`
	Message   string `json:"message" jsonschema:"what went wrong and the valid top-level IDs"`
}

// SearchResult is the result of Search: files in ID order, each with its matches.
type SearchResult struct {
	Results    []FileMatches `json:"results" jsonschema:"files with matches, in file-ID order"`
	MatchCount int           `json:"match_count" jsonschema:"number of matches returned"`
	Truncated  bool          `json:"truncated" jsonschema:"true when more matches exist than were returned; call again with cursor=next_cursor"`
	// NextCursor is set when Truncated: "fileId:line" of the last line searched, to pass as
	// SearchRequest.Cursor for the matches after it.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"when truncated, pass this as cursor to get the next matches"`
	Note       string `json:"note,omitempty" jsonschema:"what was clamped or cut and how to get the rest"`
}

// FileMatches groups the matches of one file, in line order.
type FileMatches struct {
	FileID   string  `json:"fileId" jsonschema:"the file ID"`
	Filename string  `json:"filename" jsonschema:"path of the file relative to its source directory"`
	Matches  []Match `json:"matches" jsonschema:"matching lines in file order"`
}

// Match is one matching line.
type Match struct {
	SectionID string `json:"section_id" jsonschema:"ID of the innermost section containing the line; pass it to read_sections"`
	Heading   string `json:"heading" jsonschema:"title of that section"`
	Line      int    `json:"line" jsonschema:"1-based line number in the file"`
	Text      string `json:"text" jsonschema:"the matching line; long lines are cut around the match and marked with …"`
}
