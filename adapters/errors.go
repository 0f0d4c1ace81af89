package adapters

import (
	"errors"
	"net/http"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Codes that only the adapters produce. Tool handlers return their packages' codes; the shared
// ones (INVALID_ARGUMENT, UNAUTHENTICATED, PAYLOAD_TOO_LARGE, TIMEOUT, CANCELED, INTERNAL) are
// declared in package agentfiles.
var (
	// CodeUnknownTool: no tool, or no endpoint, has that name.
	CodeUnknownTool = agentfiles.NewCode("UNKNOWN_TOOL", agentfiles.KindNotFound)
	// CodeMethodNotAllowed: the HTTP method is not the one the endpoint takes.
	CodeMethodNotAllowed = agentfiles.NewCode("METHOD_NOT_ALLOWED", agentfiles.KindUnsupported)
)

// Codes lists every code the adapters and bindings produce themselves.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeUnknownTool, CodeMethodNotAllowed, agentfiles.CodeInvalidArgument,
		agentfiles.CodeUnauthenticated, agentfiles.CodePayloadTooLarge, agentfiles.CodeTimeout,
		agentfiles.CodeCanceled, agentfiles.CodeInternal,
	}
}

// statusByKind is the one table from an error's kind to its HTTP status. Every code has a kind,
// so every code has a status; a test checks that every kind is listed.
var statusByKind = map[agentfiles.Kind]int{
	agentfiles.KindInternal:        http.StatusInternalServerError,
	agentfiles.KindInvalid:         http.StatusBadRequest,
	agentfiles.KindUnauthenticated: http.StatusUnauthorized,
	agentfiles.KindPermission:      http.StatusForbidden,
	agentfiles.KindNotFound:        http.StatusNotFound,
	agentfiles.KindUnsupported:     http.StatusMethodNotAllowed,
	agentfiles.KindConflict:        http.StatusConflict,
	agentfiles.KindTooLarge:        http.StatusRequestEntityTooLarge,
	agentfiles.KindUnprocessable:   http.StatusUnprocessableEntity,
	agentfiles.KindRateLimited:     http.StatusTooManyRequests,
	agentfiles.KindCanceled:        499, // client closed request (nginx convention)
	agentfiles.KindUpstream:        http.StatusBadGateway,
	agentfiles.KindUnavailable:     http.StatusServiceUnavailable,
	agentfiles.KindTimeout:         http.StatusGatewayTimeout,
	agentfiles.KindQuota:           http.StatusInsufficientStorage,
}

// HTTPStatus returns the HTTP status for an error kind; see [agentfiles.Kind].
func HTTPStatus(k agentfiles.Kind) int {
	if s, ok := statusByKind[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// ToolError is the wire form of a failed tool call, the same over MCP (as the structured content
// and text of an isError result) and HTTP (as the "error" member of the body).
type ToolError struct {
	Code      string `json:"code" jsonschema:"machine-stable error code, e.g. NOT_FOUND"`
	Message   string `json:"message" jsonschema:"what went wrong and what to do next"`
	Retryable bool   `json:"retryable" jsonschema:"true when the same call can succeed if retried later"`
	// Kind is the code's class, which decides the HTTP status; it is not sent.
	Kind agentfiles.Kind `json:"-"`
}

// ErrorOf turns any error returned by a tool handler into the ToolError an agent sees, and
// reports whether the error was internal. Coded errors keep their code and message; context
// errors become TIMEOUT or CANCELED; anything else, and INTERNAL errors, become INTERNAL with a
// generic message, so that connection strings, SQL or stack details never reach the agent.
// Callers log the original error when internal is true.
func ErrorOf(err error) (te ToolError, internal bool) {
	if cerr := agentfiles.ContextError(err); cerr != nil {
		err = cerr // an uncoded context error gets the words every package uses
	}
	code := agentfiles.ErrorCode(err)
	var e *agentfiles.Error
	switch {
	case code.Kind() == agentfiles.KindInternal:
		return toolError(agentfiles.CodeInternal, "internal error; retry later, and report it to the operator if it persists"), true
	}
	errors.As(err, &e)
	msg := utf8cut.Shorten(e.Message, maxMessageBytes, "…")
	if e.Arg != "" {
		msg += " (" + utf8cut.Shorten(e.Arg, maxArgBytes, "…") + ")"
	}
	return toolError(code, msg), false
}

// Bounds of a ToolError's message: an error never carries a payload back to the agent, whatever
// a handler put into it.
const (
	maxMessageBytes = 2048
	maxArgBytes     = 256
)

func toolError(code agentfiles.Code, message string) ToolError {
	return ToolError{Code: code.String(), Message: message, Retryable: code.Retryable(), Kind: code.Kind()}
}
