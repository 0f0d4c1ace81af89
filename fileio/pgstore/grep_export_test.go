package pgstore

import "context"

// IndexGrepBatch runs one batch of the trigram indexer (one transaction) and returns the
// files and bytes it indexed. For tests.
func (s *Store) IndexGrepBatch(ctx context.Context) (files, bytes int64, err error) {
	return s.indexGrepBatch(ctx)
}
