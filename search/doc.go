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
// Every index selects its candidates in the same order — score descending, then path, then
// chunk index — with a [TopK].
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
// never a platform key. A provider's error message is passed on bounded in length, cut on a
// character boundary, with keys and bearer tokens redacted.
//
// # Credentials for asynchronous indexing
//
// The indexer runs after the request has returned, so an embedder that needs the caller's key
// gets it from a [CredentialOpener] — in practice a vault.Vault: on every write the fileio
// Service seals the key (AES-256-GCM under a fresh data key, wrapped by a key-encryption key
// chosen by id, with AAD binding tenant, project and path) into a short-lived envelope, and the
// job carries only its reference. The indexer opens it, uses it, and deletes it. When the
// envelope is missing or expired the file is indexed lexical-only at once and the job is
// retried; after RetryMax attempts it stays lexical-only.
//
// # Construction and configuration
//
// [NewSearcher] and [NewIndexer] take what they cannot work without (the fileio Store, the
// [Index]) and an options struct whose zero fields mean the documented defaults:
//
//	searcher, err := search.NewSearcher(store, index, search.SearcherOptions{Embedder: emb})
//	indexer, err := search.NewIndexer(store, index, search.IndexerOptions{Embedder: emb, Credentials: v})
//
// [LoadConfig] reads settings.mcp.files.search, .index and .security from the service YAML
// file that fileio.LoadConfig reads its core keys from; errors name the offending key. The
// [Config] describes the file; its methods ([Config.SearcherOptions], [Config.IndexerOptions],
// [RerankConfig.CohereRerankerOptions], [SecurityConfig.VaultOptions]) hand each part to what it
// configures, so that nothing is copied by hand.
//
// # Errors
//
// Every error is an *agentfiles.Error with a shared code: INVALID_QUERY for a blank query,
// INVALID_ARGUMENT for a blank project, PERMISSION_DENIED without a caller identity in the
// context, SEARCH_BACKEND_ERROR when the index or a provider fails, UNAVAILABLE (retryable) when
// the store or the index cannot be reached for now, INVALID_CONFIG for a bad configuration key or
// constructor argument; [Codes] lists them all. Branch with errors.Is against the agentfiles
// sentinels (agentfiles.ErrInvalidQuery, …). Embedder and reranker failures during a query are
// not errors: the [Result] says which path ranked the hits and why the others were not used.
//
// # Concurrency
//
// Searcher, Indexer, the embedders and rerankers are safe for concurrent use; Chunker and BM25
// are immutable values; a TopK is not safe for concurrent use.
package search
