package driver

import "context"

// ProjectLister is an optional interface of a Store that lists a tenant's projects. Package
// search uses it to answer file_search with project "*" (every project of the caller); a
// Searcher over a store without it refuses "*" with INVALID_ARGUMENT.
type ProjectLister interface {
	// ListProjects returns the names of tenant's projects that hold at least one active file,
	// sorted bytewise, at most limit of them (limit <= 0: all). Another tenant's projects never
	// appear; a tenant without files gets an empty list and no error.
	ListProjects(ctx context.Context, tenant string, limit int) ([]string, error)
}
