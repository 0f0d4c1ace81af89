package agentfiles

import (
	"context"
	"errors"
)

// Kind is the class of an error: what its caller can do about it. Every [Code] has one Kind.
// Bindings map kinds, not individual codes, to protocol statuses, so a new code never needs a
// new table entry. The zero Kind is KindInternal.
type Kind uint8

// The kinds, with the HTTP status the bindings give each.
const (
	KindInternal        Kind = iota // an unexpected failure or a bug; 500
	KindInvalid                     // the request is malformed: fix the argument named; 400
	KindUnauthenticated             // no credentials, or credentials not accepted; 401
	KindPermission                  // the caller may not do this; 403
	KindNotFound                    // what the request names does not exist; 404
	KindUnsupported                 // the operation is not offered this way; 405
	KindConflict                    // the current state forbids the request (exists, not empty, changed); 409
	KindTooLarge                    // the request or its result is over a size limit; 413
	KindUnprocessable               // well formed but cannot be carried out as given (a template fails); 422
	KindRateLimited                 // too many requests: slow down and retry; 429
	KindCanceled                    // the caller went away; 499
	KindUpstream                    // an outside provider (model, embedding, rerank) failed; 502
	KindUnavailable                 // a backend is down or busy for now: retry later; 503
	KindTimeout                     // the operation ran out of time; 504
	KindQuota                       // a storage quota is used up: free space first; 507
	kindCount
)

var kindNames = [kindCount]string{
	KindInternal: "internal", KindInvalid: "invalid", KindUnauthenticated: "unauthenticated",
	KindPermission: "permission", KindNotFound: "not found", KindUnsupported: "unsupported",
	KindConflict: "conflict", KindTooLarge: "too large", KindUnprocessable: "unprocessable",
	KindRateLimited: "rate limited", KindCanceled: "canceled", KindUpstream: "upstream",
	KindUnavailable: "unavailable", KindTimeout: "timeout", KindQuota: "quota",
}

