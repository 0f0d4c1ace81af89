package search

import "github.com/agentfiles/agentfiles"

// The codes only package search and its indexes return.
var (
	// CodeInvalidQuery: a search query is empty or breaks a query limit. It is
	// agentfiles.CodeInvalidQuery, which every package gives an empty query.
	CodeInvalidQuery = agentfiles.CodeInvalidQuery
	// CodeSearchBackendError: the search index failed. An embedding or rerank provider's
	// failure is agentfiles.CodeModelError.
	CodeSearchBackendError = agentfiles.NewCode("SEARCH_BACKEND_ERROR", agentfiles.KindUpstream)
)

// Sentinels of the package's own codes, for errors.Is.
var (
	ErrInvalidQuery       = agentfiles.ErrInvalidQuery
	ErrSearchBackendError = &agentfiles.Error{Code: CodeSearchBackendError, Message: "search backend error"}
)

// Codes lists every code package search returns: INVALID_QUERY (a blank query, or one over a
// query limit), INVALID_PATTERN (a glob that does not compile), INVALID_ARGUMENT (another
// argument is malformed), PERMISSION_DENIED (no caller identity in the context),
// SEARCH_BACKEND_ERROR (the index failed), MODEL_ERROR (an embedding or a rerank provider
// failed), UNAVAILABLE (the store or the index is unreachable for now), INVALID_CONFIG (a
// configuration key or constructor option), CREDENTIAL_UNAVAILABLE (no caller key for a
// provider), TIMEOUT and CANCELED (the context ended), and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeInvalidQuery, agentfiles.CodeInvalidPattern, agentfiles.CodeModelError, agentfiles.CodeInvalidArgument, agentfiles.CodePermissionDenied,
		CodeSearchBackendError, agentfiles.CodeUnavailable, agentfiles.CodeInvalidConfig,
		agentfiles.CodeCredentialUnavailable, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
		agentfiles.CodeInternal,
	}
}
