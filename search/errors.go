package search

import (
	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/vault"
)

// Codes lists every code package search returns. All are shared: INVALID_QUERY (a blank
// query), INVALID_ARGUMENT (another argument is malformed), PERMISSION_DENIED (no caller
// identity in the context), SEARCH_BACKEND_ERROR (the index, an embedding or a rerank provider
// failed), UNAVAILABLE (the store or the index is unreachable for now), INVALID_CONFIG (a
// configuration key or constructor option), vault's CREDENTIAL_UNAVAILABLE (no caller key for a
// provider), TIMEOUT and CANCELED (the context ended), and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeInvalidQuery, agentfiles.CodeInvalidArgument, agentfiles.CodePermissionDenied,
		agentfiles.CodeSearchBackendError, agentfiles.CodeUnavailable, agentfiles.CodeInvalidConfig,
		vault.CodeCredentialUnavailable, agentfiles.CodeTimeout, agentfiles.CodeCanceled,
		agentfiles.CodeInternal,
	}
}
