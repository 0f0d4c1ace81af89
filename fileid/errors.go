package fileid

import "github.com/agentfiles/agentfiles"

// Codes that only package fileid produces. Errors are *[agentfiles.Error]: branch on the code
// with errors.Is against the Err* sentinels (or agentfiles.ErrInvalidArgument), or with
// [agentfiles.ErrorCode]; never on the message text.
var (
	// CodeInvalidFileID: the file ID is not of the form f1, f2, ….
	CodeInvalidFileID = agentfiles.NewCode("INVALID_FILE_ID", agentfiles.KindInvalid)
	// CodeFileIDNotFound: a well-formed file ID that names no file.
	CodeFileIDNotFound = agentfiles.NewCode("FILE_ID_NOT_FOUND", agentfiles.KindNotFound)
	// CodeSectionNotFound: the section ID is not in the file's table of contents.
	CodeSectionNotFound = agentfiles.NewCode("SECTION_NOT_FOUND", agentfiles.KindNotFound)
	// CodeInvalidRegex: the search query is not a valid RE2 expression.
	CodeInvalidRegex = agentfiles.NewCode("INVALID_REGEX", agentfiles.KindInvalid)
	// CodeInvalidRoot: a root cannot be opened or walked (build time only).
	CodeInvalidRoot = agentfiles.NewCode("INVALID_ROOT", agentfiles.KindInvalid)
)

// Sentinels for errors.Is, one per code of this package; only the code is compared.
var (
	ErrInvalidFileID   = &agentfiles.Error{Code: CodeInvalidFileID, Message: "invalid file ID"}
	ErrFileIDNotFound  = &agentfiles.Error{Code: CodeFileIDNotFound, Message: "file ID not found"}
	ErrSectionNotFound = &agentfiles.Error{Code: CodeSectionNotFound, Message: "section not found"}
	ErrInvalidRegex    = &agentfiles.Error{Code: CodeInvalidRegex, Message: "invalid regular expression"}
	ErrInvalidRoot     = &agentfiles.Error{Code: CodeInvalidRoot, Message: "invalid root"}
)

// Codes lists every code package fileid can return: its own, agentfiles.CodeInvalidArgument
// (a bad include pattern, an empty query or section list), and CodeCanceled and CodeTimeout,
// which [agentfiles.ErrorCode] gives the context errors of New, Warm and Search.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeInvalidFileID, CodeFileIDNotFound, CodeSectionNotFound, CodeInvalidRegex, CodeInvalidRoot,
		agentfiles.CodeInvalidArgument, agentfiles.CodeCanceled, agentfiles.CodeTimeout,
	}
}
