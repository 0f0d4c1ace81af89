// Package memindex is the in-memory [search.Index]: the embedded default, and the reference
// that every other index is compared with by search/indextest.
//
// # Layout
//
// Each (tenant, project) has its own chunk slots, an inverted index from term to postings
// (slot, generation, term frequency), the project's BM25 statistics, its files sorted by path,
// and one vector store per embedding model. Lexical queries walk the postings of the query terms
// and score them with [search.BM25]. Replacing a file swaps all its chunks under the project's
// write lock, so readers see the old chunks or the new ones, never a mix.
//
// # Semantic search
//
// Vectors are stored in tiles of up to 1,024 chunks, dimension-major inside a tile, so the
// values of one dimension for 1,024 chunks are 4 KiB of consecutive memory. A query runs two
// passes:
//
//   - a first pass streams, tile by tile, only the dimensions where the query vector is not
//     zero (about 10% of them for the hashing embedder and a query of a few words; all of them
//     for a neural embedder) and accumulates an approximate dot product per chunk, four
//     dimensions per pass over the tile;
//   - the chunks whose approximate score is within a proven rounding bound of the TopK-th best
//     are re-scored with [search.Dot], and the best TopK of those are returned.
//
// The result is exactly that of an exhaustive [search.Dot] scan, scores included (the tests
// compare both, ties and near-ties closer than float32 rounding among them); when the bound
// cannot be used (vectors with non-finite or enormous norms), every chunk is re-scored. At 100k
// chunks of 256 dimensions the first pass reads about 10 MB for a short query instead of 100 MB;
// BenchmarkSemantic compares it with the exhaustive scan in the same run.
//
// ScoreChunks, the Searcher's second step, looks the named chunks up by file and chunk index
// and scores them from the same term frequencies and vectors: BM25 summed over the query terms
// in order, and [search.Dot].
//
// Nothing is persisted: a process restart starts empty, and the indexer indexes files as jobs
// arrive; search.Indexer.Sync fills it from a persistent store at start-up. Use search/pgindex
// for durability.
package memindex
