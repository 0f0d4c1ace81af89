package provider

import (
	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/search"
)

// Codes lists every code the clients return: SEARCH_BACKEND_ERROR when the provider fails,
// CREDENTIAL_UNAVAILABLE without a caller key, INVALID_CONFIG for a bad endpoint, and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		search.CodeSearchBackendError, agentfiles.CodeCredentialUnavailable,
		agentfiles.CodeInvalidConfig, agentfiles.CodeInternal,
	}
}
