package consult

import "errors"

// Error codes returned by package consult. They are machine-stable: branch on them with
// errors.Is against the Err* sentinels, or errors.As and [Error.Code].
const (
	// Files-list entries (see [Expand]).
	CodeInvalidEntry        = "INVALID_ENTRY"         // malformed entry (empty, NUL byte, bad character class)
	CodeNotAbsolute         = "NOT_ABSOLUTE"          // entry does not start with "/"
	CodeWildcardInDirectory = "WILDCARD_IN_DIRECTORY" // *, ? or [...] before the last path element
	CodeMissingExtension    = "MISSING_EXTENSION"     // wildcard pattern without a literal extension
	CodeRecursiveWildcard   = "RECURSIVE_WILDCARD"    // "**" anywhere
	CodeIsDirectory         = "IS_DIRECTORY"          // a directory named without a pattern
	CodeNotFound            = "NOT_FOUND"             // no such file, or a pattern matched nothing
	CodePermissionDenied    = "PERMISSION_DENIED"     // the file or directory cannot be read
	CodeNotRegular          = "NOT_REGULAR"           // device, socket, FIFO or dangling symlink
	CodeIgnored             = "IGNORED"               // the path is on the ignore list

	// File contents and budgets.
	CodeBinaryFile      = "BINARY_FILE"       // the file is not text; it is reported, not sent
	CodeFileTooLarge    = "FILE_TOO_LARGE"    // one file exceeds the per-file byte or token limit
	CodeBudgetExceeded  = "BUDGET_EXCEEDED"   // adding the file would exceed the total limit
	CodeContextTooLarge = "CONTEXT_TOO_LARGE" // the prompt does not fit the model's context window

	// Consultation.
	CodeModelError      = "MODEL_ERROR"      // the model provider returned an error
	CodeTimeout         = "TIMEOUT"          // the model did not finish in time
	CodeInvalidArgument = "INVALID_ARGUMENT" // a request field is missing or malformed
	CodeOutputExists    = "OUTPUT_EXISTS"    // no free output file name could be found
	CodeInternal        = "INTERNAL"         // an unexpected I/O or internal failure
)

// Error is the error type returned by package consult. Branch on Code with errors.Is against the
// Err* sentinels or errors.As + Code(); never on the message text.
//
// An *Error is immutable once returned and safe to share between goroutines.
type Error struct {
	code    string // one of the Code* constants
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending path, entry or argument, if any
	Err     error  // underlying cause; never shown to agents
}

// NewError returns an *Error with the given code, message and offending argument.
// It is exported for packages that build on consult and must report the same codes.
func NewError(code, message, arg string) *Error {
	return &Error{code: code, Message: message, Arg: arg}
}

// wrapError is NewError with an underlying cause.
func wrapError(code, message, arg string, err error) *Error {
	return &Error{code: code, Message: message, Arg: arg, Err: err}
}

// Code returns the machine-stable error code, one of the Code* constants.
func (e *Error) Code() string { return e.code }

// Error returns "CODE: message", followed by the offending argument when there is one.
func (e *Error) Error() string {
	s := e.code + ": " + e.Message
	if e.Arg != "" {
		s += " (" + e.Arg + ")"
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, consult.ErrNotFound) matches every NOT_FOUND error.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.code == e.code
}

// Sentinels for errors.Is. Compare codes, never messages.
var (
	ErrInvalidEntry        = &Error{code: CodeInvalidEntry, Message: "invalid files-list entry"}
	ErrNotAbsolute         = &Error{code: CodeNotAbsolute, Message: "path is not absolute"}
	ErrWildcardInDirectory = &Error{code: CodeWildcardInDirectory, Message: "wildcard in a directory part"}
	ErrMissingExtension    = &Error{code: CodeMissingExtension, Message: "wildcard pattern without an extension"}
	ErrRecursiveWildcard   = &Error{code: CodeRecursiveWildcard, Message: "recursive wildcard ** is not supported"}
	ErrIsDirectory         = &Error{code: CodeIsDirectory, Message: "path is a directory"}
	ErrNotFound            = &Error{code: CodeNotFound, Message: "not found"}
	ErrPermissionDenied    = &Error{code: CodePermissionDenied, Message: "permission denied"}
	ErrNotRegular          = &Error{code: CodeNotRegular, Message: "not a regular file"}
	ErrIgnored             = &Error{code: CodeIgnored, Message: "path is ignored"}
	ErrBinaryFile          = &Error{code: CodeBinaryFile, Message: "binary file"}
	ErrFileTooLarge        = &Error{code: CodeFileTooLarge, Message: "file too large"}
	ErrBudgetExceeded      = &Error{code: CodeBudgetExceeded, Message: "budget exceeded"}
	ErrContextTooLarge     = &Error{code: CodeContextTooLarge, Message: "prompt exceeds the model's context window"}
	ErrModelError          = &Error{code: CodeModelError, Message: "model error"}
	ErrTimeout             = &Error{code: CodeTimeout, Message: "timeout"}
	ErrInvalidArgument     = &Error{code: CodeInvalidArgument, Message: "invalid argument"}
	ErrOutputExists        = &Error{code: CodeOutputExists, Message: "output file exists"}
	ErrInternal            = &Error{code: CodeInternal, Message: "internal error"}
)
