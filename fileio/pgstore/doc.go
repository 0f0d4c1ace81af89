// Package pgstore is the PostgreSQL driver.Store: files, index jobs and per-project byte counts
// in plain tables, shared by any number of processes that use the same database.
//
// # Use
//
//	store, err := pgstore.Open(ctx, "postgres://user@db/app", pgstore.Options{})
//	if err != nil { ... }
//	defer store.Close()
//	svc, err := fileio.NewService(store, fileio.Options{Config: cfg}) // cfg from fileio.LoadConfig
//
// New takes an existing *pgxpool.Pool instead (the caller keeps owning it). Both bring the
// schema up to date first. The store has no lock timeout or retention of its own: both come
// with every Update (driver.UpdateOptions), which the Service fills in from its Config
// (settings.mcp.files.lock_timeout_ms and delete_retention_days).
//
// # Schema and migrations
//
// The tables: mcp_files (one active row per path, soft-deleted
// rows kept until purged), mcp_file_index_jobs (the outbox, one row per pending path), plus
// mcp_file_project_usage (bytes and files per project, maintained by every mutation so a quota
// check reads one row), and for the file history mcp_file_versions (the kept previous versions)
// and mcp_file_history_usage (their bytes per project). They are created by versioned SQL files embedded in the binary and
// recorded in mcp_files_schema_migrations. [Migrate] holds a pg_advisory_lock while it works,
// so many instances can start at once against an empty database. Tables live in the first
// schema of the connection's search_path (add ?search_path=myschema to the URL to choose one).
//
// # Transactions and locking
//
// Update runs its callback in one READ COMMITTED transaction that first takes
// pg_advisory_xact_lock(hash(tenant, project)) with SET LOCAL lock_timeout set to
// UpdateOptions.LockTimeout; if the lock is not granted in time the result is a RESOURCE_BUSY
// error. All mutations of one project, from
// every process, are therefore serialised, while different projects never wait for each other.
// Every statement inside the callback sees everything committed before it, so quota checks done
// under the lock hold across processes. An error from the callback, a failed statement or a
// dropped connection rolls everything back, outbox rows included.
//
// View runs its callback in a REPEATABLE READ, READ ONLY transaction: one consistent snapshot
// of committed data, no locks taken.
//
// BEGIN, the lock timeout and the project lock travel in one round trip before the callback
// runs, and Put writes the file, the project's byte count and the outbox row in a single
// statement, so Update{Put} costs three round trips: lock, Put, COMMIT (with NOTIFY). A View
// sends BEGIN together with its first statement. Statements in an Update run generic plans
// (SET LOCAL plan_cache_mode, sent with the lock): they are lookups by tenant, project and
// path, and re-planning them would cost more than running them. Such a plan is made once per
// connection, possibly while the tables are nearly empty, so each lookup of a list of paths is
// written as one index probe per path (a LATERAL subquery), an UPDATE of such rows finds them
// by id, and sequential scans are disabled in an Update (SET LOCAL enable_seqscan = off):
// whatever the statistics said when the plan was made, no statement reads a project, let
// alone the table, to find a few rows (TestWritesProbeThePathIndexOnEmptyTable).
//
// The write transaction implements driver.WriteChecker and driver.ConditionalWriter, each in
// one statement of index lookups, and the Store implements driver.ConditionalUpdater: BEGIN,
// the settings, the project lock, the check-and-write statement (which also calls pg_notify
// when it writes) and COMMIT go out as one pipelined pgx batch. So fileio.Service.Write costs
// one round trip for TRUNCATE and APPEND (two on an error: the ROLLBACK) and four for
// OVERWRITE (lock, check, Put, COMMIT), instead of five or more. An APPEND runs
// content = content || $data in the server: the existing content never travels to the client
// and back.
//
// # Outbox
//
// Put and Delete upsert the path's row in mcp_file_index_jobs in the same statement as the
// mutation (ON CONFLICT on the unique (apikey_hash, project, file_path) index, bumping version),
// and the commit sends NOTIFY mcp_file_index_jobs. ClaimJobs leases jobs with
// FOR UPDATE SKIP LOCKED, so workers in many processes take disjoint jobs; a lease that runs
// out (a crashed worker) makes the job claimable again. WaitForJobs listens on a dedicated
// connection and falls back to polling while that connection is down.
//
// # Deletion and purging
//
// Delete marks rows deleted (deleted, deleted_at) and records when they may go for good:
// purge_after, the delete time plus the UpdateOptions.DeleteRetention of the deleting Update. They
// are invisible to every read. Purge removes the rows whose purge_after has passed; a background
// purger runs it every Options.PurgeInterval (default one hour) from every instance, which is
// safe.
//
// # History
//
// When an Update's UpdateOptions.HistoryVersions is positive, its first round trip also sets
// agentfiles.history_versions and agentfiles.history_retention_us (SET LOCAL), and a row trigger
// on mcp_files (migration 0005) copies every row a statement replaces or soft-deletes into
// mcp_file_versions, numbers the versions per path, drops those past the last HistoryVersions,
// and keeps mcp_file_history_usage up to date, all inside the database: the content never goes
// to the client and back. The trigger does not fire in transactions without those settings.
// The conditional write of fileio.Service.Write (driver.ConditionalWriter) does the same in
// data-modifying CTEs of its one statement, which costs less than a trigger call, and numbers
// the row it writes; the triggers of migration 0006 then stand aside (they fire only for a row
// whose statement left the version number as it was). The settings ride in the round trip that
// takes the project lock (set_config in UpdateIfAllowed's batch), so history adds no round
// trip.
// Kept versions count in ProjectBytes; Purge removes those past their purge_after (replaced_at
// plus HistoryRetention) and subtracts their bytes. Edit and Rename have statements of their own
// (driver.Splicer, driver.Mover): position() and overlay() edit a file in place, and a rename
// moves any number of files in one statement.
//
// # Change feed and checkpoints
//
// Migration 0010 adds an AFTER ROW trigger on mcp_files that appends every change of a file (an
// active row inserted, replaced or soft-deleted, whichever statement did it) to
// mcp_file_events, numbered from the project's row of mcp_file_feed_heads: that row is
// incremented in the writing transaction and stays locked until it commits, so positions follow
// commit order without gaps across every instance (driver.FeedReader). Checkpoints are rows of
// mcp_file_checkpoints at a feed position. mcp_file_version_pinned tells whether a checkpoint
// needs a kept version (the version an event replaced, current from the path's previous event
// until its position); the history's deletes (the count limit in the trigger and in the
// conditional write, Purge, DropVersions) leave pinned versions alone. Purge drops events past
// their retention that come at or before every checkpoint of their project and records how far
// in pruned_through. WaitForEvents (driver.FeedWaiter) wakes on the NOTIFY every write commit
// sends for the indexer.
//
// # Budgets
//
// Every transaction carries a statement_timeout, set in the round trip that opens it: the time
// left before its context's deadline (fileio.Service gives every call one, Config.CallTimeout),
// at most Options.StatementTimeout (30 s). A pool made by Open sends PostgreSQL a cancel
// request when a statement's context ends, and keeps the connection; Options.MaxConns sizes
// it. The edit search (Locate) runs position() only while the file's size times the needle's
// length stays within the bound the Service gives it, since position() on bytea compares the
// needle at every offset and does not stop for a cancel. DropVersions (driver.HistoryPurger)
// deletes kept versions and their bytes in one statement; KeptBytes reads them from
// mcp_file_history_usage.
//
// Searches (fileio.Service.Grep and Glob) keep their read transaction, and so a connection,
// for up to their time budget; they run in ViewScan (driver.ScanViewer). At most half of the
// pool's connections (MaxConns/2, at least 1) hold a search at once, and at most a quarter of
// those (at least 1) one tenant's searches: 2 of pgx's default 4 connections, 1 per tenant. The
// other half serves View and Update, so a short call of one tenant never waits for another
// tenant's search. A search waits for its turn in arrival order until its context ends, and
// fails with RESOURCE_BUSY at its deadline. The bound holds within one Store: several
// processes sharing a database each have their own pool and their own bound.
//
// # Exact search
//
// Migration 0007 creates the pg_trgm extension (shipped with PostgreSQL; a trusted extension,
// so the database owner may create it) and migration 0009 a partial GIN index on the text of
// the active files that are marked grep_indexed, with its ASCII letters lower-cased:
// mcp_files_grep_fold(content) with gin_trgm_ops. The read transaction implements
// driver.ContentSearcher: the literals of a grep pattern's driver.ContentQuery become LIKE
// conditions on that folded text (a case-sensitive literal also on the text as it is) that the
// index answers among the indexed files and PostgreSQL rechecks. LIKE compares characters
// exactly and the folding is ASCII's alone, so the answers do not depend on the database's
// collation: ILIKE would lower-case under it, and an ICU tr-TR collation lower-cases "I" to a
// dotless "ı". A literal holding a NUL byte matches no indexed file (their text has none). Every file not indexed yet
// is a candidate as well (idx_mcp_files_grep_pending lists them), which the Service reads and
// matches itself. So a pattern with literal text reads only the indexed files that hold it and
// the files written since the indexer last ran. Literals without three ASCII letters or digits
// in a row are left out (pg_trgm has no trigram for them), and a pattern with nothing left lists
// the files in path order for the Service to read within its scan budget. Grep's statements run
// under SET LOCAL statement_timeout up to the call's time budget (a statement past it is
// TIMEOUT) and plan_cache_mode = force_custom_plan (a generic plan cannot see how selective a
// LIKE pattern is). driver.MultiGetter reads the candidates in one statement. Files holding a
// NUL byte have no entries in the index; grep skips them.
//
// Trigrams are computed off the write path. A write leaves its row unindexed (grep_indexed =
// FALSE; PostgreSQL checks a partial index's predicate before computing its expression, so the
// write computes no trigrams), and a background indexer (IndexGrep, every
// Options.GrepIndexInterval, in every process that opens the store) marks unindexed rows,
// taking tenants in turns: each round lists the tenants with unindexed files (the one statement
// that spans tenants, a read) and gives each a turn, one transaction over one of its projects
// (a tenant's projects take turns) of at most 256 files and Options.GrepIndexBatchBytes of text,
// sent in one round trip, that claims its rows with FOR UPDATE SKIP LOCKED: it never waits for
// a writer, and a writer of one of its files waits at most for one such transaction (a few
// milliseconds). A write that did wait past its lock timeout says so: its RESOURCE_BUSY names
// the grep indexer, not another write. Its UPDATE changes nothing but grep_indexed (the history
// triggers do not fire, and content, times, version, byte counts and the outbox stay as they
// were). Index entries belong to the row version they were computed for, so every answer is
// exact, and a file is found by grep as soon as its write commits, whether or not the indexer
// has reached it. Until it has, grep reads the file, which costs scan budget: a project that
// has just received many files is searched like one without an index for the time the indexer
// needs to catch up. The indexer's UPDATE is never a HOT update (it changes a column of an
// index predicate), so each write leaves one more dead row version for autovacuum (content
// stored in TOAST is shared by both versions). A check constraint refuses content that is not
// valid UTF-8 (INVALID_ARGUMENT), which the indexer could not index; the Service never writes
// such content. See BENCHMARKS.md for the costs.
//
// # Work that spans tenants
//
// Every statement on a request's path filters by tenant. Background work serves all tenants,
// and these of its statements span them: the grep indexer's list of tenants with unindexed
// files and the outbox's list of tenants with jobs (reads, one index probe per tenant); the
// outbox claim (one short statement over the jobs of up to 64 tenants in turns, locking only
// the jobs it leases); WaitForJobs' look at the earliest available job and PendingJobs' count
// (reads); and Purge's three statements (up to 1,000 deleted files, expired versions or
// expired events each, with the per-project counts they change). Each locks rows for one
// short statement or transaction at most, and takes tenants in turns where it does work for
// them (IndexGrep, ClaimJobs), so a tenant's backlog delays another tenant's by about one
// turn. A write that waits past its lock timeout for a row such work holds says which work it
// was (RESOURCE_BUSY).
//
// # Grep cache
//
// A Store keeps the contents of recently used projects in memory and answers every grep from
// them (driver.ContentSearcher's candidates and driver.MultiGetter's contents for any pattern,
// driver.LiteralGrepper for a literal one; internal/memgrep matches on the free CPUs) instead
// of PostgreSQL rechecking the trigram index's candidates or sending whole files. It holds, per
// scope (tenant and project, never shared between them), each file's content under its path
// and updated_at, within Options.GrepCacheBytes (DefaultGrepCacheBytes; negative: off), which
// everything it keeps counts against: contents, paths, the listing of each project (its files'
// paths, sizes and times) and a fixed cost per file and per listed file for Go's maps and
// slices (about 300 bytes a file in all), so that a project of many empty files costs what it
// holds. Greps fill it with what they read, and writes (Put, PutMany: file_write, imports,
// rewinds) with what they wrote once their transaction commits (until then a transaction keeps
// copies, which count against the same budget; past it, it puts nothing), so a grep right after
// a burst of writes or an import on the same process fetches no content. The least recently
// used project is evicted first, and a grep whose project (listing and contents) would not fit
// is answered in SQL as before. Each
// grep checks freshness in its own read transaction: it lists the path, updated_at and size of
// its files once (updated_at increases on every write of a path), fetches the contents it
// needs and the cache does not hold, in batches in the same transaction, as it goes (a pattern
// without literal text fetches no more than the scan budget lets it read), and matches the
// snapshot it listed. So several processes on one database each keep their own cache and every
// answer includes all writes committed before the grep began, whichever process made them.
// Write transactions never read the cache.
//
// # Import and export
//
// fileio.Service.Import writes through the write transaction's PutMany (driver.BulkWriter),
// a batch at a time (the Service's batches: at most 500 files or 2 MiB; their SHA-256 sums and
// UTF-8 checked in Go on the free CPUs, so that PostgreSQL neither hashes nor, under migration
// 0012's agentfiles.text_checked, checks them again). A batch whose paths are all new — every
// batch of an import into a new project or directory — is written with COPY, followed by one
// statement for the byte count, the index jobs, the history numbering and the change-feed
// events (bulk_copy.go); COPY takes the rows as a stream, which made a 30,000-file import about
// 15% faster than the statement below. Any other batch is one statement (the contents as
// one bytea parameter), sent without waiting for its result: PostgreSQL writes one batch while
// the Service reads and checks the next from the archive, and the result (or failure) comes
// at the transaction's next call. The statement inserts the new files and replaces the
// existing ones, counts their bytes, queues their index jobs and, for the new files, numbers
// their history versions and appends their change-feed events itself, set based: it runs with
// agentfiles.bulk_insert set, under which the INSERT triggers of migration 0011 stand aside
// (a replaced file goes through the UPDATE triggers as after any write). New rows are written
// with grep_indexed = TRUE unless the import defers indexing, so PostgreSQL computes their
// trigrams in that statement; this is most of an indexed import's time (pg_trgm's extraction
// and the GIN inserts; see BENCHMARKS.md). After the commit, on the same connection, the
// Update empties the GIN pending lists (gin_clean_pending_list) and, when it created at least
// 1,000 files, refreshes the planner's statistics of mcp_files (ANALYZE of the columns grep's
// conditions use): so the grep right after the import looks its literals up in the trigram
// index, which stale statistics (an empty table, a project the statistics have not seen) would
// make the planner pass over for a walk of the path index. Migration 0011 also compresses new
// content with lz4 where the server supports it (pglz otherwise).
//
// fileio.Service.Export reads through ListContent (driver.ContentLister): one statement per
// page of 256 files in path order, each file's content handed to the archive writer as its row
// arrives, not copied: memory is about one file whatever the project's size, and each
// statement is short even when the client reads slowly.
//
// # Errors
//
// Failures are *agentfiles.Error values: RESOURCE_BUSY for lock timeouts (and serialisation
// failures), whose message says what held the lock: another write to the project (its lock),
// or background work (the grep indexer, a claim of the search index's jobs) holding a row the
// write changes; TIMEOUT for a statement stopped by its statement_timeout; UNAVAILABLE, which is retryable, when the database cannot be reached (connection
// refused, reset or dropped, the pool cannot connect, the server is shutting down, starting up
// or out of connections); INVALID_ARGUMENT for values the schema cannot hold; INTERNAL for
// everything else. A connection lost during COMMIT is UNAVAILABLE with a message saying that
// the change may or may not have been saved.
// Messages never contain SQL, connection strings or file contents; the driver's error stays
// reachable with errors.Unwrap for logs. Context cancellation returns ctx.Err().
//
// A Store is safe for concurrent use by multiple goroutines and processes.
package pgstore
