package vault

import "github.com/agentfiles/agentfiles"

// CodeCredentialUnavailable: a sealed credential envelope is missing, expired, or cannot be
// opened (wrong AAD, unknown KEK, tampered); retry later, or do without the caller's key.
var CodeCredentialUnavailable = agentfiles.NewCode("CREDENTIAL_UNAVAILABLE", agentfiles.KindUnavailable)

// ErrCredentialUnavailable is the sentinel of CodeCredentialUnavailable, for errors.Is.
var ErrCredentialUnavailable = &agentfiles.Error{Code: CodeCredentialUnavailable, Message: "credential unavailable"}

// Codes lists every code the package returns: its own CREDENTIAL_UNAVAILABLE, INVALID_CONFIG
// from New, UNAVAILABLE when the store fails while sealing or deleting, TIMEOUT and CANCELED
// when the context ends, and INTERNAL.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{
		CodeCredentialUnavailable, agentfiles.CodeInvalidConfig, agentfiles.CodeUnavailable,
		agentfiles.CodeTimeout, agentfiles.CodeCanceled, agentfiles.CodeInternal,
	}
}
