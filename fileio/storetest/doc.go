// Package storetest is the acceptance suite for driver.Store implementations, in the spirit of
// testing/fstest.TestFS: a store that passes Exercise behaves as the Service and the search
// indexer expect.
//
// # Use
//
//	func TestStore(t *testing.T) {
//		storetest.Exercise(t, func(t *testing.T) driver.Store { return memstore.New(memstore.Options{}) })
//	}
//
// newStore must return an empty store on every call (the outbox is shared by all tenants, so
// outbox tests count jobs). Exercise runs, as subtests:
//
//   - Service: every rule of the FileIO operations (stat, read, write, delete, list, limits,
//     quotas, rate limit, UTF-8, authentication, path rules), through a fileio.Service over the
//     store;
//   - Store: the contract itself (transactions and rollback, read-your-writes, committed-only
//     views, per-project serialisation, the lock timeout of UpdateOptions and of a Service's
//     Config, the outbox: de-duplication, versions, leases, retries);
//   - Concurrency: appends from 50 goroutines, quotas under concurrent writers;
//   - CrossTenant: tenant B's every operation on tenant A's project sees and changes nothing;
//   - EditRenameHistory: the editing operations through the Service: edits all or
//     nothing, missing and ambiguous matches (with the lines of the matches), dry runs, the
//     insert form, expected_sha256 races where exactly one editor wins and retried edits lose
//     nothing, edits of large files whose diff must equal the whole file's; renames of files
//     and directories (merges, overwrite, every clash code, path rules), a directory rename
//     under concurrent appends that loses none, its outbox jobs and their credentials; line
//     ranges; versions after every kind of mutation, reading and restoring them, restoring a
//     deleted file, the retention count, history in the quota, the history turned off; and
//     tenant isolation of every new operation;
//   - GrepGlob: Service.Grep and Service.Glob on a fixture of edge cases (CRLF lines, NUL
//     bytes, dot files, UTF-8, Unicode case folding, long lines, every output mode, context,
//     globs, a file as the path), their argument errors, the scan budget and answer cap with
//     cursors that lose and repeat nothing, and a differential test against a plain per-line
//     scan (ReferenceGrep) on random files and patterns (RandomGrepFiles, RandomGrepPattern),
//     paged with small limits; all of it again with the store's driver.LiteralGrepper hidden
//     and with its driver.ContentSearcher and driver.MultiGetter hidden too, so the indexed
//     and the portable paths agree (a costly expression's time budget, which no index
//     narrows, on the store and the portable path only). CrossTenant
//     also greps and globs tenant A's project as tenant B;
//   - Patch: Service.ApplyPatch and Service.ReadMany: random changes (RandomPatchCase) as V4A,
//     perturbed V4A, unified diffs and Responses-API operations, each compared file by file
//     with the expected project (ReadProject); a patch whose last chunk fails changing nothing;
//     every refusal (Add or Move onto a file, missing files, malformed or oversized patches,
//     paths leaving the project) coded and changing nothing; dry runs; history; ten concurrent
//     patches of one file all landing; ReadMany's per-file errors, answer cap and cursor;
//   - Model: random operation sequences checked against a reference model (RunModel), which
//     stores can also drive from a fuzz test with RunModelOps;
//   - OptionalInterfaces: when the store's WriteTx implements driver.WriteChecker or
//     driver.ConditionalWriter, CheckWrite must answer exactly as Stat, List, Get and
//     ProjectBytes do (on odd fixtures and inside a transaction with uncommitted changes), and
//     WriteIfAllowed must report the same state, write exactly when ConditionalWrite.Allows,
//     and write what Put would; the same random writes through Services with the interfaces
//     present, hidden (WithoutOptional), one at a time, and with a ConditionalWriter that
//     declines everything or ignores the limits must give identical results, error texts and
//     files; and the Service's write rules, the Concurrency, Model and EditRenameHistory
//     suites run again over WithoutOptional (no driver.Splicer or driver.Mover either), so the
//     portable path stays covered too.
//
// A store that searches in more than one state (an index built or not, a cache of some size)
// runs [ExerciseGrepSearch] in each: the part of GrepGlob whose answers go through the store's
// own search. [ExerciseGrepStore] runs the grep suite on the store as it is, for settings
// such as a collation.
//
// A store's own tests can read back everything a project holds with [Files]. Any test can get a
// Service without a rate limit over a store with [NewService], and empty a store's outbox with
// [CompleteJobs].
package storetest
