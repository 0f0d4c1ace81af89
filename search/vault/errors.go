package vault

import "github.com/agentfiles/agentfiles"

// Codes lists every code the package returns: CREDENTIAL_UNAVAILABLE when an envelope is
// missing, expired or cannot be opened, INVALID_CONFIG from New, UNAVAILABLE when the store
// fails while sealing or deleting, TIMEOUT and CANCELED when the context ends, and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		agentfiles.CodeCredentialUnavailable, agentfiles.CodeInvalidConfig, agentfiles.CodeUnavailable,
		agentfiles.CodeTimeout, agentfiles.CodeCanceled, agentfiles.CodeInternal,
	}
}
