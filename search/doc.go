// Package search is hybrid retrieval over the files of a fileio store: the file_search tool of
// seed 003 §6.7 and §7.
//
// # Model
//
// Files live in a [fileio.Store]. Every write or delete commits an index job to the store's
// outbox in the same transaction. An [Indexer] consumes those jobs: it cuts each file into
// [Chunk]s with exact byte offsets, analyses them for BM25, embeds them with an [Embedder], and
// replaces the file's chunks in an [Index] atomically. A [Searcher] answers queries from the
// index and from the store together, so results are eventually consistent with writes but never
// wrong: a deleted file is never returned, and a file that is not indexed at its current version
// yet is scanned lexically at query time instead of serving stale offsets.
//
// # Chunks
//
// A chunk is [StartByte, EndByte) of the stored file, so file_read(path, StartByte,
// EndByte-StartByte) returns exactly its text. The [Chunker] cuts at most TargetBytes (BYTES,
// not tokens) per chunk, preferring a blank line, then a line end, a sentence end, a space,
// and never splitting a UTF-8 character; consecutive chunks overlap by up to OverlapBytes.
//
// # Retrieval
//
// A query runs two retrievers concurrently: lexical BM25 over [Tokenize]d terms (Unicode words,
// lower-cased, English stop words removed, Snowball-stemmed) and semantic nearest neighbours of
// the query's embedding. The candidates (30 + 30 by default) are merged, de-duplicated and sent
// to a [Reranker]; if it fails or times out, or none is configured, the fused score orders them
// (weighted min-max of the two scores by default, reciprocal-rank fusion as an option). Every
// hit keeps its semantic and lexical components, and the [Result] says which path ranked it.
// Only the returned chunks get last_served_at.
//
// BM25 is computed here, by [BM25.TermScore], from per-chunk term frequencies and per-project
// statistics that indexes supply, so the in-memory and PostgreSQL indexes score identically.
//
// # Embedders and rerankers
//
// [HashingEmbedder] is the dependency-free default: deterministic vectors from hashed word,
// word-pair and character-trigram features (shared vocabulary and spelling, not synonyms).
// [OpenAIEmbedder] calls any OpenAI-compatible /v1/embeddings endpoint and [CohereReranker] any
// Cohere-compatible /v1/rerank endpoint, both with the CALLER's API key from the context —
// never a platform key.
//
// # Credentials for asynchronous indexing
//
// The indexer runs after the request has returned, so an embedder that needs the caller's key
// gets it from a [Vault]: on every write the fileio Service seals the key (AES-256-GCM under a
// fresh data key, wrapped by a key-encryption key chosen by id, with AAD binding tenant, project
// and path) into a short-lived envelope in a [TTLStore], and the job carries only its reference.
// The indexer opens it, uses it, and deletes it. When the envelope is missing or expired the
// file is indexed lexical-only at once and the job is retried; after retry_max attempts it stays
// lexical-only.
//
// # Configuration
//
// [LoadConfig] reads settings.mcp.files.search, .index and .security from the service YAML
// file that fileio.LoadConfig reads its core keys from; errors name the offending key.
//
// # Concurrency
//
// Searcher, Indexer, Vault, the embedders and rerankers, and MemTTLStore are safe for
// concurrent use; Chunker and BM25 are immutable values.
package search
