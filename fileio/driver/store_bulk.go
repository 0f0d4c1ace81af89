package driver

import "context"

// BulkWriter is an optional interface of a WriteTx that writes many files in one step
// (pgstore: one statement per batch, the files passed as array parameters, that inserts and
// updates them all, adds new files to the grep index in the same transaction, and queues their
// index jobs). Import
// uses it when the WriteTx implements it; otherwise it calls Put per file. The result must
// equal that of Put on each file in order (history, outbox, byte counts).
type BulkWriter interface {
	// PutMany creates or replaces each file (paths unique within one call).
	PutMany(ctx context.Context, files []File, opts BulkOptions) error
}

// BulkOptions are the optional parts of a BulkWriter.PutMany.
type BulkOptions struct {
	// Refs holds the credential reference of each file ("" for none); nil or as long as the
	// files.
	Refs []string
	// DeferIndex leaves the files to a store's background work for its search indexes
	// (pgstore: grep's trigram index), as Put does, instead of indexing them in the write.
	DeferIndex bool
}
