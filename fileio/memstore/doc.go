// Package memstore is the in-memory driver.Store: the embedded default for development,
// tests and single-process servers. Nothing survives the process.
//
// # Model
//
// Each (tenant, project) has its own committed state (a map of files plus their infos sorted
// by path, so that List copies one range), a write lock and a read/write mutex. Update takes
// the project's write lock, waiting at most driver.UpdateOptions.LockTimeout (which a
// fileio.Service fills in from its Config) before RESOURCE_BUSY, runs the callback against a
// private overlay, and commits the overlay in one step; an error from the callback discards
// it, outbox rows included. Deleted files are gone at commit, so
// UpdateOptions.DeleteRetention does not apply. View holds a read lock for the duration of
// its callback, so it sees committed state only and never a transaction in progress.
// Different projects never contend.
//
// The write transaction also implements the optional driver.WriteChecker and
// driver.ConditionalWriter, so a fileio.Service over a memstore takes the same paths as over
// pgstore, and fileio/storetest checks them against the portable one on every go test.
//
// # Outbox
//
// Every committed Put or Delete enqueues an index job, at most one per (tenant, project,
// path): a newer mutation supersedes the pending job (new Version). Jobs are leased by
// ClaimJobs and come back when the lease expires; WaitForJobs wakes on a channel that is
// closed on every enqueue.
package memstore
