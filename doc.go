// Package agentfiles holds the vocabulary every agentfiles package shares: the one error type
// with its machine-stable codes, and the caller's identity.
//
// The tool families live in their own packages (fileid, expr, consult, fileio, search) and
// never import each other's errors: they all return *[Error], so errors.Is and errors.As work
// the same whatever package an error came from, and a binding (adapters/mcpsdk,
// adapters/httpapi) needs to know nothing about the package to report it.
//
// # Errors
//
// An [Error] carries a [Code] (a machine-stable string such as NOT_FOUND), a message written for
// a human or a model that says what to do next, the offending argument when there is one, and a
// wrapped cause that is kept for logs and errors.Unwrap but never shown to an agent.
//
// Every Code belongs to a [Kind] — invalid request, not found, conflict, temporarily
// unavailable, … — which says what the caller can do about it: the bindings map kinds to HTTP
// statuses, and [Code.Retryable] (true for rate limits, busy or unavailable backends and
// timeouts) is sent on the wire so that a client knows whether to try again.
//
// Codes that more than one package produces are declared here (CodeNotFound, CodeInternal, …)
// with a sentinel for errors.Is (ErrNotFound, …). A package declares its own codes with
// [NewCode] when only it produces them (fileid.CodeInvalidFileID) and lists all it can return
// in its Codes function.
//
//	if errors.Is(err, agentfiles.ErrNotFound) { … }          // any package's NOT_FOUND
//	if agentfiles.ErrorCode(err).Retryable() { … }           // back off and try again
//	var e *agentfiles.Error
//	if errors.As(err, &e) { log.Print(e.Code, e.Arg) }
//
// # Identity
//
// An [AuthContext] is the trusted identity of a caller: the hex SHA-256 of its API key is its
// tenant. A binding authenticates a request once and stores the AuthContext in the request's
// context with [WithAuth]; services read it with [AuthFromContext] and never parse headers.
package agentfiles
