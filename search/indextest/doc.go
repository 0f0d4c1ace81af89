// Package indextest is the acceptance suite for implementations of indexdriver.Index, in the spirit
// of testing/fstest: a backend passes when
//
//	indextest.Exercise(t, func(t *testing.T) indexdriver.Index { return newMyIndex(t) })
//
// passes under -race. The suite drives the index as production does — fileio.Service over
// memstore with a credential vault.Vault, the Indexer consuming the outbox, the Searcher
// answering queries — and checks: chunk offsets round-trip through Service.Read; deleted files
// are never returned, including before the indexer runs; unindexed and updated files are found
// by the query-time scan with correct offsets; tenants are isolated; path_prefix is a string
// prefix; limits are clamped and reported; last_served_at is set on returned chunks only;
// rerank failures and timeouts fall back to exactly the fused ranking; an embedder failure
// keeps lexical results; a missing credential retries and then degrades to lexical-only; BM25
// scores are bit-identical to the reference computed from the stored chunks; a candidate that
// only one retriever proposed gets its true score on the other (ScoreChunks), and results are
// identical, every score included, to those of search/memindex, the reference, on the same
// files; chunks without a query term and with too little similarity are not returned, and
// Result.Qualified counts those that are; a file indexed by another analysis is scanned until
// Indexer.Sync re-indexes it; re-indexing is idempotent; concurrent writers, searchers and
// indexer workers leave index and store in agreement; and any valid UTF-8, U+0000 included, is
// indexed (not left to the query-time scan) and ranked exactly as memindex ranks it.
//
// # Test servers
//
// EmbeddingServer and RerankServer are httptest servers that speak the OpenAI /v1/embeddings
// and Cohere /v1/rerank wire formats (including their error bodies), with modes that fail, hang
// or reject the key. RerankServer scores by weighted query-term overlap: a real, simple
// cross-scorer, not a neural model.
//
// # Helpers
//
// [Env] is that stack, for other tests of the search family (adapters/searchtools uses it).
// [Drain] runs an Indexer inline until an outbox is empty and [WaitIdle] waits for running
// indexers to empty it, both polling with a deadline; [Latencies] reports benchmark percentiles.
package indextest
