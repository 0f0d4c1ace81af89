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
// Each package has one constructor that returns its tool set as a []Tool:
//
//	FileIDTools(reg)    list_documentation_files, table_of_contents, read_sections, search
//	ExprTools(cat)      get_content, get_collection_content, category_*, collection_*
//	ConsultTools(c)     consultation
//	FileIOTools(svc)    file_stat, file_read, file_write, file_delete, file_list
//	SearchTools(s)      file_search
//
// Tool sets are plain slices: concatenate them, filter them, or add your own tools.
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
// Every agentfiles package returns errors with a machine-stable code (Code() string). [ErrorOf]
// turns any handler error into the [ToolError] an agent sees: {code, message}, where the message
// says what to do next. Errors without a code become INTERNAL with a generic message; their text
// (which may hold SQL or addresses) goes to the log only. [HTTPStatus] is the single table from
// codes to HTTP statuses.
//
// # Identity
//
// Tenant-scoped tools read a fileio.AuthContext from the context. Bindings put it there: an
// [Authenticator] (default [BearerAuth]: the tenant is the SHA-256 of the bearer token) for HTTP,
// or a fixed identity for stdio. Handlers never see headers or raw tokens.
//
// # Logging
//
// Bindings log one record per call with [LogArgs], which replaces file contents, keys and tokens
// by their length.
package adapters
