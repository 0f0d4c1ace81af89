package filecontext

import (
	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
)

// Codes lists every code package filecontext can return. It declares none of its own: a file
// that is not sent is reported with the code package consult gives the same problem
// (NOT_REGULAR, BINARY_FILE, FILE_TOO_LARGE, BUDGET_EXCEEDED; see [ReadFilesFile.Err]) or a
// shared one (NOT_FOUND, IS_DIRECTORY, PERMISSION_DENIED, INVALID_ARGUMENT for a bad path or
// request, INTERNAL for a read that failed otherwise); [Context.Append] and
// [Context.AnswerReadFiles] refuse a second answer to a tool call, or content already in context,
// with ALREADY_EXISTS; and a call whose context ends fails with CANCELED or TIMEOUT.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeNotFound, agentfiles.CodeIsDirectory, agentfiles.CodePermissionDenied,
		consult.CodeNotRegular, consult.CodeBinaryFile, consult.CodeFileTooLarge, consult.CodeBudgetExceeded,
		agentfiles.CodeInvalidArgument, agentfiles.CodeAlreadyExists, agentfiles.CodeCanceled, agentfiles.CodeTimeout,
		agentfiles.CodeInternal,
	}
}
