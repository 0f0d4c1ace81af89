// Package search is hybrid retrieval over the files of a fileio store: the engine behind the
// file_search tool (chunking, BM25 and vector scoring, fusion, reranking) and the indexer that
// keeps its index in step with the store. What an index implements, and the analysis and
// scoring every index shares with the searcher, is package search/indexdriver, for index
// authors; search/indextest is the acceptance suite every index passes.
//
// # Model
//
// Files live in a [driver.Store]. Every write or delete commits an index job to the store's
// outbox in the same transaction. An [Indexer] consumes those jobs: it cuts each file into
// [indexdriver.Chunk]s with exact byte offsets, analyses them for BM25, embeds them with an [Embedder], and
// replaces the file's chunks in an [indexdriver.Index] atomically. A [Searcher] answers queries from the
// index and from the store together, so results are eventually consistent with writes but never
// wrong: a deleted file is never returned, and a file that is not indexed at its current version
// yet is scanned lexically at query time instead of serving stale offsets.
//
// A query's cost does not grow with the project: the Searcher learns which files the index has
// not caught up with from the project's pending outbox jobs ([driver.ScopeJobLister]) and the
// index's files of an older analysis, never from a listing of the project, and it checks the
// liveness of all its candidates and reads their text in one store read ([driver.ReadRanges]):
// indexes keep each chunk's byte offsets, not a copy of its text, so the text is stored once, in
// the file store. Queries are bounded
// (SearcherOptions.MaxQueryBytes and MaxQueryTerms: INVALID_QUERY beyond), can draw from the
// file service's per-tenant rate limit (SearcherOptions.RateLimiter), and take slots: at most
// SearcherOptions.MaxConcurrentPerTenant searches of one tenant and MaxConcurrent of all run at
// once (a query's embedding call, index reads and rerank included), the others waiting at most
// SlotWait (RESOURCE_BUSY after it), so that one tenant's parallel searches never slow another
// tenant's calls.
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
// A query runs two retrievers concurrently: lexical BM25 over [indexdriver.Tokenize]d terms (Unicode words,
// lower-cased, the Snowball English stop words removed, Snowball-stemmed) and semantic nearest
// neighbours of the query's embedding.
//
// The lexical leg is expanded by pseudo-relevance feedback ([Expansion], RM3 as Anserini runs
// it): the best FeedbackChunks (10) chunks of a first BM25 pass are read from the store, the
// FeedbackTerms (10) terms most frequent in them (each chunk offering its 10 most frequent,
// weighted by its BM25) are added to the query, and the query's own terms keep OriginalWeight
// (0.5) of the weight; the lexical candidates and every candidate's BM25 then come from that
// weighted query ([indexdriver.LexicalQuery].Weights), which [Result].ExpandedQuery shows. A
// chunk may so match in words of the best matches rather than the query's. Its cost is
// bounded: one store read of the feedback chunks' text, one more lexical pass, and at most
// FeedbackTerms more terms, never beyond MaxQueryTerms in all.
//
// The candidates (30 + 30 by default) are merged and
// de-duplicated, and every one gets its true score on the retriever that did not propose it
// ([indexdriver.Index.ScoreChunks]): a strong keyword match just outside the semantic top 30 keeps its
// similarity, and vice versa, instead of counting as 0 there. Candidates that are no evidence
// of a match on a leg of positive weight — none of the query's (expanded) terms occurs in them
// and their similarity is not above MinSemanticScore — are dropped, never padded into the
// results ([Result].Qualified counts the others). The rest go to a [Reranker]; if it fails or
// times out, or none is configured, the fused score orders them: theoretical min-max fusion
// by default ([FuseTMM]: BM25 scaled from 0 and similarity from −1 to the best candidate's,
// weighted), so that every result scores above 0 and the best on both legs 1; min-max and
// reciprocal-rank fusion are options. Every hit keeps its semantic and lexical components, and
// the [Result] says which path ranked it. Only the returned chunks get last_served_at.
//
// Every index selects its candidates in the same order — score descending, then path, then
// chunk index — with a [indexdriver.TopK].
//
// BM25 is computed here, by [indexdriver.BM25.TermScore], from per-chunk term frequencies and per-project
// statistics that indexes supply, so the in-memory and PostgreSQL indexes score identically.
//
// # All projects
//
// A [Query] with Project "*" ([AllProjects]) searches every project of the caller that holds an
// active file, as listed by the store's [driver.ProjectLister] (memstore and pgstore implement
// it; over another store "*" is INVALID_ARGUMENT). Scores from different projects are on one
// scale: the query is embedded once; each project proposes its semantic and lexical candidates
// (at most four projects at a time); the projects' BM25 statistics (chunk count, total terms,
// the query terms' document frequencies) are added up; the feedback chunks of expansion are
// the best of every project's first pass by BM25 on those shared statistics, and each project
// runs the one expanded query; every candidate's BM25 is computed again with the shared
// statistics, as if the caller's projects were one corpus; then the union of every project's
// candidates is fused at once (one best score per leg, or one RRF ranking), so a project's
// best chunk is not lifted to the top score because it is its project's best. The same files
// in one project or dealt over several get the same expanded query and the same scores. A
// [Reranker], when configured, reranks the best of them (as many as one project proposes at
// most) in one call, and the limit applies. Every [Hit] names its Project.
// At most [MaxAllProjects] projects are searched, the first by name, and
// Result.ProjectsTruncated says when there were more. A caller without projects gets an empty
// result, not an error. The rate limiter is asked for one token per query, not per project.
//
// # Ranking defaults, and the evidence for them
//
// The defaults were chosen with the quality harness (benchmarks/quality; BENCHMARKS.md has the
// tables and the command) on the Cranfield collection (1,400 abstracts, 225 judged queries) and
// on the authored set in testdata/quality.json, each also split into two halves of queries.
// The default ranking scores nDCG@10 0.3885 on Cranfield (BM25 alone 0.3648) and 0.9513 on the
// authored set (0.9340), above BM25 on nDCG@10, P@10 and MAP on both:
//
//   - Expansion keeps Anserini's RM3 defaults (10 chunks, 10 terms, weight 0.5), which are
//     standard rather than tuned: it alone lifts BM25 to 0.388 on Cranfield (+0.023) and 0.953
//     on the authored set. A grid of other values on Cranfield's tuning half stays within
//     0.369–0.391; fewer terms (3, 5, 7) lose. Anserini's cut of feedback terms found in more
//     than 10% of the documents is not applied: the stop-word list already removes function
//     words, and the cut costs 0.020 on Cranfield, whose useful expansions are domain words.
//   - Fusion weights depend on the embedder ([Calibration]). The [HashingEmbedder] alone ranks
//     far below BM25 (nDCG@10 0.26 against 0.36 on Cranfield), so it gets semantic weight 0.1
//     and BM25 0.9; 0.05–0.3 change Cranfield by less than 0.002 under [FuseTMM], and above
//     0.1 cost the authored set up to 0.009. An embedder without a calibration (an
//     OpenAI-compatible model) keeps even weights, 0.5 and 0.5. semantic_weight and lexical_weight
//     in the configuration, or SearcherOptions, override either.
//   - Theoretical min-max fusion is the default because no result scores 0 under it and one
//     best score per leg keeps "*" on one scale; with expansion it ranks best on Cranfield
//     (0.3885, min-max 0.3871, reciprocal-rank 0.3829). FuseMinMax and FuseRRF stay
//     selectable.
//   - MinSemanticScore: with the hashing embedder a chunk that shares no term with the query is
//     almost never relevant (2 of 6,750 such chunks in the semantic top 30 of the Cranfield
//     queries, 3 of 600 on the authored set), and its similarity cannot tell: queries of one
//     collection against the documents of the other, and 185 everyday words and word pairs
//     ("milk", "football score"), reach a best similarity of 0.34–0.55 (99th percentile) at 256
//     dimensions and up to 0.65 at 64, while spelling variants we tried ("back-off" for
//     "backoff", "RetryPolicy" for "retry policy") score 0.10–0.39. So its floor is 0.55 (0.65
//     below 128 dimensions): such chunks are results only when their text is nearly the query's.
//     That costs the authored set 0.007 nDCG@10 against no floor (fused still above BM25) and
//     Cranfield nothing. Other embedders' floor is 0 unless configured (min_semantic_score).
//   - BM25 keeps k1 1.2 and b 0.75: on Cranfield, with this analysis, a textbook BM25 scores
//     nDCG@10 0.368 against 0.347 at k1 0.9 / b 0.4 (the authored set does not move).
//   - Analysis: stemming is worth 0.03 nDCG@10 on Cranfield and 0.05 on the authored set.
//     Joining words across apostrophes ("don't" is one stop word, not "don" and "t") and
//     dotted abbreviations ("e.g." is "eg") each add about 0.001 on Cranfield; the Snowball
//     stop-word list costs 0.003 against the shorter list used before (which also dropped
//     "can", "will", "just" and "now"); the authored set moves with none of them.
//
// # Embedders and rerankers
//
// [HashingEmbedder] is the dependency-free default: deterministic vectors from hashed word,
// word-pair and character-trigram features (shared vocabulary and spelling, not synonyms).
// The clients of hosted models live in package search/provider, so that the engine holds no
// HTTP client: provider.OpenAIEmbedder calls any OpenAI-compatible /v1/embeddings endpoint and
// provider.CohereReranker any Cohere-compatible /v1/rerank endpoint, both with the CALLER's API
// key from the context — never a platform key. Neither has a default endpoint: a caller's
// queries, chunks and key go only to a host the operator names (RerankConfig.Endpoint).
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
// [indexdriver.Index]) and an options struct whose zero fields mean the documented defaults:
//
//	searcher, err := search.NewSearcher(store, index, search.SearcherOptions{Embedder: emb})
//	indexer, err := search.NewIndexer(store, index, search.IndexerOptions{Embedder: emb, Credentials: v})
//
// [LoadConfig] reads settings.mcp.files.search, .index and .security from the service YAML
// file that fileio.LoadConfig reads its core keys from; errors name the offending key, its line
// and the form the value takes, and unknown keys are refused at every level. The
// [Config] describes the file; its methods ([Config.SearcherOptions], [Config.IndexerOptions],
// [SecurityConfig.VaultOptions], and provider.RerankOptions for the rerank section) hand each part to what it
// configures, so that nothing is copied by hand.
//
// # Errors
//
// Every error is an *agentfiles.Error with a shared code: INVALID_QUERY for a blank query,
// INVALID_ARGUMENT for a blank project or a MinSemanticScore that is not a finite number, PERMISSION_DENIED without a caller identity in the
// context, RESOURCE_BUSY when the search waited for its slots past SlotWait, SEARCH_BACKEND_ERROR when the index fails, MODEL_ERROR when a provider
// does, UNAVAILABLE (retryable) when
// the store or the index cannot be reached for now, INVALID_CONFIG for a bad configuration key or
// constructor argument; [Codes] lists them all. Branch with errors.Is against the agentfiles
// sentinels (ErrInvalidQuery, …). Embedder and reranker failures during a query are
// not errors: the [Result] says which path ranked the hits and why the others were not used.
//
// # Concurrency
//
// Searcher, Indexer, the embedders and rerankers are safe for concurrent use; Chunker and BM25
// are immutable values; a TopK is not safe for concurrent use.
package search
