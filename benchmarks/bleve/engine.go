package blevebench

// Doc is one document (one chunk, for agentfiles) of a collection.
type Doc struct {
	ID   string
	Text string
}

// Engine indexes documents and ranks them for a query. Implementations are not safe for
// concurrent use unless they say so.
type Engine interface {
	// Name says which engine, analyzer and scoring model this is, for reports.
	Name() string
	// Add indexes docs. IDs must be unique across all calls.
	Add(docs []Doc) error
	// Search returns the IDs of the k best documents for query, best first.
	Search(query string, k int) ([]string, error)
	// Close releases the index.
	Close() error
}
