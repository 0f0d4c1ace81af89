// Package pgstore is the PostgreSQL fileio.Store: files, index jobs and per-project byte counts
// in plain tables, shared by any number of processes that use the same database.
//
// # Use
//
//	store, err := pgstore.Open(ctx, "postgres://user@db/app", pgstore.Options{
//		LockTimeout:     cfg.LockTimeout,     // settings.mcp.files.lock_timeout_ms
//		DeleteRetention: cfg.DeleteRetention, // settings.mcp.files.delete_retention_days
//	})
//	if err != nil { ... }
//	defer store.Close()
//	svc, err := fileio.NewService(store, cfg)
//
// New takes an existing *pgxpool.Pool instead (the caller keeps owning it). Both bring the
// schema up to date first.
//
// # Schema and migrations
//
// The tables are those of seed 003 §10.1–10.2: mcp_files (one active row per path, soft-deleted
// rows kept until purged), mcp_file_index_jobs (the outbox, one row per pending path), plus
// mcp_file_project_usage (bytes and files per project, maintained by every mutation so a quota
// check reads one row). They are created by versioned SQL files embedded in the binary and
// recorded in mcp_files_schema_migrations. [Migrate] holds a pg_advisory_lock while it works,
// so many instances can start at once against an empty database. Tables live in the first
// schema of the connection's search_path (add ?search_path=myschema to the URL to choose one).
//
// # Transactions and locking
//
// Update runs its callback in one READ COMMITTED transaction that first takes
// pg_advisory_xact_lock(hash(tenant, project)) with SET LOCAL lock_timeout; if the lock is not
// granted in time the result is a fileio RESOURCE_BUSY error. All mutations of one project, from
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
// path, and re-planning them would cost more than running them.
//
// The write transaction implements fileio.WriteChecker and fileio.ConditionalWriter, each in
// one statement of index lookups, so fileio.Service.Write costs three round trips too for
// TRUNCATE and APPEND (lock, check-and-write, COMMIT) and four for OVERWRITE (lock, check,
// Put, COMMIT), instead of five or more. An APPEND runs content = content || $data in the
// server: the existing content never travels to the client and back.
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
// Delete marks rows deleted (deleted, deleted_at); they are invisible to every read. Purge
// removes rows deleted longer ago than a retention period; Options.DeleteRetention runs it in the
// background.
//
// # Errors
//
// Failures are *fileio.Error values: RESOURCE_BUSY for lock timeouts (and serialisation
// failures), INVALID_ARGUMENT for values the schema cannot hold, INTERNAL for everything else.
// Messages never contain SQL, connection strings or file contents; the driver's error stays
// reachable with errors.Unwrap for logs. Context cancellation returns ctx.Err().
//
// A Store is safe for concurrent use by multiple goroutines and processes.
package pgstore
