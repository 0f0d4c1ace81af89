package pgindex

// SchemaVersion is the newest schema version this package's embedded migrations create.
func SchemaVersion() int { return schema.Latest() }

// UsesPGVector reports whether semantic queries use the pgvector extension (decided by New).
func (ix *Index) UsesPGVector() bool { return ix.pgvector }
