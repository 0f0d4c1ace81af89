package pgindex

// SchemaVersion is the newest schema version this package's embedded migrations create.
func SchemaVersion() int { return schema.Latest() }

// SplitScansFrom makes semantic first passes split across CPUs from n chunks on, until the
// returned function restores the default.
func SplitScansFrom(n int) (restore func()) {
	old := parallelScanChunks
	parallelScanChunks = n
	return func() { parallelScanChunks = old }
}

// SkipCodeBackfill makes New leave vector rows without codes as they are, until the returned
// function restores the default.
func SkipCodeBackfill() (restore func()) {
	backfillOnStart = false
	return func() { backfillOnStart = true }
}

// WaitBackfill waits for the BackfillCodes that New started in the background.
func (ix *Index) WaitBackfill() { <-ix.backfilled }

// SplitStreamsFrom makes a semantic query read the codes of the files past the cache in up to
// streams parallel streams of at least n chunks each, until the returned function restores the
// defaults.
func SplitStreamsFrom(n, streams int) (restore func()) {
	oldN, oldStreams := streamChunks, maxCodeStreams
	streamChunks, maxCodeStreams = n, streams
	return func() { streamChunks, maxCodeStreams = oldN, oldStreams }
}
