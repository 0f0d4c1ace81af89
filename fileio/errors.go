package fileio

import "errors"

// Error codes returned by package fileio and by every Store. They are machine-stable: agents
// and callers branch on them (errors.Is against the Err* sentinels, or errors.As + Code()).
const (
	CodeNotFound           = "NOT_FOUND"
	CodeAlreadyExists      = "ALREADY_EXISTS"
	CodeIsDirectory        = "IS_DIRECTORY"
	CodeNotDirectory       = "NOT_DIRECTORY"
	CodeInvalidPath        = "INVALID_PATH"
	CodeInvalidOffset      = "INVALID_OFFSET"
	CodeInvalidQuery       = "INVALID_QUERY"
	CodeNotEmpty           = "NOT_EMPTY"
	CodePermissionDenied   = "PERMISSION_DENIED"
	CodePayloadTooLarge    = "PAYLOAD_TOO_LARGE"
	CodeQuotaExceeded      = "QUOTA_EXCEEDED"
	CodeRateLimited        = "RATE_LIMITED"
	CodeResourceBusy       = "RESOURCE_BUSY"
	CodeSearchBackendError = "SEARCH_BACKEND_ERROR"
	CodeInvalidArgument    = "INVALID_ARGUMENT"
	CodeInternal           = "INTERNAL"
)

// Error is the error type returned by package fileio and its stores. Branch on Code with
// errors.Is against the Err* sentinels or errors.As + Code(); never on the message text.
type Error struct {
	code    string // one of the Code* constants
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending path, ID or argument, if any
	Err     error  // underlying cause; never shown to agents
}

// NewError returns an *Error with the given code (one of the Code* constants), message and
// offending argument. Stores use it to return coded errors (e.g. RESOURCE_BUSY).
func NewError(code, message, arg string) *Error {
	return &Error{code: code, Message: message, Arg: arg}
}

// WrapError is NewError with an underlying cause, kept for errors.Unwrap and logs but never
// shown to agents. Use code INTERNAL for backend failures, with a message free of SQL,
// connection strings and file contents.
func WrapError(code, message, arg string, cause error) *Error {
	return &Error{code: code, Message: message, Arg: arg, Err: cause}
}

// Code returns the machine-stable code.
func (e *Error) Code() string { return e.code }

// Error renders "CODE: message (arg)".
func (e *Error) Error() string {
	s := e.code + ": " + e.Message
	if e.Arg != "" {
		s += " (" + e.Arg + ")"
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.code == e.code
	}
	return false
}

// Sentinels for errors.Is; compare codes, not messages.
var (
	ErrNotFound           = &Error{code: CodeNotFound, Message: "not found"}
	ErrAlreadyExists      = &Error{code: CodeAlreadyExists, Message: "already exists"}
	ErrIsDirectory        = &Error{code: CodeIsDirectory, Message: "is a directory"}
	ErrNotDirectory       = &Error{code: CodeNotDirectory, Message: "not a directory"}
	ErrInvalidPath        = &Error{code: CodeInvalidPath, Message: "invalid path"}
	ErrInvalidOffset      = &Error{code: CodeInvalidOffset, Message: "invalid offset"}
	ErrInvalidQuery       = &Error{code: CodeInvalidQuery, Message: "invalid query"}
	ErrNotEmpty           = &Error{code: CodeNotEmpty, Message: "directory not empty"}
	ErrPermissionDenied   = &Error{code: CodePermissionDenied, Message: "permission denied"}
	ErrPayloadTooLarge    = &Error{code: CodePayloadTooLarge, Message: "payload too large"}
	ErrQuotaExceeded      = &Error{code: CodeQuotaExceeded, Message: "quota exceeded"}
	ErrRateLimited        = &Error{code: CodeRateLimited, Message: "rate limited"}
	ErrResourceBusy       = &Error{code: CodeResourceBusy, Message: "resource busy"}
	ErrSearchBackendError = &Error{code: CodeSearchBackendError, Message: "search backend error"}
	ErrInvalidArgument    = &Error{code: CodeInvalidArgument, Message: "invalid argument"}
	ErrInternal           = &Error{code: CodeInternal, Message: "internal error"}
)

// Codes lists every code of package fileio, in the order of the seed plus the two additions.
func Codes() []string {
	return []string{
		CodeNotFound, CodeAlreadyExists, CodeIsDirectory, CodeNotDirectory, CodeInvalidPath,
		CodeInvalidOffset, CodeInvalidQuery, CodeNotEmpty, CodePermissionDenied,
		CodePayloadTooLarge, CodeQuotaExceeded, CodeRateLimited, CodeResourceBusy,
		CodeSearchBackendError, CodeInvalidArgument, CodeInternal,
	}
}
