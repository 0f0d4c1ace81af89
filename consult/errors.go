package consult

import "github.com/agentfiles/agentfiles"

// Codes that only package consult produces (package filecontext reports the file ones too).
// Errors are *[agentfiles.Error]: branch on the code with errors.Is against the Err* sentinels
// (or the agentfiles ones for shared codes such as agentfiles.ErrNotFound), or with
// [agentfiles.ErrorCode]; never on the message text.
var (
	// CodeInvalidEntry: a malformed files-list entry (empty, a NUL byte, a class that cannot match).
	CodeInvalidEntry = agentfiles.NewCode("INVALID_ENTRY", agentfiles.KindInvalid)
	// CodeNotAbsolute: a files-list entry does not start with "/".
	CodeNotAbsolute = agentfiles.NewCode("NOT_ABSOLUTE", agentfiles.KindInvalid)
	// CodeWildcardInDirectory: *, ? or [...] before the last path element.
	CodeWildcardInDirectory = agentfiles.NewCode("WILDCARD_IN_DIRECTORY", agentfiles.KindInvalid)
	// CodeMissingExtension: a wildcard pattern without a literal extension.
	CodeMissingExtension = agentfiles.NewCode("MISSING_EXTENSION", agentfiles.KindInvalid)
	// CodeRecursiveWildcard: "**" anywhere in an entry.
	CodeRecursiveWildcard = agentfiles.NewCode("RECURSIVE_WILDCARD", agentfiles.KindInvalid)
	// CodeNotRegular: a device, socket, FIFO, symlink loop or dangling symlink; only regular
	// files are sent.
	CodeNotRegular = agentfiles.NewCode("NOT_REGULAR", agentfiles.KindUnprocessable)
	// CodeIgnored: the path is on the ignore list and is never sent, even when named.
	CodeIgnored = agentfiles.NewCode("IGNORED", agentfiles.KindPermission)
	// CodeBinaryFile: the file is not UTF-8 text; it is reported, not sent.
	CodeBinaryFile = agentfiles.NewCode("BINARY_FILE", agentfiles.KindUnprocessable)
	// CodeFileTooLarge: one file exceeds the per-file byte or token limit.
	CodeFileTooLarge = agentfiles.NewCode("FILE_TOO_LARGE", agentfiles.KindTooLarge)
	// CodeBudgetExceeded: adding the file (or more files) would exceed a total limit.
	CodeBudgetExceeded = agentfiles.NewCode("BUDGET_EXCEEDED", agentfiles.KindTooLarge)
	// CodeContextTooLarge: the prompt does not fit the model's context window.
	CodeContextTooLarge = agentfiles.NewCode("CONTEXT_TOO_LARGE", agentfiles.KindTooLarge)
	// CodeModelError: the model provider failed or refused the request.
	CodeModelError = agentfiles.NewCode("MODEL_ERROR", agentfiles.KindUpstream)
	// CodeOutputExists: no free output file name could be found.
	CodeOutputExists = agentfiles.NewCode("OUTPUT_EXISTS", agentfiles.KindConflict)
)

// Sentinels for errors.Is, one per code of this package; only the code is compared.
var (
	ErrInvalidEntry        = &agentfiles.Error{Code: CodeInvalidEntry, Message: "invalid files-list entry"}
	ErrNotAbsolute         = &agentfiles.Error{Code: CodeNotAbsolute, Message: "path is not absolute"}
	ErrWildcardInDirectory = &agentfiles.Error{Code: CodeWildcardInDirectory, Message: "wildcard in a directory part"}
	ErrMissingExtension    = &agentfiles.Error{Code: CodeMissingExtension, Message: "wildcard pattern without an extension"}
	ErrRecursiveWildcard   = &agentfiles.Error{Code: CodeRecursiveWildcard, Message: "recursive wildcard ** is not supported"}
	ErrNotRegular          = &agentfiles.Error{Code: CodeNotRegular, Message: "not a regular file"}
	ErrIgnored             = &agentfiles.Error{Code: CodeIgnored, Message: "path is ignored"}
	ErrBinaryFile          = &agentfiles.Error{Code: CodeBinaryFile, Message: "binary file"}
	ErrFileTooLarge        = &agentfiles.Error{Code: CodeFileTooLarge, Message: "file too large"}
	ErrBudgetExceeded      = &agentfiles.Error{Code: CodeBudgetExceeded, Message: "budget exceeded"}
	ErrContextTooLarge     = &agentfiles.Error{Code: CodeContextTooLarge, Message: "prompt exceeds the model's context window"}
	ErrModelError          = &agentfiles.Error{Code: CodeModelError, Message: "model error"}
	ErrOutputExists        = &agentfiles.Error{Code: CodeOutputExists, Message: "output file exists"}
)

// Codes lists every code package consult can return: its own; the shared IS_DIRECTORY,
// NOT_FOUND and PERMISSION_DENIED of files-list entries; INVALID_ARGUMENT for a bad request
// field or option; TIMEOUT when the model does not finish in time; CANCELED, which
// [agentfiles.ErrorCode] gives the context error of a caller that went away; and INTERNAL for an
// unexpected I/O failure.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeInvalidEntry, CodeNotAbsolute, CodeWildcardInDirectory, CodeMissingExtension,
		CodeRecursiveWildcard, CodeNotRegular, CodeIgnored, CodeBinaryFile, CodeFileTooLarge,
		CodeBudgetExceeded, CodeContextTooLarge, CodeModelError, CodeOutputExists,
		agentfiles.CodeIsDirectory, agentfiles.CodeNotFound, agentfiles.CodePermissionDenied,
		agentfiles.CodeInvalidArgument, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
		agentfiles.CodeInternal,
	}
}
