package fileid

import "errors"

// Error codes returned by package fileid. They are machine-stable: branch on them with
// errors.Is against the Err* sentinels, or errors.As and [Error.Code]; never on message text.
const (
	CodeInvalidFileID   = "INVALID_FILE_ID"   // the file ID is not of the form f1, f2, …
	CodeFileIDNotFound  = "FILE_ID_NOT_FOUND" // well-formed file ID that names no file
	CodeSectionNotFound = "SECTION_NOT_FOUND" // the section ID is not in the file's table of contents
	CodeInvalidRegex    = "INVALID_REGEX"     // the search query is not a valid RE2 expression
	CodeInvalidArgument = "INVALID_ARGUMENT"  // a required argument is missing or malformed
	CodeInvalidRoot     = "INVALID_ROOT"      // a root cannot be opened or walked (build time only)
	CodeInternal        = "INTERNAL"          // an unexpected I/O failure while building
)

// Error is the error type returned by package fileid. Branch on Code with errors.Is against the
// Err* sentinels or errors.As + Code(); never on the message text.
//
// An *Error is immutable once returned and safe to share between goroutines.
type Error struct {
	code    string // one of the Code* constants
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending file ID, section ID, query or path, if any
	Err     error  // underlying cause; never shown to agents
}

func newError(code, message, arg string) *Error {
	return &Error{code: code, Message: message, Arg: arg}
}

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
// errors.Is(err, fileid.ErrFileIDNotFound) matches every FILE_ID_NOT_FOUND error.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.code == e.code
}

// Sentinels for errors.Is; compare codes, not messages.
var (
	ErrInvalidFileID   = &Error{code: CodeInvalidFileID, Message: "invalid file ID"}
	ErrFileIDNotFound  = &Error{code: CodeFileIDNotFound, Message: "file ID not found"}
	ErrSectionNotFound = &Error{code: CodeSectionNotFound, Message: "section not found"}
	ErrInvalidRegex    = &Error{code: CodeInvalidRegex, Message: "invalid regular expression"}
	ErrInvalidArgument = &Error{code: CodeInvalidArgument, Message: "invalid argument"}
	ErrInvalidRoot     = &Error{code: CodeInvalidRoot, Message: "invalid root"}
	ErrInternal        = &Error{code: CodeInternal, Message: "internal error"}
)
