package fileio

import "encoding/json"

// GrepOutputMode selects what Service.Grep returns.
type GrepOutputMode string

// The output modes of Service.Grep, named as file_grep's output_mode.
const (
	GrepContent          GrepOutputMode = "content"            // the matching lines, with context
	GrepFilesWithMatches GrepOutputMode = "files_with_matches" // the paths of files with a match
	GrepCount            GrepOutputMode = "count"              // matching lines per file
)

// GrepRequest is a Service.Grep call (file_grep).
type GrepRequest struct {
	Project string
	// Pattern is a Go RE2 regular expression matched against each line, or a literal with
	// FixedStrings. Required, at most MaxGrepPatternBytes.
	Pattern      string
	FixedStrings bool // Pattern is literal text (rg -F)
	IgnoreCase   bool // match case-insensitively (rg -i)
	// Path is the directory (or file) below which to search; "" or "/" is the project root,
	// and a trailing "/" is ignored ("/docs/" is "/docs").
	Path string
	// Glob keeps only files whose path matches (see Glob): without "/" it applies to the base
	// name ("*.md"), with "/" to the path relative to Path ("docs/**/*.md"). A file named by
	// Path itself is searched whatever the glob, as rg searches a file given on its command line.
	Glob string
	// OutputMode is GrepContent (the default when ""), GrepFilesWithMatches or GrepCount.
	OutputMode GrepOutputMode
	// BeforeContext and AfterContext are the lines shown before and after each match in
	// GrepContent mode; Context sets both where they are 0. At most MaxGrepContextLines.
	BeforeContext, AfterContext, Context int
	// Limit is the most entries (matches, files or counts) returned; 0 means
	// Config.GrepLimitDefault, more than Config.GrepLimitMax is clamped.
	Limit int
	// Cursor continues a truncated search: pass the previous result's NextCursor with the
	// same other arguments.
	Cursor string
}

// GrepMatch is one matching line (GrepContent mode).
type GrepMatch struct {
	Path       string `json:"path"`
	LineNumber int    `json:"line_number"` // 1-based
	Line       string `json:"line"`        // without its "\n"; a "\r" before it is kept
	// LineTruncated says Line (or a context line) was cut at MaxGrepLineBytes.
	LineTruncated bool     `json:"line_truncated,omitempty"`
	Before        []string `json:"before,omitempty"` // the lines before, oldest first
	After         []string `json:"after,omitempty"`  // the lines after
}

// GrepFileCount is the number of matching lines of one file (GrepCount mode).
type GrepFileCount struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// GrepResult is the answer of Service.Grep. Entries are ordered by path, then line number.
// Only the slice of the request's mode is set; it is empty, not nil, when nothing matched.
type GrepResult struct {
	OutputMode GrepOutputMode  `json:"output_mode"`
	Matches    []GrepMatch     `json:"matches,omitempty"`
	Files      []string        `json:"files,omitempty"`
	Counts     []GrepFileCount `json:"counts,omitempty"`
	// Truncated says there may be more: the limit, the answer's byte cap, or the call's scan
	// or time budget stopped the search. Pass NextCursor as cursor to continue exactly where
	// it stopped; following cursors to the end yields every entry once.
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"next_cursor,omitempty"`
	Limit      int    `json:"limit"` // the limit applied
	// LimitClamped says a larger limit was asked for and reduced to Config.GrepLimitMax.
	LimitClamped bool `json:"limit_clamped,omitempty"`
	// ScannedFiles and ScannedBytes are the files (and their bytes) this call read and
	// matched; an index keeps them low for patterns with literal text. Content a store's
	// in-memory filter only searched for the pattern's literals (memstore, pgstore's grep
	// cache) counts a sixteenth of its size.
	ScannedFiles int    `json:"scanned_files"`
	ScannedBytes int64  `json:"scanned_bytes"`
	Note         string `json:"note,omitempty"` // why the search stopped, and what to do
}

// MarshalJSON writes the mode's entries as an empty list rather than leaving them out.
func (r GrepResult) MarshalJSON() ([]byte, error) {
	type plain GrepResult
	p := plain(r)
	switch r.OutputMode {
	case GrepFilesWithMatches:
		if p.Files == nil {
			p.Files = []string{}
		}
	case GrepCount:
		if p.Counts == nil {
			p.Counts = []GrepFileCount{}
		}
	default:
		if p.Matches == nil {
			p.Matches = []GrepMatch{}
		}
	}
	type withMode struct {
		plain
		Matches *[]GrepMatch     `json:"matches,omitempty"`
		Files   *[]string        `json:"files,omitempty"`
		Counts  *[]GrepFileCount `json:"counts,omitempty"`
	}
	w := withMode{plain: p}
	switch r.OutputMode {
	case GrepFilesWithMatches:
		w.Files = &p.Files
	case GrepCount:
		w.Counts = &p.Counts
	default:
		w.Matches = &p.Matches
	}
	return json.Marshal(w)
}

// GlobRequest is a Service.Glob call (file_glob).
type GlobRequest struct {
	Project string
	// Pattern is matched against the paths of files relative to Path (see Glob), e.g.
	// "**/*.md". Required.
	Pattern string
	// Path is the directory to match below; "" or "/" is the project root, and a trailing
	// "/" is ignored.
	Path string
	// Limit is the most paths returned; 0 means Config.ListLimitDefault, more than
	// Config.ListLimitMax is clamped.
	Limit int
	// Cursor continues a truncated answer: the previous result's NextCursor, with the same
	// pattern and path.
	Cursor string
}

// GlobResult is the answer of Service.Glob.
type GlobResult struct {
	Paths        []string `json:"paths"` // full paths ("/docs/a.md"), sorted bytewise
	Truncated    bool     `json:"truncated"`
	NextCursor   string   `json:"next_cursor,omitempty"`
	Limit        int      `json:"limit"`
	LimitClamped bool     `json:"limit_clamped,omitempty"`
	Note         string   `json:"note,omitempty"`
}
