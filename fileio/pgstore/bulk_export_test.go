package pgstore

// SQLPutMany exposes PutMany's statement to the test of its generic plan.
const SQLPutMany = sqlPutMany

// SQLWriteIfAllowed exposes the conditional write's statement to the test of its generic plan.
const SQLWriteIfAllowed = sqlWriteIfAllowed

// SQLBulkProbe, SQLDelete, SQLMove and SQLStatMany expose the statements whose generic plans
// TestWritesProbeThePathIndexOnEmptyTable checks.
const (
	SQLBulkProbe = sqlBulkProbe
	SQLDelete    = sqlDelete
	SQLMove      = sqlMove
	SQLStatMany  = sqlStatMany
)
