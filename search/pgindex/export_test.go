package pgindex

// SchemaVersion is the newest schema version this package's embedded migrations create.
func SchemaVersion() int { return schema.Latest() }
