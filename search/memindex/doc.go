// Package memindex is the in-memory [indexdriver.Index]: the embedded default, and the reference
// that every other index is compared with by search/indextest.
//
// # Layout
//
// Each (tenant, project) has its own chunk slots, an inverted index from term to postings
// (slot and term frequency packed in 4 bytes), the project's BM25 statistics, its files sorted
// by path, and one vector store per embedding model. A chunk keeps its own terms as
// varint-coded IDs of the project's posting lists (2–4 bytes a term, no strings), and its byte
// offsets and content hash but not its text: the text stays in the file store, from which the
// Searcher reads the byte ranges of the chunks it returns (see indexdriver.Index), so the index does
// not hold a second copy of the project's text. A freed slot is reused only once no posting names it, which
// is what lets a posting do without a generation number. Lexical queries walk the postings of
// the query terms and score them with [indexdriver.BM25]. Replacing a file swaps all its chunks
// under the project's write lock, so readers see the old chunks or the new ones, never a mix.
//
// # Cost as a project grows
//
// For a project of n files, indexing one file costs its own chunks' postings and vectors,
// O(log n) to find it (FileStates, the Indexer's staleness check, is a binary search in the
// sorted files) and one insertion into the sorted file list, a move of up to n pointers
// (about 50 µs at 100,000 files). Removed chunks' postings are purged once an eighth of the
// slots wait, so that pass is shared by that many chunks.
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
//     are re-scored with [indexdriver.Dot], and the best TopK of those are returned.
//
// The result is exactly that of an exhaustive [indexdriver.Dot] scan, scores included (the tests
// compare both, ties and near-ties closer than float32 rounding among them); when the bound
// cannot be used (vectors with non-finite or enormous norms), every chunk is re-scored. At 100k
// chunks of 256 dimensions the first pass reads about 10 MB for a short query instead of 100 MB;
// BenchmarkSemantic compares it with the exhaustive scan in the same run.
//
// Large vectors (from 512 dimensions: neural embedders) also keep int8 codes, one byte per
// dimension with a per-vector scale and the norm of its rounding residual. A query whose vector
// is at least a quarter non-zero takes a first pass over the codes instead: integer dot
// products with the query quantised to int16 (AVX2 on amd64, sixteen products per instruction;
// a portable loop elsewhere), each turned into an interval that provably holds the chunk's
// [indexdriver.Dot] score (Cauchy–Schwarz on both residuals plus the float32 rounding bound). Every
// chunk whose interval reaches the TopK-th best lower bound is re-scored exactly, so the answer
// is again that of the exhaustive scan; at 1,536 dimensions the first pass reads a quarter of
// the bytes. Such stores keep 8-row float tiles so the re-scored rows are cheap to gather.
// BenchmarkSemanticDense1536 compares it with the float first pass in the same run.
//
// A store starts out keeping no floats at all, only exact codes: as long as every vector it
// receives is, bit for bit, float32(code·scale) for codes in −127…127 and a per-vector float32
// scale (the hashing embedder's vectors are: sums of ±1, ±½ and ±¼ scaled by one factor), the
// codes are the vectors, a quarter of their size, and every query takes the int8 first pass with
// rows decoded exactly for re-scoring. The first vector without such codes moves the store to
// the float tiles for good.
//
// ScoreChunks, the Searcher's second step, looks the named chunks up by file and chunk index
// and scores them from the same term frequencies and vectors: BM25 summed over the query terms
// in order, and [indexdriver.Dot].
//
// Nothing is persisted: a process restart starts empty, and the indexer indexes files as jobs
// arrive; search.Indexer.Sync fills it from a persistent store at start-up. Use search/pgindex
// for durability.
package memindex
