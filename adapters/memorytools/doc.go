// Package memorytools is the tool set of package fileio/memorytool: the one tool "memory", Anthropic's
// memory tool (memory_20250818) served to any MCP client over a fileio.Service.
//
// # Tool
//
// [Tools] returns it over one *memorytool.Tool:
//
//	memory   view, create, str_replace, insert, delete and rename files below /memories
//
// Its input schema is exactly the memory tool's input: command (an enum of the six commands),
// path, view_range (two integers), file_text, old_str, new_str, insert_line, insert_text,
// old_path and new_path. Its text result is the memory tool's documented result text, unchanged
// (the result implements adapters.Texter), so a model trained on the memory tool reads what it
// expects; the structured content is {"result": text}.
//
// # Identity
//
// The tool is tenant-scoped: the memories are those of the agentfiles.AuthContext in the
// context, which the bindings put there (adapters.BearerAuth over HTTP, a fixed identity for
// stdio), kept in the memorytool.Tool's project. A call without an identity is PERMISSION_DENIED.
// file_text, old_str, new_str and insert_text are never logged by the bindings.
//
// # Errors
//
// A failed command is an error result whose message is the memory tool's documented error text
// ("The path /memories/x.md does not exist. Please provide a valid path.", "No replacement was
// performed. Multiple occurrences of old_str `a` in lines: 2, 4. Please ensure it is unique", …)
// and whose code says what kind of failure it was: NOT_FOUND, ALREADY_EXISTS, NO_MATCH,
// AMBIGUOUS_MATCH, INVALID_ARGUMENT, INVALID_PATH (any path that would leave /memories),
// CONFLICT, and the retryable RATE_LIMITED, RESOURCE_BUSY and UNAVAILABLE of the store.
package memorytools
