package fileid

import "github.com/agentfiles/agentfiles"

// CodeInvalidFileID: the file ID is not of the form f1, f2, ….
var (
	CodeInvalidFileID = agentfiles.NewCode("INVALID_FILE_ID", agentfiles.KindInvalid)
	ErrInvalidFileID  = &agentfiles.Error{Code: CodeInvalidFileID, Message: "invalid file ID"}
)

// CodeFileIDNotFound: a well-formed file ID that names no file.
var (
	CodeFileIDNotFound = agentfiles.NewCode("FILE_ID_NOT_FOUND", agentfiles.KindNotFound)
	ErrFileIDNotFound  = &agentfiles.Error{Code: CodeFileIDNotFound, Message: "file ID not found"}
)

// CodeSectionNotFound: the section ID is not in the file's table of contents.
var (
	CodeSectionNotFound = agentfiles.NewCode("SECTION_NOT_FOUND", agentfiles.KindNotFound)
	ErrSectionNotFound  = &agentfiles.Error{Code: CodeSectionNotFound, Message: "section not found"}
)

// CodeInvalidRegex: the search query is not a valid RE2 expression. It is
// agentfiles.CodeInvalidPattern (INVALID_PATTERN, formerly INVALID_REGEX), the code every
// package gives a pattern that does not compile.
//
// Deprecated: use agentfiles.CodeInvalidPattern and agentfiles.ErrInvalidPattern.
var (
	CodeInvalidRegex = agentfiles.CodeInvalidPattern
	ErrInvalidRegex  = agentfiles.ErrInvalidPattern
)

// CodeInvalidRoot: a root cannot be opened or walked (build time only).
var (
	CodeInvalidRoot = agentfiles.NewCode("INVALID_ROOT", agentfiles.KindInvalid)
	ErrInvalidRoot  = &agentfiles.Error{Code: CodeInvalidRoot, Message: "invalid root"}
)

// Codes lists every code package fileid can return: its own, agentfiles.CodeInvalidPattern (a
// query that is not a valid RE2 expression), agentfiles.CodeInvalidQuery (an empty or too long
// query), agentfiles.CodeInvalidArgument (a bad include pattern, an empty section list), and
// CodeCanceled and CodeTimeout,
// which [agentfiles.ErrorCode] gives the context errors of New, Warm and Search.
//
// Each code of this package is declared with its sentinel (ErrInvalidFileID for
// CodeInvalidFileID, …), whose Message is a placeholder: errors.Is compares only the code.
// Errors are *[agentfiles.Error]: branch on the code with errors.Is against the sentinels (or
// agentfiles.ErrInvalidArgument), or with [agentfiles.ErrorCode]; never on the message text.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeInvalidFileID, CodeFileIDNotFound, CodeSectionNotFound, agentfiles.CodeInvalidPattern, CodeInvalidRoot,
		agentfiles.CodeInvalidQuery, agentfiles.CodeInvalidArgument, agentfiles.CodeCanceled, agentfiles.CodeTimeout,
	}
}
