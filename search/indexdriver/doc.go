// Package indexdriver is the contract between package search and the indexes that keep its
// chunks: fileio's files cut into chunks, analysed for BM25 and embedded. A program that only
// searches never imports it: it passes an index (search/memindex, search/pgindex) to
// search.NewSearcher and search.NewIndexer. An index author implements [Index] and runs the
// acceptance suite search/indextest against it.
//
// # What an index stores
//
// An [IndexedFile] is one file's chunks at one version, with each chunk's byte offsets, term
// counts and vector; [Index.ReplaceFile] swaps a file's chunks atomically. Indexes keep the
// offsets, not the text: the searcher reads the text from the file store.
//
// # Scoring an index must share
//
// The searcher and every index must analyse and score text the same way, so the pieces that
// define the ranking live here: [Tokenize], [TermCounts] and [QueryTerms] (the analysis named
// by [TokenizerName]), [BM25] with its [TermScorer] and [CorpusStats], [Dot] and [SparseDot]
// for vectors, and [TopK] for the best candidates of a scan.
//
// # Freshness
//
// [FileStateLister] tells which version of each file an index holds ([FileState],
// [PathFileState]), so that the searcher can scan what the index has not caught up with.
package indexdriver
