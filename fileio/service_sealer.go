package fileio

import (
	"context"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
)

// CredentialSealer seals the caller's API key for the async indexer (package search implements
// it with AES-GCM envelopes). When the Service has one (Options.CredentialSealer), every
// successful write calls it and stores the returned reference in the job via
// PutOptions.CredentialRef. Implementations must be safe for concurrent use.
type CredentialSealer interface {
	Seal(ctx context.Context, ac agentfiles.AuthContext, scope driver.Scope, path string) (ref string, err error)
}
