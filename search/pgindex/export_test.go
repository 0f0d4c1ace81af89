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
