// Package memindex is the in-memory [search.Index]: the embedded default, and the reference
// that every other index is compared with by search/indextest.
//
// # Layout
//
// Each (tenant, project) has its own chunk slots, an inverted index from term to postings
// (slot, term frequency), the project's BM25 statistics, and each chunk's vector. Lexical
// queries walk the postings of the query terms and score them with [search.BM25]; semantic
// queries scan the project's vectors (a flat scan: exact, and fast enough for ~10^5 chunks per
// project). Replacing a file swaps all its chunks under the project's write lock, so readers see
// the old chunks or the new ones, never a mix.
//
// Nothing is persisted: a process restart starts empty, and the indexer rebuilds from the store
// as jobs arrive. Use search/pgindex for durability.
package memindex
