// Package driver is the contract between fileio.Service and the stores that keep its files. A
// program that only uses files never imports it: it passes a store (fileio/memstore,
// fileio/pgstore) to fileio.NewService and calls the Service. A store author implements the
// interfaces here and runs the acceptance suite fileio/storetest against the store; package
// search reads the index jobs (Outbox) through it.
//
// # Transactions
//
// Store gives transactions (View, Update) with per-project serialisation; Update waits for the
// project's lock at most UpdateOptions.LockTimeout. Stores are dumb: path rules, write modes
// and implicit directories are the Service's job; the store gives transactions, per-project
// serialisation, the history (Historian) and the outbox.
//
// # Quotas
//
// The Service checks its quotas as it plans a change, for an early and precise answer; the
// store has the last word, at commit (UpdateOptions.Quota, Quota.Check): only it knows what a
// transaction's history keeps and drops, and it sees every way a transaction creates files.
// The byte quota counts everything a project keeps (Usage.Bytes): its files and kept versions
// (ReadTx.ProjectBytes) and its change-feed events (EventBytes each).
//
// # The outbox
//
// Every mutation also writes an index job to the store's Outbox in the same transaction, which
// package search consumes (ClaimJobs, CompleteJob, RetryJob). PutOptions.CredentialRef carries
// the reference to the caller's sealed key for the indexer.
//
// # Optional interfaces
//
// A Store needs only View and Update, and its ReadTx the history (Historian). A WriteTx may also
// implement optional interfaces that make the Service cheaper without changing what it does:
//
//   - WriteChecker answers every check a write makes (ancestors, descendants, the existing
//     file, the project's bytes) in one step instead of a Stat per ancestor, a List, a Get and
//     ProjectBytes;
//   - ConditionalWriter checks and writes a TRUNCATE or APPEND in one step, appending without
//     reading the content out (a Store may add ConditionalUpdater: the whole Update in one
//     round trip);
//   - Splicer finds and replaces text where the file is stored (pgstore: position() and
//     overlay() in SQL);
//   - Mover moves a directory's files in one step;
//   - MultiStater, MultiGetter and RangeReader read many files or byte ranges in one step;
//   - ContentSearcher skips files that cannot hold a grep match (pgstore: a trigram index),
//     given a ContentQuery;
//   - LiteralGrepper answers a grep whose pattern is literal text alone (LiteralGrep) where
//     the files are stored: the files with a matching line and how many lines match, without
//     sending contents (pgstore: the trigram index and LIKE in SQL);
//   - HistoryPurger and HistorySizer drop kept versions and tell how many bytes they hold;
//   - ProjectLister and ScopeJobLister list a tenant's projects and one project's pending jobs.
//
// The Service applies the same rules to their answers, so results and errors are identical on
// every path; fileio/storetest runs its suites with and without the optional interfaces
// (storetest.WithoutOptional, storetest.WithoutLiteralGrep) and proves it for each store.
// fileio/memstore and fileio/pgstore implement them all, except LiteralGrepper, which only
// pgstore implements (memstore matches in memory, where reading a file costs nothing).
//
// All implementations must be safe for concurrent use.
package driver
