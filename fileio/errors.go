package fileio

import "github.com/agentfiles/agentfiles"

// Codes that only package fileio produces. Every error of the Service and of a Store is an
// *[agentfiles.Error]; the codes fileio shares with other packages (NOT_FOUND, ALREADY_EXISTS,
// IS_DIRECTORY, PERMISSION_DENIED, RESOURCE_BUSY, UNAVAILABLE, …) are the agentfiles ones.
// Branch with errors.Is against a sentinel (ErrNotEmpty, agentfiles.ErrNotFound) or with
// [agentfiles.ErrorCode]; never on the message text.
var (
	// CodeNotDirectory: a write below a file, or a list of a file with depth >= 1.
	CodeNotDirectory = agentfiles.NewCode("NOT_DIRECTORY", agentfiles.KindConflict)
	// CodeInvalidPath: a path or project name breaks the path rules (see ValidatePath).
	CodeInvalidPath = agentfiles.NewCode("INVALID_PATH", agentfiles.KindInvalid)
	// CodeInvalidOffset: a negative offset, an OVERWRITE past the end, a TRUNCATE at an
	// offset, or an offset inside a multi-byte character.
	CodeInvalidOffset = agentfiles.NewCode("INVALID_OFFSET", agentfiles.KindInvalid)
	// CodeNotEmpty: a delete of a directory with files below it, without recursive.
	CodeNotEmpty = agentfiles.NewCode("NOT_EMPTY", agentfiles.KindConflict)
	// CodeQuotaExceeded: the file would exceed max_file_bytes or the project max_project_bytes.
	CodeQuotaExceeded = agentfiles.NewCode("QUOTA_EXCEEDED", agentfiles.KindQuota)
	// CodeConflict: the file changed since the caller read it (Write's or Edit's ExpectedSHA256).
	CodeConflict = agentfiles.NewCode("CONFLICT", agentfiles.KindConflict)
	// CodeNoMatch: an edit's old_str occurs nowhere in the file.
	CodeNoMatch = agentfiles.NewCode("NO_MATCH", agentfiles.KindUnprocessable)
	// CodeAmbiguousMatch: an edit's old_str occurs more than once and replace_all is not set;
	// the message names the lines of the matches.
	CodeAmbiguousMatch = agentfiles.NewCode("AMBIGUOUS_MATCH", agentfiles.KindUnprocessable)
)

// Sentinels for errors.Is, one per code of this package; only the code is compared.
var (
	ErrNotDirectory   = &agentfiles.Error{Code: CodeNotDirectory, Message: "not a directory"}
	ErrInvalidPath    = &agentfiles.Error{Code: CodeInvalidPath, Message: "invalid path"}
	ErrInvalidOffset  = &agentfiles.Error{Code: CodeInvalidOffset, Message: "invalid offset"}
	ErrNotEmpty       = &agentfiles.Error{Code: CodeNotEmpty, Message: "directory not empty"}
	ErrQuotaExceeded  = &agentfiles.Error{Code: CodeQuotaExceeded, Message: "quota exceeded"}
	ErrConflict       = &agentfiles.Error{Code: CodeConflict, Message: "file changed"}
	ErrNoMatch        = &agentfiles.Error{Code: CodeNoMatch, Message: "no match"}
	ErrAmbiguousMatch = &agentfiles.Error{Code: CodeAmbiguousMatch, Message: "ambiguous match"}
)

// Codes lists every code the Service and the stores of fileio/memstore and fileio/pgstore can
// return, its own and the shared ones.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeNotFound, agentfiles.CodeAlreadyExists, agentfiles.CodeIsDirectory,
		CodeNotDirectory, CodeInvalidPath, CodeInvalidOffset, CodeNotEmpty,
		CodeConflict, CodeNoMatch, CodeAmbiguousMatch, CodeInvalidPatch,
		agentfiles.CodePermissionDenied, agentfiles.CodePayloadTooLarge, CodeQuotaExceeded,
		agentfiles.CodeRateLimited, agentfiles.CodeResourceBusy, agentfiles.CodeUnavailable,
		agentfiles.CodeInvalidArgument, agentfiles.CodeInvalidPattern, agentfiles.CodeInvalidConfig, agentfiles.CodeTimeout,
		agentfiles.CodeCanceled, agentfiles.CodeInternal,
	}
}
