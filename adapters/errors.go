package adapters

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// Codes that the adapters themselves produce. Tool handlers produce the codes of their packages.
const (
	CodeInvalidArgument  = "INVALID_ARGUMENT"  // arguments are not valid JSON or break the tool's input schema
	CodeUnknownTool      = "UNKNOWN_TOOL"      // no tool has that name
	CodeUnauthenticated  = "UNAUTHENTICATED"   // no or bad credentials on an HTTP request
	CodePayloadTooLarge  = "PAYLOAD_TOO_LARGE" // request body over the configured limit
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeTimeout          = "TIMEOUT"  // the caller's deadline passed
	CodeCanceled         = "CANCELED" // the caller went away
	CodeInternal         = "INTERNAL" // anything without a code; details go to the log, never to the agent
)

// statusByCode is the one table that turns an error code into an HTTP status. Every package's
// codes are listed here; a code missing from the table is served as 400 if the error carries a
// code (the caller can act on it) and 500 if it does not.
var statusByCode = map[string]int{
	// adapters
	CodeInvalidArgument:  http.StatusBadRequest,
	CodeUnknownTool:      http.StatusNotFound,
	CodeUnauthenticated:  http.StatusUnauthorized,
	CodePayloadTooLarge:  http.StatusRequestEntityTooLarge,
	CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	CodeTimeout:          http.StatusGatewayTimeout,
	CodeCanceled:         499, // client closed request (nginx convention)
	CodeInternal:         http.StatusInternalServerError,

	// fileid
	"INVALID_FILE_ID":   http.StatusBadRequest,
	"FILE_ID_NOT_FOUND": http.StatusNotFound,
	"SECTION_NOT_FOUND": http.StatusNotFound,
	"INVALID_REGEX":     http.StatusBadRequest,

	// fileio and search (seed 003 §9)
	"NOT_FOUND":            http.StatusNotFound,
	"ALREADY_EXISTS":       http.StatusConflict,
	"IS_DIRECTORY":         http.StatusConflict,
	"NOT_DIRECTORY":        http.StatusConflict,
	"INVALID_PATH":         http.StatusBadRequest,
	"INVALID_OFFSET":       http.StatusBadRequest,
	"INVALID_QUERY":        http.StatusBadRequest,
	"NOT_EMPTY":            http.StatusConflict,
	"PERMISSION_DENIED":    http.StatusForbidden,
	"QUOTA_EXCEEDED":       http.StatusInsufficientStorage,
	"RATE_LIMITED":         http.StatusTooManyRequests,
	"RESOURCE_BUSY":        http.StatusServiceUnavailable,
	"SEARCH_BACKEND_ERROR": http.StatusBadGateway,

	// expr
	"PARSE_ERROR":  http.StatusBadRequest,
	"UNKNOWN_NAME": http.StatusNotFound,
	"CYCLE":        http.StatusBadRequest,
	"INVALID_NAME": http.StatusBadRequest,

	"INVALID_PATTERN": http.StatusBadRequest,
	"IN_USE":          http.StatusConflict,
	"CATALOG_CHANGED": http.StatusConflict,
	"TEMPLATE_ERROR":  http.StatusUnprocessableEntity,
	"INVALID_CATALOG": http.StatusInternalServerError,

	// consult
	"CONTEXT_TOO_LARGE": http.StatusRequestEntityTooLarge,
	"MODEL_ERROR":       http.StatusBadGateway,
	"OUTPUT_EXISTS":     http.StatusConflict,
}

// HTTPStatus returns the HTTP status for an error code.
func HTTPStatus(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	if code == "" {
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// ToolError is the wire form of a failed tool call, the same over MCP (as the text of an
// isError result) and HTTP (as the "error" member of the body).
type ToolError struct {
	Code    string `json:"code" jsonschema:"machine-stable error code, e.g. NOT_FOUND"`
	Message string `json:"message" jsonschema:"what went wrong and what to do next"`
}

// coded is implemented by the error types of every agentfiles package.
type coded interface {
	error
	Code() string
}

// ErrorOf turns any error returned by a tool handler into the ToolError an agent sees, and
// reports whether the error was internal (uncoded). Coded errors keep their code and message;
// context errors become TIMEOUT or CANCELED; anything else becomes INTERNAL with a generic
// message, so that connection strings, SQL or stack details never reach the agent. Callers log
// the original error when internal is true.
func ErrorOf(err error) (te ToolError, internal bool) {
	var c coded
	switch {
	case errors.As(err, &c) && c.Code() != "" && c.Code() != CodeInternal:
		return ToolError{Code: c.Code(), Message: messageOf(c)}, false
	case errors.Is(err, context.DeadlineExceeded):
		return ToolError{Code: CodeTimeout, Message: "the operation took longer than its deadline; retry, or narrow the request"}, false
	case errors.Is(err, context.Canceled):
		return ToolError{Code: CodeCanceled, Message: "the request was canceled"}, false
	default:
		return ToolError{Code: CodeInternal, Message: "internal error; retry later, and report it to the operator if it persists"}, true
	}
}

// messageOf is the error text without its "CODE: " prefix, since the code travels separately.
func messageOf(c coded) string {
	return strings.TrimPrefix(c.Error(), c.Code()+": ")
}

// Error is the error type of package adapters, used for problems found before a handler runs
// (bad arguments, unknown tool, authentication).
type Error struct {
	code    string
	Message string // what went wrong and what to do next
	Arg     string // the offending tool or argument name, if any
	Err     error  // underlying cause; never shown to agents
}

// NewError returns an *Error with the given code.
func NewError(code, message, arg string) *Error {
	return &Error{code: code, Message: message, Arg: arg}
}

// Code returns the machine-stable error code.
func (e *Error) Code() string { return e.code }

func (e *Error) Error() string {
	if e.Arg != "" {
		return e.code + ": " + e.Message + " (" + e.Arg + ")"
	}
	return e.code + ": " + e.Message
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.code == e.code
}

// Sentinels for errors.Is.
var (
	ErrInvalidArgument = &Error{code: CodeInvalidArgument, Message: "invalid arguments"}
	ErrUnknownTool     = &Error{code: CodeUnknownTool, Message: "unknown tool"}
	ErrUnauthenticated = &Error{code: CodeUnauthenticated, Message: "missing or invalid credentials"}
)
