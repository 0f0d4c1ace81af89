package search

import "errors"

// Error codes returned by package search. They are machine-stable: branch on them, never on
// message text. INVALID_QUERY, INVALID_ARGUMENT, PERMISSION_DENIED, SEARCH_BACKEND_ERROR and
// INTERNAL share their meaning with package fileio.
const (
	// CodeInvalidQuery: the query is empty or blank after trimming.
	CodeInvalidQuery = "INVALID_QUERY"
	// CodeInvalidArgument: an argument other than the query is malformed (project name, option).
	CodeInvalidArgument = "INVALID_ARGUMENT"
	// CodePermissionDenied: the context carries no fileio.AuthContext, so there is no tenant.
	CodePermissionDenied = "PERMISSION_DENIED"
	// CodeSearchBackend: the index, an embedding provider or a rerank provider failed. The
	// message carries the provider's own error text (never a key).
	CodeSearchBackend = "SEARCH_BACKEND_ERROR"
	// CodeCredentialUnavailable: a sealed credential envelope is missing, expired, or cannot be
	// opened (wrong AAD, unknown KEK, tampered). The indexer retries, then degrades.
	CodeCredentialUnavailable = "CREDENTIAL_UNAVAILABLE"
	// CodeInvalidConfig: a configuration key has a bad value; Arg names the key.
	CodeInvalidConfig = "INVALID_CONFIG"
	// CodeInternal: an unexpected internal failure; the message never contains internals.
	CodeInternal = "INTERNAL"
)

// Error is the error type returned by package search. Branch on Code with errors.Is against the
// Err* sentinels or errors.As + Code(); never on the message text.
type Error struct {
	code    string // one of the Code* constants
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending path, ID or argument, if any
	Err     error  // underlying cause; never shown to agents
}

// NewError returns an *Error with the given code, message and argument.
func NewError(code, message, arg string) *Error {
	return &Error{code: code, Message: message, Arg: arg}
}

func wrapError(code, message, arg string, err error) *Error {
	return &Error{code: code, Message: message, Arg: arg, Err: err}
}

// Code returns the machine-stable error code.
func (e *Error) Code() string { return e.code }

// Error returns "CODE: message" followed by the argument, if any.
func (e *Error) Error() string {
	s := e.code + ": " + e.Message
	if e.Arg != "" {
		s += " (" + e.Arg + ")"
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.code == e.code
}

// Sentinels for errors.Is.
var (
	ErrInvalidQuery          = &Error{code: CodeInvalidQuery, Message: "invalid query"}
	ErrInvalidArgument       = &Error{code: CodeInvalidArgument, Message: "invalid argument"}
	ErrPermissionDenied      = &Error{code: CodePermissionDenied, Message: "permission denied"}
	ErrSearchBackend         = &Error{code: CodeSearchBackend, Message: "search backend error"}
	ErrCredentialUnavailable = &Error{code: CodeCredentialUnavailable, Message: "credential unavailable"}
	ErrInvalidConfig         = &Error{code: CodeInvalidConfig, Message: "invalid configuration"}
	ErrInternal              = &Error{code: CodeInternal, Message: "internal error"}
)
