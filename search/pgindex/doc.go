// Package pgindex is the PostgreSQL [search.Index]: chunks, BM25 postings and vectors in plain
// tables, shared by every process that uses the database, with scores identical to
// search/memindex.
//
// # Tables
//
// The schema is created by embedded, versioned migrations (table mcp_search_schema_migrations)
// that New applies under a session advisory lock, so any number of instances can start at once:
//
//	mcp_search_projects        one row per (apikey_hash, project): id, BM25 statistics
//	                           (chunk count, total terms) and a change counter (generation)
//	mcp_search_files           the indexed version of each file, its model and chunk count
//	mcp_file_chunks            the seed's chunk table without the text: path, version,
//	                           [start_byte, end_byte), hash, length in terms, last_served_at
//	mcp_file_chunk_postings    (project, term, chunk) -> term frequency and chunk length
//	mcp_file_chunk_embeddings  the chunk's vector as BYTEA (little-endian float32, any dimension)
//	mcp_search_embedder        one row: the model and dimensions of every vector in the database
//
// Every query filters by tenant and project in SQL; path_prefix is a LIKE pattern with %, _
// and \ escaped (text_pattern_ops indexes), and excluded paths (deleted or stale files, from the
// Searcher's active-file filter) are an array parameter.
//
// # Writing
//
// ReplaceFile and DeleteFile each run in one transaction under a per-file
// pg_advisory_xact_lock (two-key form, so it never collides with fileio/pgstore's project
// locks): old chunks, postings and vectors go, new ones come in one INSERT, and the project's
// statistics and generation move by the difference. Versions only move forward: a slow worker
// cannot replace a newer indexed version, and DeleteFile spares a version newer than the
// deletion. File versions keep their nanoseconds (TIMESTAMPTZ plus a nanosecond column) so they
// compare exactly with the store's.
//
// # Content
//
// The index keeps no copy of the text (migration 0004 dropped the chunk_content column): a chunk
// is its file version and byte offsets, its content hash, its terms and its vector, and the
// Searcher reads the text of the chunks it ranks from the file store by their offsets, in the
// read that checks the files are still at the indexed version (see search.Index and
// fileio.ReadRanges: one statement on fileio/pgstore). Chunks indexed before 0004 keep everything
// but their text and stay searchable without re-indexing (the old text's space is reclaimed as
// their files are re-indexed, or at once with VACUUM FULL mcp_file_chunks). Index.Reembed, which embeds stored
// chunks again, reads their text from the files likewise (ReembedOptions.Content).
//
// Any valid UTF-8 is indexed exactly as search/memindex indexes it, U+0000 included: terms and
// scores come from the original text, analysed in Go. Only in LexicalTSVector mode does text
// reach PostgreSQL (as the argument of to_tsvector, whose tsvector is stored in chunk_tsv), and
// there it is escaped, because TEXT cannot hold U+0000: U+0001 as U+0001 U+0001 and U+0000 as
// U+0001 U+0002, both separators to to_tsvector.
//
// # Scoring
//
// Lexical (the default, LexicalBM25) reads, in one repeatable-read snapshot, the project's
// statistics and, per query term, its document frequency and its postings as two compact
// arrays in chunk-id order (one index range each, aggregated without sorting). Go merges the
// arrays, scores every matching chunk with search.BM25, so the floats are bit-identical to
// memindex's, and reads only the rows of the chunks at or above the K-th best score (ties are
// broken by path and chunk index as memindex does).
// LexicalTSVector is the seed's transitional alternative: PostgreSQL full-text search (a GIN
// index on each chunk's tsvector, chunk_tsv, stored by ReplaceFile in that mode only; terms
// OR-ed, ts_rank_cd scores).
//
// ScoreChunks, the Searcher's second step, scores the candidates that only one retriever
// proposed in one statement: each named chunk is one lookup of its (project, path, chunk
// index) key, with its postings for the query terms and its vector of the query's model, and Go
// computes BM25 (with the Lexical answer's statistics) and search.Dot exactly as memindex does;
// in LexicalTSVector mode the lexical score is the chunk's ts_rank_cd.
//
// Semantic scores are search.Dot of the stored and the query vector, as in memindex. Vectors
// are scanned from an in-process cache of the project's vectors, refreshed file by file when
// the project's generation counter shows that any process changed it (bounded by
// Options.VectorCacheBytes; a project above the bound streams from the database). When the
// pgvector extension is installed in the database (CREATE EXTENSION vector), New adds a vector
// column and PostgreSQL ranks rows by inner product instead; the returned rows are rescored in
// Go. pgvector is optional: without it nothing changes but where the scan runs.
//
// # Embedder identity
//
// Vectors of different embedders cannot be compared (another model, or the same model cut to
// another size), so a database holds the vectors of one embedder, recorded in
// mcp_search_embedder: one row per database, not per tenant, because a server process serves
// every tenant with one embedder and its Indexer re-indexes whichever file a job names, so only
// a record the whole database shares keeps two differently configured processes apart.
//
//   - Options.Embedder (IdentityOf(embedder)) declares the process's embedder. New records it
//     when none is recorded and refuses with INVALID_CONFIG, naming both identities, when
//     another one is: configure the recorded embedder, or switch explicitly (below). A process
//     without an embedder leaves Options.Embedder zero and works against any database.
//   - A trigger on mcp_file_chunk_embeddings refuses, whoever writes them, vectors of another
//     embedder than the recorded one: ReplaceFile returns INVALID_CONFIG with the same advice
//     and writes nothing (the Indexer retries the job, then gives it up and logs the message). This covers
//     processes that did not declare their embedder and processes started before a switch.
//     The first vectors stored record their embedder when none is recorded yet.
//   - Index.Reembed is the explicit switch: in one transaction it records the new identity,
//     deletes the old vectors and marks their files lexical-only (chunks and postings stay, so
//     lexical search is unaffected), then it embeds the stored chunks of every file again with
//     the new embedder. It is resumable; run it from one process, e.g. an operator's command
//     with an Index opened without Options.Embedder, then restart the servers with the new
//     embedder. Servers still running the old one find no semantic candidates and can store no
//     vectors until they are.
//
// Re-embedding is an explicit call rather than an option of New on purpose: during a rolling
// restart old and new processes start side by side, and a start-up option would let each flip
// the database back to its own embedder, dropping every vector each time.
//
// A database indexed before identities were recorded is given the identity of its vectors by
// the migration when they all agree; when they do not, New refuses every embedder until
// Reembed settles the database on one. Within one process, queries never mix embedders either:
// Semantic compares only vectors of SemanticQuery.Model and of the query vector's size.
//
// # File states
//
// Index implements search.FileStateLister, so the Searcher merges the store's sorted listing
// with a sorted slice of indexed file states instead of probing a map. The slice is cached per
// project in process and shared read-only while the project's generation counter is unchanged:
// a query costs one primary-key read of the counter, and the first query after any process
// changed the project reloads the list in one statement (bounded by
// Options.FileStateCacheBytes).
//
// # Workers
//
// Indexing is search.Indexer over fileio/pgstore's outbox: start one Indexer in as many
// processes as you like. Jobs are claimed with FOR UPDATE SKIP LOCKED under a lease, so a
// worker that dies mid-job loses nothing: its job is claimed again when the lease expires.
//
// # Errors
//
// Methods return *agentfiles.Error values that hide SQL and connection details (the cause is
// kept for logs): UNAVAILABLE, which is retryable, when PostgreSQL cannot be reached (connection
// refused or lost, no connection from the pool, server shutting down or out of connection
// slots), SEARCH_BACKEND_ERROR when a statement fails, INVALID_ARGUMENT for a malformed
// IndexedFile, INVALID_CONFIG from New and Reembed, and from ReplaceFile for vectors of another
// embedder than the database's. A context that ends is returned as itself. [Codes] lists
// them; the Searcher passes UNAVAILABLE on to its caller unchanged.
//
// An Index is safe for concurrent use by multiple goroutines and processes.
package pgindex
