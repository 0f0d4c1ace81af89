package pgstore

// SQLPutMany exposes PutMany's statement to the test of its generic plan.
const SQLPutMany = sqlPutMany

// SQLWriteIfAllowed exposes the conditional write's statement to the test of its generic plan.
const SQLWriteIfAllowed = sqlWriteIfAllowed
