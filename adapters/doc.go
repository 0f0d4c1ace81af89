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
//	                                     file_grep, file_glob, file_purge_history, file_import,
//	                                     file_export
//	searchtools.Tools(s)                 file_search
//	memorytools.Tools(mem)               memory (Anthropic's memory tool over fileio)
//
// Tool sets are plain slices: concatenate them, filter them, or add your own tools. Package
// adapterstest runs a tool set through a real MCP client session in tests.
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
// # Identity
//
// Tenant-scoped tools read an agentfiles.AuthContext from the context. Bindings put it there: an
// [Authenticator] (default [BearerAuth]: the tenant is the SHA-256 of the bearer token) for HTTP,
// or a fixed identity for stdio. Handlers never see headers or raw tokens.
//
// # Logging
//
// Bindings log one record per call with [LogArgs], which replaces file contents, keys and tokens
// by their length (whatever the case of the argument's name) and cuts every other value to a
// short preview, and with [LogError], which cuts the error's text to 1 KiB.
package adapters
