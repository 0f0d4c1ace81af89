// Package pgindex is the PostgreSQL [indexdriver.Index]: chunks, BM25 postings and vectors in plain
// tables, compact (smaller than the text they index, vectors aside), shared by every process
// that uses the database, with scores identical to search/memindex.
//
// # Tables
//
// The schema is created by embedded, versioned migrations (table mcp_search_schema_migrations)
// that New applies under a session advisory lock, so any number of instances can start at once:
//
//	mcp_search_projects   one row per (apikey_hash, project): id, BM25 statistics (chunk count,
//	                      total terms), merge counters and a change counter (generation)
//	mcp_search_files      the indexed version of each file, its model and chunk count, and where
//	                      its chunks are: a pending write (write_id) or a segment and position
//	mcp_search_pending    a file's chunks and postings as written by ReplaceFile, one row each
//	mcp_search_segments   merged files: one row per segment holding its chunk records, a term
//	                      dictionary and every term's postings, delta/varint coded, and how
//	                      many of its chunks files still point at (live_chunks)
//	mcp_search_vectors    one row per file: its chunks' vectors, float32 back to back, and
//	                      from 512 dimensions their int8 codes (see Scoring)
//	mcp_search_served     one row per chunk a search returned: last_served_at
//	mcp_search_chunk_tsv  LexicalTSVector mode only: each chunk's tsvector (GIN index)
//	mcp_search_embedder   one row: the model and dimensions of every vector in the database
//
// # Storage
//
// The index is log-structured, like a Lucene-family engine's, because a row per chunk and a row
// per (term, chunk) cost 0.85× and 40× the text they index (a PostgreSQL row costs 28 bytes
// before its first column) and are written by thousands of random B-tree inserts per file:
//
//   - ReplaceFile writes a file in one transaction as two rows: its pending row (the chunk
//     records, each term's postings over the file's chunks) and its files row naming that write.
//     The file's old chunks stay where they were, dead from then on.
//   - When a project's pending chunks reach Options.MergePendingChunks (or its dead chunks are
//     many and a quarter of its live ones), the Index's background merger copies the live chunks
//     of the pending files and of the segments the merge policy picks into one new segment: the
//     chunk records of its files one after another (directory), and per term one block of
//     postings over the segment's chunk ordinals. Segments grow geometrically, so a project holds
//     a logarithmic number of them, and dead chunks are dropped as their segments are merged.
//     One process at a time merges a project (an advisory lock); Index.Merge merges on demand.
//   - A segment's postings column is stored uncompressed out of line, so a query reads only the
//     slices of its terms: one TOAST lookup per (segment, query term).
//   - A chunk's text is never stored: a chunk is its file version, its byte offsets, its content
//     hash (32 bytes), its length in terms and its postings, and the Searcher reads the text of
//     the chunks it ranks from the file store by their offsets, in the read that checks the
//     files are still at the indexed version (see indexdriver.Index and driver.ReadRanges).
//
// Databases indexed before schema version 5 are converted by New: vectors and tsvectors by the
// migration, chunks and postings file by file from the old tables, with the terms, offsets and
// hashes they had (nothing is analysed or embedded again), after which the old tables are dropped.
//
// Every query filters by tenant and project in SQL; path_prefix and excluded paths (deleted or
// stale files, from the Searcher's active-file filter) are applied per file.
//
// # Writing
//
// ReplaceFile and DeleteFile each run in one transaction under a per-file
// pg_advisory_xact_lock (two-key form, so it never collides with fileio/pgstore's project
// locks); the project's statistics, merge counters and generation move by the difference.
// Versions only move forward: a slow worker cannot replace a newer indexed version, and
// DeleteFile spares a version newer than the deletion. File versions keep their nanoseconds
// (TIMESTAMPTZ plus a nanosecond column) so they compare exactly with the store's.
//
// # Content
//
// Any valid UTF-8 is indexed exactly as search/memindex indexes it, U+0000 included: terms and
// scores come from the original text, analysed in Go. Only in LexicalTSVector mode does text
// reach PostgreSQL (as the argument of to_tsvector), and there it is escaped, because TEXT
// cannot hold U+0000: U+0001 as U+0001 U+0001 and U+0000 as U+0001 U+0002, both separators to
// to_tsvector. Index.Reembed, which embeds stored chunks again, reads their text from the files
// (ReembedOptions.Content).
//
// # Scoring
//
// Queries score in Go with a view of the project: its files sorted by path with where their
// chunks are, the decoded directories and term dictionaries of its segments, and its decoded
// pending files. The view is cached in process per project and shared read-only while the
// project's generation counter (bumped by every write and merge of any process) is unchanged;
// when it moved, the next query reads the changed parts in its own snapshot (bounded by
// Options.ProjectCacheBytes). Segments and pending writes are immutable, so views share them.
//
// Lexical (the default, LexicalBM25) reads, in one repeatable-read snapshot, the project's
// statistics and the postings blocks of the query terms in each segment (pending files' are in
// the view). Go keeps the postings of live chunks, counts document frequencies over them,
// merges the terms, scores every matching chunk with indexdriver.BM25, so the floats are
// bit-identical to memindex's, and cuts at K breaking ties by path and chunk index as memindex
// does. LexicalTSVector is a transitional alternative: PostgreSQL full-text search (a
// GIN index on each chunk's tsvector, stored by ReplaceFile in that mode only; terms OR-ed,
// ts_rank_cd scores).
//
// ScoreChunks, the Searcher's second step, scores the candidates that only one retriever
// proposed in the same way from one snapshot: the query terms' blocks, and the named files'
// vectors; Go computes BM25 (with the Lexical answer's statistics) and indexdriver.Dot exactly as
// memindex does; in LexicalTSVector mode the lexical score is the chunk's ts_rank_cd.
//
// Semantic scores are indexdriver.Dot of the stored and the query vector, as in memindex, over an
// in-process cache of the project's vectors, refreshed file by file when the project's
// generation counter shows that any process changed it (bounded by Options.VectorCacheBytes, of
// which one project holds at most half: a bigger project is cached in part, its first files in
// path order, and a query streams only the rest from the database, so its cost grows with the
// part that does not fit, with no jump at the bound). Vectors of 512 dimensions or more (neural
// embedders') are cached as int8 codes with a certified error bound (package
// search/internal/int8vec, shared with memindex), a quarter of their float32 size: a query
// scans one byte per dimension, and re-scores with indexdriver.Dot only the chunks whose bound
// reaches the TopK-th best, from their codes when those are exact and otherwise from their
// floats, read from the database for those chunks only. The answer is the exact top K, the
// same as a float scan's and memindex's. The pgvector extension is not used: its approximate
// indexes would not give memindex's results.
//
// The codes are stored too: ReplaceFile writes them beside the floats (one value per file: a
// header, each chunk's bounds, the codes; uncompressed, out of line), so that
//
//   - a query past the cache streams the codes of the files that did not fit (a quarter of
//     their floats' bytes; in two streams on two connections for a large rest), scoring each
//     row as it arrives and keeping only the chunks that may reach the top K, so it holds no
//     more than the cache bound plus a row per stream;
//   - an Index without a cache (VectorCacheBytes negative) streams every file's codes alike;
//   - the first query of a project with nothing cached (after a start) streams every file's
//     codes once, scores them, and keeps those of the files its cache share holds (queries
//     arriving meanwhile wait for it): the next query finds the cache warm, and no query
//     encodes floats.
//
// Rows written before schema version 7 have no codes: queries read their floats until
// Index.BackfillCodes, which New runs in the background, has stored them.
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
//   - A trigger on mcp_search_vectors refuses, whoever writes them, vectors of another
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
// Index implements indexdriver.FileStateLister, so the Searcher merges the store's sorted listing
// with a sorted slice of indexed file states instead of probing a map. The slice is the
// project's view's (see Scoring): a call costs one primary-key read of the generation counter
// while no process changed the project. FileStates, which the Indexer calls for one path per
// job, never builds a view: it is one range scan of the files table's primary key.
//
// # Workers
//
// Indexing is search.Indexer over fileio/pgstore's outbox: start one Indexer in as many
// processes as you like. Jobs are claimed with FOR UPDATE SKIP LOCKED under a lease, so a
// worker that dies mid-job loses nothing: its job is claimed again when the lease expires.
//
// # Cost as a project grows
//
// For a project of n files, one index job touches only its own file and B-trees:
//
//   - the Indexer's staleness check reads the file from the store and its state from the index
//     (FileStates: a range scan of the files table's primary key), O(log n) each;
//   - ReplaceFile locks the file, upserts its files row, writes its pending row and its vectors
//     row (O(log n) each) and adds its deltas to the project's counters (one row; writers of
//     one project queue on it only for the rest of their transaction);
//   - completing the job deletes its outbox row, O(log n).
//
// Merging is amortised over the chunks written: every Options.MergePendingChunks pending chunks,
// and each chunk is copied O(log n) times over its life because segments grow geometrically.
// A merge moves the project's counters by its own delta (what it moved out of pending, the
// chunks it wrote and deleted), as writers do, under the same row lock: O(merge), no recount.
// It then VACUUMs a table it rewrote only when that table's dead rows have reached a fifth of
// its live rows (counted on the TOAST table for segments, so a share of their bytes): a VACUUM
// reads every page of the table's indexes, O(table), but once per a fifth of the table in dead
// rows it costs O(1) per dead row, and a table stays within about 1.2× its live size (plus
// what the last merges deleted, while the statistics catch up). The merge policy reads each segment's live chunks from its row (a writer
// whose file leaves a segment subtracts the file's chunks there, after locking the file's row
// and before the project's, the order a merge takes them in): O(segments), O(log n). So a
// merge's upkeep does not grow with the project or the database, and neither does its cost per
// chunk. Rates through the Indexer at 1k, 10k and 100k files are in BENCHMARKS.md
// (BenchmarkIndexerIngest).
//
// A semantic query scans the project's cached vectors (int8 codes from 512 dimensions) in
// O(n), re-scores O(K) to a few hundred chunks exactly, and streams from PostgreSQL only the
// codes (floats below 512 dimensions) of the files that did not fit the cache (see Scoring).
//
// # Memory
//
// An Index holds at most Options.VectorCacheBytes of vectors (default 512 MiB; one project at
// most half) and Options.ProjectCacheBytes of project views (default 256 MiB, about 60 bytes
// per chunk and 100 per file), plus what queries in flight allocate: a query's candidates, and
// during a refresh a project's old snapshot next to its new one.
//
// # Errors
//
// Methods return *agentfiles.Error values that hide SQL and connection details (the cause is
// kept for logs): UNAVAILABLE, which is retryable, when PostgreSQL cannot be reached (connection
// refused or lost, no connection from the pool, server shutting down or out of connection
// slots), TIMEOUT when a statement outlives the statement timeout (the code pgstore gives it:
// one SQLSTATE table serves both), SEARCH_BACKEND_ERROR when a statement fails otherwise,
// INVALID_ARGUMENT for a malformed IndexedFile, INVALID_CONFIG from New and Reembed, from
// ReplaceFile for vectors of another embedder than the database's, and for a missing privilege.
// A context that ends is TIMEOUT or CANCELED (agentfiles.ContextError). [Codes] lists
// them; the Searcher passes UNAVAILABLE on to its caller unchanged.
//
// An Index is safe for concurrent use by multiple goroutines and processes.
package pgindex
