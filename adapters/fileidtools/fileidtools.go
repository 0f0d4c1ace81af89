package fileidtools

import (
	"context"
	"fmt"

	"github.com/agentfiles/agentfiles/adapters"
	"github.com/agentfiles/agentfiles/fileid"
)

// Inputs of the fileid tools. fileId, section_ids and query keep the names MCP documentation servers use; the arguments
// added here are snake_case, like every other family's (max_bytes, cursor, …).

// fileIDArg is the required file argument of table_of_contents and read_sections.
type fileIDArg struct {
	FileID string `json:"fileId" jsonschema:"The file ID (e.g. 'f1', 'f2') returned by list_documentation_files"`
}

type listDocumentationFilesIn struct {
	MaxFiles int    `json:"max_files,omitempty" jsonschema:"files per page; the default and the maximum are in the tool description"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it"`
}

type tableOfContentsIn struct {
	fileIDArg
	MaxDepth   int    `json:"max_depth,omitempty" jsonschema:"heading levels to show, counted from the top of the file or of section; the default and the maximum are in the tool description"`
	Section    string `json:"section,omitempty" jsonschema:"a section ID such as '2' or '2/1' to list only that section and its subsections"`
	MaxEntries int    `json:"max_entries,omitempty" jsonschema:"entries per call; the default and the maximum are in the tool description"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated answer, to continue it (same fileId, section and max_depth)"`
}

type readSectionsIn struct {
	fileIDArg
	SectionIDs []string `json:"section_ids" jsonschema:"Section IDs from the table_of_contents tool or from search results, e.g. ['1', '2/3']; '0' is the text before the first heading"`
	MaxBytes   int      `json:"max_bytes,omitempty" jsonschema:"bytes of section text to return in this call; the default and the maximum are in the tool description"`
	Offset     int      `json:"offset,omitempty" jsonschema:"continue a cut section: the next_offset of that section in the previous result, with that section first in section_ids; default 0"`
}

