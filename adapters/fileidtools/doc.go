// Package fileidtools is the tool set of package fileid: four read-only tools that let an agent
// find its way through Markdown documentation by stable file IDs (f1, f2, …) and section IDs
// (1, 1/2, …) instead of paths and whole-file reads.
//
// # Tools
//
// [Tools] returns them over one *fileid.Registry:
//
//	list_documentation_files  the files, with IDs, titles, descriptions and sizes, a page at a time
//	table_of_contents         the sections of one file (fileId), to a depth or under one section
//	read_sections             the Markdown of some sections (fileId, section_ids), byte-exact
//	search                    the lines matching an RE2 expression (query), each with its section
//
// Every result names the file by fileId and filename. Results that can grow are capped; a cut
// result has truncated set and a note that says how to get the rest.
//
// # Serving
//
// The tools are plain [adapters.Tool] values: register them on an MCP server with
// adapters/mcpsdk, serve them as JSON over HTTP with adapters/httpapi, or append them to other
// tool sets. This package imports only adapters, agentfiles and fileid, so a documentation
// server built on it links no database driver and no other tool family; examples/agentfiles-docs-server is
// one.
//
// # Errors
//
// Handlers return fileid's errors unchanged: INVALID_FILE_ID and FILE_ID_NOT_FOUND (the message
// tells the agent to call list_documentation_files), SECTION_NOT_FOUND (the message lists the
// valid top-level section IDs; read_sections reports unknown IDs per ID and still returns the
// others), INVALID_PATTERN for a query that is not a valid RE2 expression, INVALID_QUERY for an
// empty one, and agentfiles.CodeInvalidArgument for missing or malformed
// arguments. The bindings send code, message and retryable, and map each code's kind to an HTTP
// status (400 for the invalid ones, 404 for the not-found ones).
package fileidtools
