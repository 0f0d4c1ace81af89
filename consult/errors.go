package consult

import "github.com/agentfiles/agentfiles"

// CodeInvalidEntry: a malformed files-list entry (empty, a NUL byte, a class that cannot match).
var (
	CodeInvalidEntry = agentfiles.NewCode("INVALID_ENTRY", agentfiles.KindInvalid)
	ErrInvalidEntry  = &agentfiles.Error{Code: CodeInvalidEntry, Message: "invalid files-list entry"}
)

// CodeNotAbsolute: a files-list entry does not start with "/".
var (
	CodeNotAbsolute = agentfiles.NewCode("NOT_ABSOLUTE", agentfiles.KindInvalid)
	ErrNotAbsolute  = &agentfiles.Error{Code: CodeNotAbsolute, Message: "path is not absolute"}
)

// CodeWildcardInDirectory: *, ? or [...] before the last path element.
var (
	CodeWildcardInDirectory = agentfiles.NewCode("WILDCARD_IN_DIRECTORY", agentfiles.KindInvalid)
	ErrWildcardInDirectory  = &agentfiles.Error{Code: CodeWildcardInDirectory, Message: "wildcard in a directory part"}
)

// CodeMissingExtension: a wildcard pattern without a literal extension.
var (
	CodeMissingExtension = agentfiles.NewCode("MISSING_EXTENSION", agentfiles.KindInvalid)
	ErrMissingExtension  = &agentfiles.Error{Code: CodeMissingExtension, Message: "wildcard pattern without an extension"}
)

// CodeRecursiveWildcard: "**" anywhere in an entry.
var (
	CodeRecursiveWildcard = agentfiles.NewCode("RECURSIVE_WILDCARD", agentfiles.KindInvalid)
	ErrRecursiveWildcard  = &agentfiles.Error{Code: CodeRecursiveWildcard, Message: "recursive wildcard ** is not supported"}
)

// CodeNotRegular: a device, socket, FIFO, symlink loop or dangling symlink; only regular
// files are sent.
var (
	CodeNotRegular = agentfiles.NewCode("NOT_REGULAR", agentfiles.KindUnprocessable)
	ErrNotRegular  = &agentfiles.Error{Code: CodeNotRegular, Message: "not a regular file"}
)

// CodeIgnored: the path is on the ignore list and is never sent, even when named.
var (
	CodeIgnored = agentfiles.NewCode("IGNORED", agentfiles.KindPermission)
	ErrIgnored  = &agentfiles.Error{Code: CodeIgnored, Message: "path is ignored"}
)

// CodeBinaryFile: the file is not UTF-8 text; it is reported, not sent.
var (
	CodeBinaryFile = agentfiles.NewCode("BINARY_FILE", agentfiles.KindUnprocessable)
	ErrBinaryFile  = &agentfiles.Error{Code: CodeBinaryFile, Message: "binary file"}
)

// CodeFileTooLarge: one file exceeds the per-file byte or token limit.
var (
	CodeFileTooLarge = agentfiles.NewCode("FILE_TOO_LARGE", agentfiles.KindTooLarge)
	ErrFileTooLarge  = &agentfiles.Error{Code: CodeFileTooLarge, Message: "file too large"}
)

// CodeBudgetExceeded: adding the file (or more files) would exceed a total limit.
var (
	CodeBudgetExceeded = agentfiles.NewCode("BUDGET_EXCEEDED", agentfiles.KindTooLarge)
	ErrBudgetExceeded  = &agentfiles.Error{Code: CodeBudgetExceeded, Message: "budget exceeded"}
)

// CodeContextTooLarge: the prompt does not fit the model's context window.
var (
	CodeContextTooLarge = agentfiles.NewCode("CONTEXT_TOO_LARGE", agentfiles.KindTooLarge)
	ErrContextTooLarge  = &agentfiles.Error{Code: CodeContextTooLarge, Message: "prompt exceeds the model's context window"}
)

// CodeModelError: the model provider failed or refused the request. It is
// agentfiles.CodeModelError, the code of every outside provider's failure (embeddings and
// rerank too).
var (
	CodeModelError = agentfiles.CodeModelError
	ErrModelError  = agentfiles.ErrModelError
)

// CodeOutputExists: no free output file name could be found.
var (
	CodeOutputExists = agentfiles.NewCode("OUTPUT_EXISTS", agentfiles.KindConflict)
	ErrOutputExists  = &agentfiles.Error{Code: CodeOutputExists, Message: "output file exists"}
)

// Codes lists every code package consult can return: its own; the shared IS_DIRECTORY,
// NOT_FOUND and PERMISSION_DENIED of files-list entries; INVALID_ARGUMENT for a bad request
// field or option; TIMEOUT when the model does not finish in time; CANCELED, which
// [agentfiles.ErrorCode] gives the context error of a caller that went away; and INTERNAL for an
// unexpected I/O failure.
//
// Each code of this package (package filecontext reports the file ones too) is declared with
// its sentinel (ErrInvalidEntry for CodeInvalidEntry, …), whose Message is a placeholder:
// errors.Is compares only the code. Errors are *[agentfiles.Error]: branch on the code with
// errors.Is against the sentinels (or the agentfiles ones for shared codes such as
// agentfiles.ErrNotFound), or with [agentfiles.ErrorCode]; never on the message text.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeInvalidEntry, CodeNotAbsolute, CodeWildcardInDirectory, CodeMissingExtension,
		CodeRecursiveWildcard, CodeNotRegular, CodeIgnored, CodeBinaryFile, CodeFileTooLarge,
		CodeBudgetExceeded, CodeContextTooLarge, CodeModelError, CodeOutputExists, CodeOutsideRoots,
		agentfiles.CodeIsDirectory, agentfiles.CodeNotFound, agentfiles.CodePermissionDenied,
		agentfiles.CodeInvalidArgument, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
		agentfiles.CodeInternal,
	}
}