type searchIn struct {
	Query           string `json:"query" jsonschema:"Regular expression pattern to search for (Go RE2 syntax, matched per line; ^ and $ are line boundaries). Plain words are fine: 'install'"`
	FileID          string `json:"fileId,omitempty" jsonschema:"The file ID (e.g. 'f1', 'f2') to search in. Optional; if not provided, searches all files."`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema:"true to ignore case; default false"`
	MaxMatches      int    `json:"max_matches,omitempty" jsonschema:"matches to return; the default and the maximum are in the tool description"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"next_cursor of a truncated result (e.g. 'f3:120'), to get the matches after it; use the same query, fileId and case_insensitive"`
}

// Tools returns the four documentation tools over reg: list_documentation_files,
// table_of_contents, read_sections and search. Every response carries fileId and filename (per
// file, or per group of matches). The tools are read-only and idempotent; errors carry fileid's
// codes (INVALID_FILE_ID, FILE_ID_NOT_FOUND, SECTION_NOT_FOUND) and the shared INVALID_PATTERN,
// INVALID_QUERY and INVALID_ARGUMENT.
//
// reg must not be nil. The tools are safe for concurrent use, as the Registry is.
func Tools(reg *fileid.Registry) []adapters.Tool {
	if reg == nil {
		panic("fileidtools.Tools: nil *fileid.Registry")
	}
	ro := adapters.Annotations{ReadOnly: true, Idempotent: true}
	depth := reg.Options().MaxTOCDepth
	return []adapters.Tool{
		adapters.NewTool("list_documentation_files", "List documentation files",
			"Lists the documentation files this server knows, each with a file ID (f1, f2, …), its filename "+
				"(path relative to its directory), title, optional description, source directory and size. "+
				"Call this first: every other tool takes a fileId from this list. Files with the same name in "+
				"different directories get different IDs, so check sourceDirectory. IDs stay the same for the "+
				"whole session. Results are paged ("+fmt.Sprint(fileid.DefaultListFiles)+" files by default, max_files up to "+
				fmt.Sprint(fileid.MaxListFiles)+"); when truncated is true, call again with cursor set to next_cursor. "+
				"No arguments are needed: {}.",
			ro,
			func(ctx context.Context, in listDocumentationFilesIn) (fileid.FileList, error) {
				return reg.List(fileid.ListOptions{Cursor: in.Cursor, MaxFiles: in.MaxFiles})
			}),
		adapters.NewTool("table_of_contents", "Table of contents",
			"Returns the sections of one documentation file in document order: section ID, heading title, "+
				"heading level, line number and size in bytes. Section IDs are paths like '1', '1/2', '1/2/3' "+
				"(the second subsection of the first section is '1/2'); '0' is the text before the first heading. "+
				"Use it to find the part of a file you need, then fetch it with read_sections instead of reading "+
				"the whole file. Shows "+fmt.Sprint(depth)+" levels by default (max_depth, up to "+fmt.Sprint(fileid.MaxTOCDepth)+
				"); entries with hidden_subsections have deeper headings: call again with section set to that ID (or a "+
				"larger max_depth) to see them. At most "+fmt.Sprint(fileid.DefaultTOCEntries)+" entries are returned per call "+
				"(max_entries, up to "+fmt.Sprint(fileid.MaxTOCEntries)+"); when truncated is true, call again with cursor set to next_cursor. "+
				"Example: {\"fileId\": \"f3\"} or {\"fileId\": \"f3\", \"section\": \"2\", \"max_depth\": 2}.",
			ro,
			func(ctx context.Context, in tableOfContentsIn) (fileid.TOC, error) {
				return reg.TableOfContents(in.FileID, fileid.TOCOptions{
					MaxDepth: in.MaxDepth, Section: in.Section, Cursor: in.Cursor, MaxEntries: in.MaxEntries,
				})
			}),
		adapters.NewTool("read_sections", "Read sections",
			"Returns the Markdown text of one or more sections of a file, exactly as written: each section runs "+
				"from its heading line to the next heading of the same or higher level, so it includes its "+
				"subsections. Take section IDs from table_of_contents or from search results. Unknown IDs are "+
				"reported in errors (with the valid top-level IDs) while the others are still returned. At most "+
				fmt.Sprint(fileid.DefaultReadBytes)+" bytes of text are returned per call by default (max_bytes, up to "+
				fmt.Sprint(fileid.MaxReadBytes)+"); a longer section is cut and flagged truncated: call again "+
				"with that section and offset set to its next_offset for the rest, or read its subsections. Example: {\"fileId\": \"f2\", \"section_ids\": [\"1/2\", \"3\"]}.",
			ro,
			func(ctx context.Context, in readSectionsIn) (fileid.Sections, error) {
				return reg.ReadSections(in.FileID, in.SectionIDs, fileid.ReadOptions{MaxBytes: in.MaxBytes, Offset: in.Offset})
			}),
		adapters.NewTool("search", "Search documentation",
			"Searches the documentation line by line with a regular expression (Go RE2 syntax) and returns the "+
				"matching lines grouped by file, each with its line number, the matching line (cut around the "+
				"match when long), and the ID and title of the section that contains it; pass that section_id to "+
				"read_sections to read the surrounding text. Searches all files unless fileId is given. Plain "+
				"words work as they are; escape metacharacters with a backslash to match them literally "+
				"(e.g. 'foo\\(' for 'foo('). Returns "+fmt.Sprint(fileid.DefaultMatches)+" matches by default (max_matches, up to "+
				fmt.Sprint(fileid.MaxMatches)+"); when truncated is true, call again with cursor set to next_cursor for the next ones. "+
				"Examples: {\"query\": \"install\", \"case_insensitive\": true}, "+
				"{\"query\": \"^## \", \"fileId\": \"f4\"}, {\"query\": \"timeout|deadline\"}.",
			ro,
			func(ctx context.Context, in searchIn) (fileid.SearchResult, error) {
				return reg.Search(ctx, fileid.SearchRequest{
					Query:           in.Query,
					FileID:          in.FileID,
					CaseInsensitive: in.CaseInsensitive,
					MaxMatches:      in.MaxMatches,
					Cursor:          in.Cursor,
				})
			}),
	}
}