// Kinds returns every Kind, in declaration order.
func Kinds() []Kind {
	out := make([]Kind, kindCount)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// String returns the kind's name ("not found").
func (k Kind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "unknown kind"
}

// Retryable reports whether the same request can succeed later unchanged: true for rate
// limits, busy or unavailable backends, failing providers and timeouts.
func (k Kind) Retryable() bool {
	switch k {
	case KindRateLimited, KindUpstream, KindUnavailable, KindTimeout:
		return true
	}
	return false
}

// Code is a machine-stable error code such as NOT_FOUND, together with its [Kind]. Callers
// compare codes (==, or errors.Is against a sentinel), never message text. The zero Code is
// treated as CodeInternal.
type Code struct {
	name string
	kind Kind
}

// NewCode declares a code. Packages call it once, in a package-level var, for the codes only
// they produce; the name must be UPPER_SNAKE_CASE and unique across the module (a test checks).
func NewCode(name string, kind Kind) Code { return Code{name: name, kind: kind} }

// String returns the code's wire name, "NOT_FOUND"; the zero Code is "INTERNAL".
func (c Code) String() string {
	if c.name == "" {
		return CodeInternal.name
	}
	return c.name
}

// Kind returns the code's class.
func (c Code) Kind() Kind { return c.kind }

// Retryable reports whether a request that failed with this code can succeed if retried
// unchanged later; see [Kind.Retryable].
func (c Code) Retryable() bool { return c.kind.Retryable() }

// Codes shared by more than one package. A package's own codes are declared in the package.
var (
	// CodeInvalidArgument: an argument is missing or malformed; Arg names it.
	CodeInvalidArgument = NewCode("INVALID_ARGUMENT", KindInvalid)
	// CodeInvalidConfig: a configuration key or flag has a bad value; Arg names the key.
	CodeInvalidConfig = NewCode("INVALID_CONFIG", KindInvalid)
	// CodeUnauthenticated: the request carries no credentials, or they were not accepted.
	CodeUnauthenticated = NewCode("UNAUTHENTICATED", KindUnauthenticated)
	// CodePermissionDenied: the caller may not do this, or there is no caller identity.
	CodePermissionDenied = NewCode("PERMISSION_DENIED", KindPermission)
	// CodeNotFound: the file, path or resource does not exist.
	CodeNotFound = NewCode("NOT_FOUND", KindNotFound)
	// CodeAlreadyExists: something with that name exists already.
	CodeAlreadyExists = NewCode("ALREADY_EXISTS", KindConflict)
	// CodeIsDirectory: a file operation named a directory.
	CodeIsDirectory = NewCode("IS_DIRECTORY", KindConflict)
	// CodePayloadTooLarge: the request body or content is over the size limit.
	CodePayloadTooLarge = NewCode("PAYLOAD_TOO_LARGE", KindTooLarge)
	// CodeRateLimited: the caller sent too many requests; wait and retry.
	CodeRateLimited = NewCode("RATE_LIMITED", KindRateLimited)
	// CodeResourceBusy: a lock could not be taken in time; retry.
	CodeResourceBusy = NewCode("RESOURCE_BUSY", KindUnavailable)
	// CodeUnavailable: a backend (database, cache) is temporarily unreachable; retry later.
	CodeUnavailable = NewCode("UNAVAILABLE", KindUnavailable)
	// CodeCredentialUnavailable: a caller's sealed credential is missing, expired or cannot be
	// opened (wrong binding, unknown key, tampered); retry later, or do without the caller's key.
	CodeCredentialUnavailable = NewCode("CREDENTIAL_UNAVAILABLE", KindUnavailable)
	// CodeTimeout: the operation did not finish before its deadline.
	CodeTimeout = NewCode("TIMEOUT", KindTimeout)
	// CodeCanceled: the caller canceled the request.
	CodeCanceled = NewCode("CANCELED", KindCanceled)
	// CodeInternal: an unexpected failure; the message never carries internals.
	CodeInternal = NewCode("INTERNAL", KindInternal)
	// CodeInvalidPattern: a regular expression or glob does not compile; the message says why
	// and how to escape, Arg names the argument or holds the pattern.
	CodeInvalidPattern = NewCode("INVALID_PATTERN", KindInvalid)
	// CodeInvalidQuery: a search query is empty, or longer or richer than a query limit.
	CodeInvalidQuery = NewCode("INVALID_QUERY", KindInvalid)
	// CodeModelError: an outside model provider (chat, embedding or rerank) failed, refused the
	// request or answered with something unusable; retry later, or check the provider settings.
	CodeModelError = NewCode("MODEL_ERROR", KindUpstream)
)

// SharedCodes lists the codes declared in this package.
func SharedCodes() []Code {
	return []Code{
		CodeInvalidArgument, CodeInvalidConfig, CodeUnauthenticated,
		CodePermissionDenied, CodeNotFound, CodeAlreadyExists, CodeIsDirectory,
		CodePayloadTooLarge, CodeRateLimited, CodeResourceBusy, CodeUnavailable,
		CodeCredentialUnavailable, CodeTimeout, CodeCanceled, CodeInternal,
		CodeInvalidPattern, CodeInvalidQuery, CodeModelError,
	}
}

// Error is the one error type of every agentfiles package. Branch on Code with errors.Is
// against a sentinel (ErrNotFound, fileid.ErrInvalidFileID, …) or with [ErrorCode]; never on the
// message text. An *Error is immutable once returned and safe to share between goroutines.
type Error struct {
	Code    Code   // machine-stable code
	Message string // what went wrong and what to do next, for a human or a model
	Arg     string // the offending path, ID or argument, if any
	Err     error  // underlying cause, for logs and errors.Unwrap; never shown to agents
}

// NewError returns an *Error with the given code, message and offending argument.
func NewError(code Code, message, arg string) *Error {
	return &Error{Code: code, Message: message, Arg: arg}
}

// WrapError is NewError with an underlying cause. The message must stand on its own: the cause
// is for logs only and may hold SQL, addresses or file names an agent must not see.
func WrapError(code Code, message, arg string, cause error) *Error {
	return &Error{Code: code, Message: message, Arg: arg, Err: cause}
}

// Error renders "CODE: message (arg)".
func (e *Error) Error() string {
	s := e.Code.String() + ": " + e.Message
	if e.Arg != "" {
		s += " (" + e.Arg + ")"
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code, whatever package returned either,
// so that errors.Is(err, agentfiles.ErrNotFound) matches every NOT_FOUND error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code.String() == e.Code.String()
}

// ErrorCode returns the code of the first *Error in err's chain. Uncoded errors are
// CodeInternal, except context.DeadlineExceeded (CodeTimeout) and context.Canceled
// (CodeCanceled); a nil error has the zero Code.
func ErrorCode(err error) Code {
	if err == nil {
		return Code{}
	}
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	}
	return CodeInternal
}

// The words of the two context errors, the same from every package.
const (
	msgTimeout  = "the operation ran out of time before it completed; retry it, or narrow the request"
	msgCanceled = "the request was canceled before it completed"
)

// ContextError returns the coded error of an ended context: TIMEOUT when err is or wraps
// context.DeadlineExceeded, CANCELED when it is or wraps context.Canceled, with the same words
// whichever package meets it; the cause stays reachable (errors.Is(err, context.Canceled)
// holds). It returns nil for any other error, so callers write
//
//	if cerr := agentfiles.ContextError(err); cerr != nil { return cerr }
//
// An *Error in err's chain wins: its code is kept and ContextError returns err unchanged.
func ContextError(err error) error {
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		if e.Code == CodeTimeout || e.Code == CodeCanceled {
			return err
		}
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return WrapError(CodeTimeout, msgTimeout, "", err)
	case errors.Is(err, context.Canceled):
		return WrapError(CodeCanceled, msgCanceled, "", err)
	}
	return nil
}

