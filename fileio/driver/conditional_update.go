package driver

import "context"

// ConditionalUpdater is an optional interface of a Store that makes a ConditionalWriter's
// write as a whole Update of its own, so that the transaction, the project lock, the write and
// the commit cost one step (pgstore: one round trip instead of three). Service.Write uses it for
// TRUNCATE and APPEND when the Store implements it, and falls back to Update with the
// WriteTx's optional interfaces when the store declines a write its rules allow.
//
// Because the transaction has committed when UpdateIfAllowed returns, the Service cannot roll
// back a write it would refuse: an implementation must write exactly when
// ConditionalWrite.Allows(Check) holds, and commit it only when opts.Quota lets it (else it
// returns the *QuotaError Update would, having kept nothing).
type ConditionalUpdater interface {
	// UpdateIfAllowed does what Update(ctx, scope, opts, fn) does when fn only calls the
	// ConditionalWriter's WriteIfAllowed(ctx, w, put) and returns nil: the same lock, lock
	// timeout (RESOURCE_BUSY), history, byte counts and outbox job, in one transaction that
	// commits when the write is made and leaves no trace otherwise. It returns what
	// WriteIfAllowed returned, or the error Update would have returned.
	UpdateIfAllowed(ctx context.Context, scope Scope, opts UpdateOptions, w ConditionalWrite, put PutOptions) (ConditionalResult, error)
}
