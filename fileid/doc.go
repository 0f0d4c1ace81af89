// Package fileid gives every Markdown file of one or more documentation directories a short,
// stable ID (f1, f2, …) and answers the four questions an agent asks about documentation:
// which files are there, what is in this file, show me these sections, where is this phrase.
//
// # Model
//
// A [Registry] is built once by [New] from an ordered list of [Root] values, each a label and
// an [io/fs.FS], and an [Options] value whose zero fields mean the defaults. [DirRoot] opens a directory with [os.OpenRoot], so symbolic links cannot lead
// outside it; a [testing/fstest.MapFS] works as well. Scanning is recursive, skips dot-files
// and dot-directories, and keeps the files matching Options.Include (default *.md, *.mdx,
// *.markdown).
//
// IDs follow the roots in the given order, and inside a root the files' slash-separated
// relative paths compared case-insensitively, ties broken bytewise. For roots /primary
// (config.md, guide.md, README.md, subdir/README.md), /secondary (README.md, utils.md) and
// /fallback (index.md) the IDs are f1…f7 in exactly that order, on every run. Files with the
// same name in different roots get different IDs, so none is shadowed. An ID must match
// ^f[1-9][0-9]*$: a malformed one is INVALID_FILE_ID, an unknown one FILE_ID_NOT_FOUND, and
// both messages tell the agent to call list_documentation_files.
//
// The registry is immutable: it holds each file's bytes as read at build time and never
// looks at the disk again. [Registry.Rebuild] scans again and returns a new registry.
//
// # Listing
//
// [Registry.Files] and [Registry.List] return, per file, its ID, relative path, title
// (front-matter title, else the first level-1 heading, else the file name), the front-matter
// description, the root label and the size ("2.5kb" and in bytes). Front matter is a YAML
// block between "---" lines at the very start of the file; a title or description YAML
// resolves to a number, date or boolean is used as written. A block that is not valid YAML
// is logged at debug level and gives neither, unless it is a flat list of "key: value" lines
// whose title and description are plain one-line values. All of this is decided in New:
// listing does no parsing.
//
// # Sections
//
// Headings come from goldmark's CommonMark AST, so a "#" line inside fenced or indented code
// (also inside list items) is not a heading, setext headings ("Title" underlined with === or
// ---) are, and YAML front matter is not content. Only headings at the top level of the
// document count; headings inside block quotes and list items are content of their section.
//
// Section IDs are paths of 1-based positions: a heading's parent is the nearest earlier
// heading with a smaller level, so
//
//	# Guide          1
//	## Install       1/1
//	### Linux        1/1/1
//	## Use           1/2
//	# FAQ            2
//
// and a file of only "##" headings numbers 1, 2, 3. Non-blank text before the first heading is
// section "0". A section runs from its heading line up to the next heading of the same or a
// higher level, subsections included, and [Registry.ReadSections] returns it byte-exact.
//
// [Registry.TableOfContents] lists the sections in document order to a maximum depth
// (default 3); an entry whose children were cut says how many in HiddenSubsections, and a
// Section option returns the subtree of one section. Long listings are paged: at most
// MaxEntries per call, the rest from Cursor (NextCursor of the previous page).
//
// As in CommonMark, a line ends at "\n", "\r\n" or a lone "\r", for headings, line numbers
// and search alike: a file written with any of them has the same sections and search hits.
//
// # Search
//
// [Registry.Search] takes a Go RE2 expression, matched line by line (^ and $ are line
// boundaries, $ before a "\r\n" too), optionally case-insensitive and optionally in one file. Every match carries the
// file ID, file name, the ID and title of the innermost section containing the line (an ID
// that ReadSections accepts), the line number and the line, cut around the match when long.
// Queries without metacharacters take a literal fast path (bytes.Index, or for
// case-insensitive search a vectorized scan for both cases of the literal's rarest byte,
// checked ASCII-folded); expressions with a literal that every match must contain are
// prefiltered by it, and expressions whose matches can start with only a few bytes run only on
// lines containing one of them (each of up to six such bytes found with bytes.IndexByte). Expressions with one of a few required literals
// (`error|warning`) are prefiltered by them, and the rest run only on lines holding a long
// enough run of the bytes a match can contain; only expressions that can match an empty line
// run plain RE2 over each file. Files are searched in parallel; results are deterministic.
//
// # Budgets
//
// Everything that can grow has a default cap and a hard maximum: files per listing page, TOC
// entries, bytes per read, matches per search. A larger request is clamped, and the result
// says so in Note; a cut result has Truncated set and Note says how to get the rest: the
// next page of a listing, of a table of contents or of a search comes from passing the
// previous result's NextCursor as the Cursor of ListOptions, TOCOptions or SearchRequest, and
// the rest of a cut section from passing its NextOffset as ReadOptions.Offset.
//
// # Cost
//
// New reads every regular file (each directory of a DirRoot is opened once, and its files
// relative to it; a FIFO or device, also behind a symbolic link, is skipped without being
// opened for a blocking read), decodes the title and description of its front matter, and
// finds the first level-1 heading by parsing only the lines up to it. Front matter is decoded
// as yaml.v3 decodes it, but the YAML front matter is usually written in — keys with dots and
// spaces, plain and quoted scalars, numbers and dates, short lists, block scalars, comments —
// is read line by line without a YAML parser, about a microsecond per file instead of tens;
// yaml.v3 reads only the rest (anchors, tags, flow mappings, deeper nesting, tabs). Building
// costs about as much as walking the tree and reading every file, with or without front
// matter; see BenchmarkBuildVsWalkRead, BenchmarkCorpusBuildVsWalkRead and
// BenchmarkFrontMatterBuildVsWalkRead. New honours its context: a
// canceled build returns the context's error at once, even while a read hangs. The full heading structure of a file is parsed the first time a
// table of contents, section read or search match needs it, exactly once; [Registry.Warm]
// does it for all files up front. After that, queries do no parsing and no I/O.
//
// # Errors
//
// Errors are *[agentfiles.Error] values with a machine-stable code: INVALID_FILE_ID,
// FILE_ID_NOT_FOUND, SECTION_NOT_FOUND and INVALID_ROOT are this package's
// ([CodeInvalidFileID], … with the sentinels [ErrInvalidFileID], …); INVALID_PATTERN (a query
// that is not a valid RE2 expression), INVALID_QUERY (an empty or too long query) and
// INVALID_ARGUMENT are shared ([agentfiles.ErrInvalidPattern], …); [Codes] lists them all. Branch with errors.Is, never
// on the message: the message is written for the agent and says what to call or pass instead.
//
// # Concurrency
//
// A *Registry is safe for concurrent use by any number of goroutines. The option and result
// types (Options, TOCOptions, TOC, Sections, SearchResult, …) are plain values with no internal
// synchronisation: share them for reading, copy them to modify. The tools for agents
// (list_documentation_files, table_of_contents, read_sections, search) are in package
// github.com/agentfiles/agentfiles/adapters/fileidtools.
package fileid
