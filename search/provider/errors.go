package provider

import (
	"github.com/agentfiles/agentfiles"
)

// Codes lists every code the clients return: MODEL_ERROR when the provider fails or answers
// with something unusable, TIMEOUT when it does not answer in time, CANCELED when the caller
// goes away, CREDENTIAL_UNAVAILABLE without a caller key, INVALID_CONFIG for a bad endpoint,
// and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeModelError, agentfiles.CodeTimeout, agentfiles.CodeCanceled, agentfiles.CodeCredentialUnavailable,
		agentfiles.CodeInvalidConfig, agentfiles.CodeInternal,
	}
}
