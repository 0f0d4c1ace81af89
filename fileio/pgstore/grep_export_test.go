package pgstore

import (
	"context"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// IndexGrepRound runs one round of the trigram indexer (one turn of each tenant with files to
// index) and returns the files it indexed. For tests.
func (s *Store) IndexGrepRound(ctx context.Context) (files int64, err error) {
	return s.indexGrepRound(ctx)
}

// GrepCachedCost is what the grep cache accounts for a cached content of size bytes at path,
// and GrepScopeCost what it accounts for a project it holds anything of. For tests.
func GrepCachedCost(path string, size int64) int64 { return cachedCost(path, size) }

func GrepScopeCost(scope driver.Scope) int64 {
	return scopeCost + int64(len(scope.Tenant)+len(scope.Project))
}
