package expr

import "strconv"

// Codes of the errors returned by package expr. They are machine-stable; branch on them with
// errors.Is against the Err* sentinels, or errors.As and [Error.Code].
const (
	// CodeParseError: an expression is not well formed. Pos and Suggestion say where and how to fix it.
	CodeParseError = "PARSE_ERROR"
	// CodeUnknownName: no collection or category has this name. The message lists close matches.
	CodeUnknownName = "UNKNOWN_NAME"
	// CodeCycle: a collection includes itself, directly or through others. The message names the cycle.
	CodeCycle = "CYCLE"
	// CodeInvalidName: a name given to a new category or collection breaks the naming rules.
	CodeInvalidName = "INVALID_NAME"
	// CodeInvalidPattern: a glob pattern does not compile or tries to leave its category directory.
	CodeInvalidPattern = "INVALID_PATTERN"
	// CodeInvalidArgument: some other argument is wrong (a missing directory, conflicting fields).
	CodeInvalidArgument = "INVALID_ARGUMENT"
	// CodeInvalidCatalog: the catalog YAML is malformed or breaks a rule; the message names the line.
	CodeInvalidCatalog = "INVALID_CATALOG"
	// CodeAlreadyExists: a category or collection with this name exists already.
	CodeAlreadyExists = "ALREADY_EXISTS"
	// CodeInUse: a category or collection cannot be removed because collections still refer to it.
	CodeInUse = "IN_USE"
	// CodeCatalogChanged: the catalog file was edited on disk since it was loaded; nothing was saved.
	CodeCatalogChanged = "CATALOG_CHANGED"
	// CodeTemplateError: a .tmpl document failed to parse or execute against the caller's data.
	CodeTemplateError = "TEMPLATE_ERROR"
	// CodeInternal: an I/O failure. The message never contains file contents.
	CodeInternal = "INTERNAL"
)

// Error is the error type returned by package expr. Branch on Code with errors.Is against the
// Err* sentinels or errors.As + Code(); never on the message text.
type Error struct {
	code    string // one of the Code* constants
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending expression, name, pattern or "file:line", if any
	Err     error  // underlying cause; never shown to agents

	// Pos is the byte offset in the expression where a PARSE_ERROR was detected; -1 otherwise.
	Pos int
	// Suggestion is a corrected expression or a next step, when one can be offered.
	Suggestion string
}

// Sentinels for errors.Is. Only the code is compared.
var (
	ErrParse           = &Error{code: CodeParseError, Message: "expression is not well formed", Pos: -1}
	ErrUnknownName     = &Error{code: CodeUnknownName, Message: "no collection or category with this name", Pos: -1}
	ErrCycle           = &Error{code: CodeCycle, Message: "collection cycle", Pos: -1}
	ErrInvalidName     = &Error{code: CodeInvalidName, Message: "invalid name", Pos: -1}
	ErrInvalidPattern  = &Error{code: CodeInvalidPattern, Message: "invalid pattern", Pos: -1}
	ErrInvalidArgument = &Error{code: CodeInvalidArgument, Message: "invalid argument", Pos: -1}
	ErrInvalidCatalog  = &Error{code: CodeInvalidCatalog, Message: "invalid catalog", Pos: -1}
	ErrAlreadyExists   = &Error{code: CodeAlreadyExists, Message: "already exists", Pos: -1}
	ErrInUse           = &Error{code: CodeInUse, Message: "still in use", Pos: -1}
	ErrCatalogChanged  = &Error{code: CodeCatalogChanged, Message: "catalog file changed on disk", Pos: -1}
	ErrTemplate        = &Error{code: CodeTemplateError, Message: "template failed", Pos: -1}
	ErrInternal        = &Error{code: CodeInternal, Message: "internal error", Pos: -1}
)

func newError(code, arg, msg string) *Error {
	return &Error{code: code, Message: msg, Arg: arg, Pos: -1}
}

func internalError(msg string, cause error) *Error {
	return &Error{code: CodeInternal, Message: msg, Err: cause, Pos: -1}
}

// Code returns the machine-stable code, one of the Code* constants.
func (e *Error) Code() string { return e.code }

// Error returns "CODE: message", followed by the quoted argument and the suggestion, if any.
func (e *Error) Error() string {
	s := e.code + ": " + e.Message
	if e.Arg != "" {
		s += " (" + strconv.Quote(e.Arg) + ")"
	}
	if e.Suggestion != "" {
		s += "; suggestion: " + e.Suggestion
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.code == e.code
}
