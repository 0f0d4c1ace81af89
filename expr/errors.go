package expr

import (
	"context"
	"errors"
	"strconv"

	"github.com/agentfiles/agentfiles"
)

// CodeParseError: an expression is not well formed. The cause is a *[SyntaxError].
var (
	CodeParseError = agentfiles.NewCode("PARSE_ERROR", agentfiles.KindInvalid)
	ErrParseError  = &agentfiles.Error{Code: CodeParseError, Message: "expression is not well formed"}
)

// CodeUnknownName: no collection or category has this name. The message lists close matches.
var (
	CodeUnknownName = agentfiles.NewCode("UNKNOWN_NAME", agentfiles.KindNotFound)
	ErrUnknownName  = &agentfiles.Error{Code: CodeUnknownName, Message: "no collection or category with this name"}
)

// CodeCycle: a collection includes itself, directly or through others. Arg names the cycle.
var (
	CodeCycle = agentfiles.NewCode("CYCLE", agentfiles.KindInvalid)
	ErrCycle  = &agentfiles.Error{Code: CodeCycle, Message: "collection cycle"}
)

// CodeInvalidName: a name given to a new category or collection breaks the naming rules.
var (
	CodeInvalidName = agentfiles.NewCode("INVALID_NAME", agentfiles.KindInvalid)
	ErrInvalidName  = &agentfiles.Error{Code: CodeInvalidName, Message: "invalid name"}
)

// CodeInvalidPattern: a glob pattern does not compile or tries to leave its category directory.
var (
	CodeInvalidPattern = agentfiles.NewCode("INVALID_PATTERN", agentfiles.KindInvalid)
	ErrInvalidPattern  = &agentfiles.Error{Code: CodeInvalidPattern, Message: "invalid pattern"}
)

// CodeInvalidCatalog: the catalog file is malformed or breaks a rule; Arg is "file:line".
// It is a problem of the server's file, not of a request, so its kind is internal.
var (
	CodeInvalidCatalog = agentfiles.NewCode("INVALID_CATALOG", agentfiles.KindInternal)
	ErrInvalidCatalog  = &agentfiles.Error{Code: CodeInvalidCatalog, Message: "invalid catalog"}
)

// CodeInUse: a category or collection cannot be removed while collections refer to it.
var (
	CodeInUse = agentfiles.NewCode("IN_USE", agentfiles.KindConflict)
	ErrInUse  = &agentfiles.Error{Code: CodeInUse, Message: "still in use"}
)

// CodeCatalogChanged: the catalog file was edited on disk since it was loaded; nothing was saved.
var (
	CodeCatalogChanged = agentfiles.NewCode("CATALOG_CHANGED", agentfiles.KindConflict)
	ErrCatalogChanged  = &agentfiles.Error{Code: CodeCatalogChanged, Message: "catalog file changed on disk"}
)

// CodeTemplateError: a .tmpl document failed to parse or execute against the caller's data.
var (
	CodeTemplateError = agentfiles.NewCode("TEMPLATE_ERROR", agentfiles.KindUnprocessable)
	ErrTemplateError  = &agentfiles.Error{Code: CodeTemplateError, Message: "template failed"}
)

// Codes lists every code package expr can return. Every error the package returns is an
// *[agentfiles.Error] carrying one of these: its own codes, each declared with its sentinel
// (ErrParseError for CodeParseError, …; errors.Is compares only the code), or a shared code
// ([agentfiles.CodeAlreadyExists], [agentfiles.CodeInvalidArgument], [agentfiles.CodeInternal],
// [agentfiles.CodeTimeout], [agentfiles.CodeCanceled]).
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeParseError, CodeUnknownName, CodeCycle, CodeInvalidName, CodeInvalidPattern,
		CodeInvalidCatalog, CodeInUse, CodeCatalogChanged, CodeTemplateError,
		agentfiles.CodeAlreadyExists, agentfiles.CodeInvalidArgument, agentfiles.CodeInternal,
		agentfiles.CodeTimeout, agentfiles.CodeCanceled,
	}
}

// SyntaxError is the cause (the Err field) of every PARSE_ERROR: where the expression breaks
// and how to fix it. Get it with errors.As. The *agentfiles.Error's Message already says all of
// it, suggestion included, for agents.
type SyntaxError struct {
	// Pos is the byte offset in the expression where the error was detected.
	Pos int
	// Text is the offending part of the expression (may be empty, e.g. for an empty expression).
	Text string
	// Suggestion is a corrected expression or a next step; empty when none can be offered.
	Suggestion string

	msg string // what is wrong, with the position but without Text and Suggestion
}

// Error returns what is wrong and where, followed by the quoted text and the suggestion.
func (e *SyntaxError) Error() string {
	s := e.msg
	if e.Text != "" {
		s += " (" + strconv.Quote(e.Text) + ")"
	}
	if e.Suggestion != "" {
		s += "; suggestion: " + e.Suggestion
	}
	return s
}

// parseErr returns the PARSE_ERROR for an expression that breaks at byte pos, on text. Its
// message is the one agents have always seen, "msg at byte N of the expression ("text");
// suggestion: …"; Arg stays empty because the message quotes the text, before the suggestion.
func parseErr(pos int, text, msg, suggestion string) *agentfiles.Error {
	se := &SyntaxError{Pos: pos, Text: text, Suggestion: suggestion,
		msg: msg + " at byte " + strconv.Itoa(pos) + " of the expression"}
	return agentfiles.WrapError(CodeParseError, se.Error(), "", se)
}

// syntaxOf returns the *SyntaxError behind a parse error, or nil.
func syntaxOf(err error) *SyntaxError {
	var se *SyntaxError
	errors.As(err, &se)
	return se
}

func internalError(msg string, cause error) *agentfiles.Error {
	return agentfiles.WrapError(agentfiles.CodeInternal, msg, "", cause)
}

// ctxErr returns TIMEOUT or CANCELED, with the words agents see for them, once ctx is done.
func ctxErr(ctx context.Context) error {
	return agentfiles.ContextError(ctx.Err())
}

// messageOf returns the message of an *agentfiles.Error in err's chain, or err's text.
func messageOf(err error) string {
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
