package driver

import "context"

// BulkWriter is an optional interface of a WriteTx that writes many files in one step
// (pgstore: one statement per batch, the files passed as array parameters, that inserts and
// updates them all, adds new files to the grep index in the same transaction, and queues their
// index jobs). Import
// uses it when the WriteTx implements it; otherwise it calls Put per file. The result must
// equal that of Put on each file in order (history, outbox, byte counts). PutMany may return
// before the batch is written and report its failure at the transaction's next call (pgstore
// does, so that the database writes one batch while the caller reads the next).
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

// ContentLister is an optional interface of a ReadTx that reads the files below a prefix with
// their content, in path order, a page at a time (pgstore: one statement per page, no lookup
// per path). Export uses it when the ReadTx implements it; otherwise it lists the files and
// reads them with GetMany.
type ContentLister interface {
	// ListContent calls fn for each of the first limit active files (limit > 0) whose path
	// starts with prefix and sorts after after (bytewise; "" for the first page), in path
	// order, and stops at fn's first error, which it returns. The File's Content is valid
	// only during the call; fn copies what it keeps.
	ListContent(ctx context.Context, prefix, after string, limit int, fn func(File) error) error
}