// Sentinels for errors.Is, one per shared code. Only the code is compared.
var (
	ErrInvalidArgument       = &Error{Code: CodeInvalidArgument, Message: "invalid argument"}
	ErrInvalidConfig         = &Error{Code: CodeInvalidConfig, Message: "invalid configuration"}
	ErrUnauthenticated       = &Error{Code: CodeUnauthenticated, Message: "missing or invalid credentials"}
	ErrPermissionDenied      = &Error{Code: CodePermissionDenied, Message: "permission denied"}
	ErrNotFound              = &Error{Code: CodeNotFound, Message: "not found"}
	ErrAlreadyExists         = &Error{Code: CodeAlreadyExists, Message: "already exists"}
	ErrIsDirectory           = &Error{Code: CodeIsDirectory, Message: "is a directory"}
	ErrPayloadTooLarge       = &Error{Code: CodePayloadTooLarge, Message: "payload too large"}
	ErrRateLimited           = &Error{Code: CodeRateLimited, Message: "rate limited"}
	ErrResourceBusy          = &Error{Code: CodeResourceBusy, Message: "resource busy"}
	ErrUnavailable           = &Error{Code: CodeUnavailable, Message: "backend unavailable"}
	ErrCredentialUnavailable = &Error{Code: CodeCredentialUnavailable, Message: "credential unavailable"}
	ErrTimeout               = &Error{Code: CodeTimeout, Message: "timeout"}
	ErrCanceled              = &Error{Code: CodeCanceled, Message: "canceled"}
	ErrInternal              = &Error{Code: CodeInternal, Message: "internal error"}
	ErrInvalidPattern        = &Error{Code: CodeInvalidPattern, Message: "invalid pattern"}
	ErrInvalidQuery          = &Error{Code: CodeInvalidQuery, Message: "invalid query"}
	ErrModelError            = &Error{Code: CodeModelError, Message: "model error"}
)
