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
//	mcp_file_chunks            the seed's chunk table: path, [start_byte, end_byte), text, hash,
//	                           last_served_at
//	mcp_file_chunk_postings    (project, term, chunk) -> term frequency and chunk length
//	mcp_file_chunk_embeddings  the chunk's vector as BYTEA (little-endian float32, any dimension)
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
// # Scoring
//
// Lexical (the default, LexicalBM25) reads, in one repeatable-read snapshot, the project's
// statistics and, per query term, its document frequency and its postings as two compact
// arrays in chunk-id order (one index range each, aggregated without sorting). Go merges the
// arrays, scores every matching chunk with search.BM25, so the floats are bit-identical to
// memindex's, and reads only the rows of the chunks at or above the K-th best score (ties are
// broken by path and chunk index as memindex does).
// LexicalTSVector is the seed's transitional alternative: PostgreSQL full-text search (GIN
// index on to_tsvector('english', chunk_content), terms OR-ed, ts_rank_cd scores).
//
// Semantic scores are search.Dot of the stored and the query vector, as in memindex. Vectors
// are scanned from an in-process cache of the project's vectors, refreshed file by file when
// the project's generation counter shows that any process changed it (bounded by
// Options.VectorCacheBytes; a project above the bound streams from the database). When the
// pgvector extension is installed in the database (CREATE EXTENSION vector), New adds a vector
// column and PostgreSQL ranks rows by inner product instead; the returned rows are rescored in
// Go. pgvector is optional: without it nothing changes but where the scan runs.
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
// IndexedFile, INVALID_CONFIG from New. A context that ends is returned as itself. [Codes] lists
// them; the Searcher passes UNAVAILABLE on to its caller unchanged.
//
// An Index is safe for concurrent use by multiple goroutines and processes.
package pgindex
