// Package adapters turns the agentfiles packages into agent tools that any MCP server or HTTP
// service can expose.
//
// # Tools
//
// A [Tool] is one operation an agent can call: a name, a description written for a model, JSON
// Schemas for its arguments and its result, explicit [Annotations] (read-only, destructive,
// idempotent, open-world), and a handler. [NewTool] builds one from a typed Go function, deriving
// both schemas from the argument and result structs, so the schema an agent sees and the code
// that runs cannot drift apart.
//
// Each tool family has its own package, so a binary links only the families it serves (a
// documentation server links neither search nor a database driver):
//
//	fileidtools.Tools(reg)               list_documentation_files, table_of_contents, read_sections, search
//	exprtools.Tools(cat, opts)           get_content, get_collection_content, category_*, collection_*
//	consulttools.Tools(c)                consultation
//	fileiotools.Tools(svc)               file_stat, file_read, file_write, file_delete, file_list,
//	                                     file_edit, file_rename, file_versions, file_restore,
//	                                     file_grep, file_glob, file_purge_history,
//	                                     file_apply_patch, file_read_many, file_import, file_export,
//	                                     file_checkpoint, file_checkpoints, file_checkpoint_delete,
//	                                     file_events, file_changes, file_rewind
//	searchtools.Tools(s)                 file_search
//	memorytools.Tools(mem)               memory (Anthropic's memory tool over fileio)
//
// Tool sets are plain slices: concatenate them, filter them, or add your own tools. Package
// adapterstest runs a tool set through a real MCP client session in tests, and its
// TestToolSet checks that a tool set keeps the wire conventions below.
//
// # Bindings
//
// The same tools are served by two thin bindings with identical behaviour:
// package adapters/mcpsdk registers them on an official MCP Go SDK server (stdio or streamable
// HTTP), and package adapters/httpapi serves them as JSON over net/http
// (GET /tools, POST /tools/{name}).
//
// # Errors
//
// Every agentfiles package returns *agentfiles.Error, whose code has a kind. [ErrorOf] turns any
// handler error into the [ToolError] an agent sees: {code, message, retryable}, where the
// message says what to do next and retryable says whether the same call can succeed later.
// Errors without a code, and INTERNAL ones, become INTERNAL with a generic message; their text
// (which may hold SQL or addresses) goes to the log only. [HTTPStatus] is the single table from
// an error's kind to its HTTP status.
//
// An error never carries an argument's value back: an argument of the wrong type is described
// by its name, the type the schema wants and the kind of value sent, never the value itself
// (which may be a key, or megabytes), and messages are cut to 2 KiB. Arguments that are not
// UTF-8 text (raw bytes that are not UTF-8, or escapes of lone UTF-16 surrogates such as
// \ud800) are refused with INVALID_ARGUMENT by [Tool.Call] before any decoder could replace
// them with U+FFFD ([CheckText]).
//
// # Wire conventions
//
// Every tool set, ours and yours, keeps one vocabulary on the wire; package adapterstest's
// TestToolSet checks it.
//
//   - Names: tool names, argument names and result field names are snake_case. The only
//     exceptions are fileId and sourceDirectory, the names MCP documentation servers use.
//   - More results: a paged answer always has truncated (true when there is more) and, when it
//     can be continued, next_cursor, an opaque string. Pass it back unchanged as the argument
//     cursor, with the same other arguments, for the next page; following cursors to the end
//     yields every entry once. A bad cursor is INVALID_ARGUMENT. file_list, file_grep,
//     file_glob, list_documentation_files, table_of_contents and search page this way.
//   - More text: a text cut at a byte budget has truncated and next_offset, the byte offset to
//     pass back as the argument offset (file_read; read_sections, per section). offset in an
//     answer is where its content starts.
//   - A cut without a continuation (file_search's best chunks, a consultation's answer) has
//     truncated alone; note says why and what to do.
//   - Advice is note; errors are {code, message, retryable} with a code its package lists in
//     Codes().
//   - Limits a description states (sizes, default and maximum counts) come from the
//     configuration the tool set was built with, never from constants.
//
// # Identity
//
// Tenant-scoped tools read an agentfiles.AuthContext from the context. Bindings put it there: an
// [Authenticator] (default [BearerAuth]: the tenant is the SHA-256 of the bearer token;
// [TokenAuth]: a fixed set of tokens, each with the tenant its [TokenEntry] names, so that
// several keys share one tenant's files and a key can be rotated) for HTTP, or a fixed identity
// for stdio. Handlers never see headers or raw tokens.
//
// # Logging
//
// Bindings log one record per call with [LogArgs], which replaces file contents, keys and tokens
// by their length (whatever the case of the argument's name) and cuts every other value to a
// short preview, and with [LogError], which cuts the error's text to 1 KiB.
package adapters
