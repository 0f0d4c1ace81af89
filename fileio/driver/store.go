package driver

import (
	"context"
	"time"

	"github.com/agentfiles/agentfiles"
)

// Scope names one project of one tenant.
type Scope struct {
	Tenant  string // agentfiles.AuthContext.TenantID
	Project string
}

// FileInfo describes one stored (active) file without its content.
type FileInfo struct {
	Path      string // "/a/b.txt" form (see ValidatePath)
	SizeBytes int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// File is a stored file with its content.
type File struct {
	FileInfo
	Content []byte // valid UTF-8
}

// Store is the persistence contract. Implementations: fileio/memstore, fileio/pgstore; every
// implementation must pass fileio/storetest.Exercise.
//
// Stores are dumb: path rules, write modes, implicit directories and quotas are the Service's
// job; the store gives transactions, per-project serialisation, and the outbox.
// Implementations must be safe for concurrent use.
type Store interface {
	// View runs fn with a read-only view of the project's committed state.
	View(ctx context.Context, scope Scope, fn func(ReadTx) error) error
	// Update runs fn in one transaction holding the project's exclusive write lock, waiting
	// for it at most opts.LockTimeout (pgstore: pg_advisory_xact_lock(hash(tenant, project))
	// under SET LOCAL lock_timeout); on expiry it returns an *agentfiles.Error with code
	// RESOURCE_BUSY without running fn. If fn returns an error nothing it did is kept, outbox
	// rows included, and Update returns that error; so it does, with a *QuotaError, when the
	// transaction would pass opts.Quota. Mutations of one (tenant, project) are serialised. A
	// store that keeps deleted rows keeps those deleted by fn for opts.DeleteRetention before
	// purging them.
	Update(ctx context.Context, scope Scope, opts UpdateOptions, fn func(WriteTx) error) error
	Outbox
}

// DefaultLockTimeout is the wait for a project's write lock when UpdateOptions.LockTimeout is
// zero; fileio.DefaultConfig uses the same.
const DefaultLockTimeout = 5 * time.Second

// UpdateOptions are the settings of one Store.Update. The Service passes its Config's
// LockTimeout and DeleteRetention with every Update, so the configuration reaches the store
// without being copied into it; direct callers may pass the zero value.
type UpdateOptions struct {
	// LockTimeout bounds the wait for the project's write lock; on expiry Update returns
	// RESOURCE_BUSY. Zero means DefaultLockTimeout.
	LockTimeout time.Duration
	// DeleteRetention is how long a store that soft-deletes (pgstore) keeps the rows this
	// transaction deletes before its purger removes them for good. Zero: they go at the next
	// purge. Stores that delete at once (memstore) ignore it.
	DeleteRetention time.Duration
	// HistoryVersions is how many previous versions of each path the store keeps: every Put
	// that replaces a file and every Delete (a rename is both) keeps the content it replaces
	// as a version, numbered per path (see Historian). 0: no history.
	HistoryVersions int
	// HistoryRetention is how long a kept version stays after it was replaced, at most.
	HistoryRetention time.Duration
	// Quota, when not zero, is checked when fn returns, if the transaction created or
	// replaced a file (Put, BulkWriter, Splicer, Mover, a ConditionalWriter's write): Update
	// then fails with a *QuotaError and keeps nothing when Quota.Check refuses the project's
	// Usage at commit given its Usage when the transaction took the lock. A transaction that
	// only deletes (files, versions, checkpoints) is never refused. The tenant's bounds are
	// checked against the committed state of its other projects, so transactions that add
	// files to several projects of one tenant at once may together pass them by what they add
	// (memstore checks them exactly).
	Quota Quota
}

// LockWait returns o.LockTimeout, or DefaultLockTimeout when it is not positive. Stores use it
// to implement Update.
func (o UpdateOptions) LockWait() time.Duration {
	if o.LockTimeout <= 0 {
		return DefaultLockTimeout
	}
	return o.LockTimeout
}

// ReadTx is a read-only view of one project. It is valid only inside the View or Update
// callback that received it and must not be used from other goroutines.
type ReadTx interface {
	// Get returns the active file at path, or an *agentfiles.Error with code NOT_FOUND.
	Get(ctx context.Context, path string) (File, error)
	// Stat returns the file's info and true, or false when no active file has that path.
	Stat(ctx context.Context, path string) (FileInfo, bool, error)
	// List returns active files whose path has the given string prefix, sorted by path
	// ascending (bytewise), at most limit of them (limit <= 0: no limit).
	List(ctx context.Context, prefix string, limit int) ([]FileInfo, error)
	// ProjectBytes is the sum of SizeBytes of the project's active files and of the versions
	// its history keeps (see Historian; pinned ones included). The byte quota also counts the
	// change-feed events the project keeps (Usage.Bytes).
	ProjectBytes(ctx context.Context) (int64, error)
	// Historian gives the file history: Versions and GetVersion.
	Historian
}

// WriteTx is a read-write transaction on one project, valid only inside the Update callback.
type WriteTx interface {
	ReadTx
	// Put creates or replaces the active file at path (CreatedAt kept on replace, UpdatedAt =
	// now, strictly increasing per path; a new file has CreatedAt == UpdatedAt) and enqueues
	// an UPSERT job for it in the same transaction. It returns the new info, equal to what a
	// later Stat returns.
	Put(ctx context.Context, path string, content []byte, opts PutOptions) (FileInfo, error)
	// Delete soft-deletes the active files at paths (missing ones are ignored) and enqueues a
	// DELETE job for each, in the same transaction.
	Delete(ctx context.Context, paths ...string) error
}

// PutOptions are the optional parts of a WriteTx.Put.
type PutOptions struct {
	CredentialRef string // optional: reference to a sealed credential envelope for the indexer
}

// JobOp is the kind of index job.
type JobOp string

// The index job kinds.
const (
	JobUpsert JobOp = "UPSERT"
	JobDelete JobOp = "DELETE"
)

// Job is one pending index job. There is at most one job per (tenant, project, path): a new
// mutation of the path replaces Op/FileUpdatedAt/CredentialRef, sets EnqueuedAt to the new
// commit time, resets Attempts, makes it available now, and bumps Version.
type Job struct {
	ID            int64
	Scope         Scope
	Path          string
	Op            JobOp
	FileUpdatedAt time.Time // for UPSERT: UpdatedAt of the file version that enqueued it
	EnqueuedAt    time.Time // commit time of the newest mutation behind the job; freshness is measured from it
	Attempts      int       // failed attempts so far
	CredentialRef string
	Version       int64 // changes whenever a newer mutation supersedes the job
}

// Outbox is the index-job queue every Store keeps, written in the same transaction as the
// mutation. Package search consumes it.
type Outbox interface {
	// ClaimJobs leases up to limit jobs that are available now for lease, taking tenants in
	// turns: every tenant's oldest job (by EnqueuedAt), then every tenant's second oldest, …,
	// starting with the tenants after the one the previous claim took a job of last, so that a
	// tenant with a million queued jobs holds back another tenant's one job for at most one
	// claim. The jobs are returned oldest EnqueuedAt first. A leased job is invisible to other
	// claimers until the lease expires (crash recovery). pgstore: FOR UPDATE SKIP LOCKED.
	//
	// When ctx ends while a claim is in flight, a remote store may still carry it out and lease
	// jobs that ClaimJobs does not return (it returns ctx.Err()); they wait out the lease. So a
	// consumer that stops claiming checks its stop signal before calling ClaimJobs and lets a
	// claim already under way finish, rather than ending its context.
	ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]Job, error)
	// CompleteJob removes the job, unless a newer mutation re-queued it after the claim
	// (Version differs): then the job stays pending and CompleteJob returns nil.
	CompleteJob(ctx context.Context, job Job) error
	// RetryJob releases the job to be claimed again from notBefore, with Attempts+1 and the
	// error text recorded (never file contents or keys). A superseded job is left as is.
	RetryJob(ctx context.Context, job Job, notBefore time.Time, lastError string) error
	// WaitForJobs blocks until a job may be available, maxWait passes, or ctx ends (then ctx.Err()).
	// It may return early spuriously. (memstore: a channel; pgstore: LISTEN/NOTIFY with polling.)
	WaitForJobs(ctx context.Context, maxWait time.Duration) error
	// PendingJobs counts jobs not yet completed (leased or not). For metrics and tests.
	PendingJobs(ctx context.Context) (int, error)
}

// WaitForSignal blocks until signal is closed or d passes, and returns nil (at once when
// d <= 0), or until ctx ends first, and returns ctx.Err(). Stores use it to implement
// Outbox.WaitForJobs: signal is closed when a job may have become available.
func WaitForSignal(ctx context.Context, signal <-chan struct{}, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-signal:
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WriteChecker is an optional interface of a WriteTx that answers every question
// Service.Write asks before it writes in one step (pgstore: one SQL statement instead of a
// Stat per ancestor directory, a List, a Get and ProjectBytes). When the WriteTx passed to the
// Update callback implements it, Service.Write calls CheckWrite once; otherwise it makes those
// calls itself. Both paths give identical results and errors: fileio/storetest runs its
// suite with and without the optional interfaces (see storetest.WithoutOptional).
type WriteChecker interface {
	// CheckWrite reports what a write to path must know, as Stat, List, Get and ProjectBytes
	// would report it at this point of the transaction (the transaction's own earlier writes
	// included). Existing.Content is filled only when wantContent is true; otherwise it is nil
	// and only Existing.FileInfo is meaningful.
	CheckWrite(ctx context.Context, path string, wantContent bool) (WriteCheck, error)
}

// WriteCheck is the stored state a write to one path depends on; see WriteChecker.
type WriteCheck struct {
	// AncestorFile is the shortest of path's ancestor directories at which an active file
	// exists, "" if there is none. The ancestor directories of "/a/b/c" are "/a" and "/a/b":
	// every prefix of path that ends just before a "/" other than the leading one.
	AncestorFile string
	// HasDescendant reports whether an active file's path starts with path + "/".
	HasDescendant bool
	// Existing is the active file at path, nil if there is none.
	Existing *File
	// ProjectBytes is what ReadTx.ProjectBytes returns.
	ProjectBytes int64
}

// ConditionalWriter is an optional interface of a WriteTx that checks and writes in one step
// (pgstore: one SQL statement, so a write costs no more round trips than a bare Put) when the
// new content does not depend on the old bytes: a replacement (TRUNCATE) or an append, which
// the store performs without reading the content out (pgstore: content = content || $data).
// Service.Write uses it for those two modes when the WriteTx implements it.
//
// The Service still decides. It applies its rules to the returned Check exactly as to a
// CheckWrite answer; when they refuse the write it returns its own error, so the transaction
// rolls back and undoes anything the store wrote, and should the store decline a write the
// rules allow, the Service writes it through the other paths. A correct implementation writes
// exactly when ConditionalWrite.Allows(Check) holds, so that a write, made or refused, costs
// one call.
type ConditionalWriter interface {
	// WriteIfAllowed reports the state before the write as CheckWrite(ctx, w.Path, false)
	// would and, when w.Allows it, writes: as Put(ctx, w.Path, w.Data, opts), or with w.Append
	// as a Put of the existing content (empty for a missing file) followed by w.Data.
	WriteIfAllowed(ctx context.Context, w ConditionalWrite, opts PutOptions) (ConditionalResult, error)
}

// ConditionalWrite is a write and the conditions under which Service.Write accepts it.
type ConditionalWrite struct {
	Path            string
	Data            []byte // valid UTF-8
	Append          bool   // the new content is the existing content followed by Data; else Data
	Exclusive       bool   // refuse when a file exists at Path
	MaxFileBytes    int64  // refuse when the new file would be larger
	MaxProjectBytes int64  // refuse when the write grows the project beyond this
}

// Allows reports whether Service.Write accepts w given the state in check: no ancestor
// directory of Path is a file, nothing lies below Path, no file exists at Path if Exclusive,
// the new file fits MaxFileBytes, and a write that grows the project keeps it within
// MaxProjectBytes. It is the rule the Service applies, for ConditionalWriter implementations.
func (w ConditionalWrite) Allows(check WriteCheck) bool {
	if check.AncestorFile != "" || check.HasDescendant {
		return false
	}
	var oldSize int64
	if check.Existing != nil {
		if w.Exclusive {
			return false
		}
		oldSize = check.Existing.SizeBytes
	}
	newSize := int64(len(w.Data))
	if w.Append {
		newSize += oldSize
	}
	if newSize > w.MaxFileBytes {
		return false
	}
	grow := newSize - oldSize
	return grow <= 0 || check.ProjectBytes+grow <= w.MaxProjectBytes
}

// ConditionalResult is what WriteIfAllowed did.
type ConditionalResult struct {
	Check   WriteCheck // the state before the write; Existing carries no content
	Written bool       // the write was made
	Info    FileInfo   // the new file's info, when Written
	// SHA256 is the hex SHA-256 of the new content, when Written (WriteResult.SHA256 of an
	// APPEND the store made in place; "" leaves it unreported).
	SHA256 string
}

// MultiStater is an optional interface of a ReadTx that answers many Stat calls in one step
// (pgstore: one statement). Package search checks the liveness of a query's results with it;
// use the StatMany function, which falls back to Stat per path.
type MultiStater interface {
	// StatMany returns the info of the active files among paths, keyed by path, as Stat would
	// report each of them at this point of the transaction; paths without an active file are
	// absent. Duplicate paths are allowed.
	StatMany(ctx context.Context, paths []string) (map[string]FileInfo, error)
}

// StatMany returns the info of the active files among paths, keyed by path: in one call when
// tx implements MultiStater, else with one Stat per distinct path.
func StatMany(ctx context.Context, tx ReadTx, paths []string) (map[string]FileInfo, error) {
	if m, ok := tx.(MultiStater); ok {
		return m.StatMany(ctx, paths)
	}
	out := make(map[string]FileInfo, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		info, ok, err := tx.Stat(ctx, p)
		if err != nil {
			return nil, err
		}
		if ok {
			out[p] = info
		}
	}
	return out, nil
}

// ScopeJobLister is an optional interface of a Store: the pending index jobs of one project,
// read without listing the project's files. Package search learns from it which files the
// index has not caught up with (an UPSERT job: the file's current version is not indexed yet;
// a DELETE job: the indexed file is gone), so that a query costs no more as the project grows.
// memstore and pgstore implement it.
type ScopeJobLister interface {
	// ScopeJobs returns the jobs of scope not yet completed (leased or not, waiting for a retry
	// included) whose path has the string prefix, newest EnqueuedAt first, at most limit of them
	// (limit <= 0: all). CredentialRef is left empty.
	ScopeJobs(ctx context.Context, scope Scope, prefix string, limit int) ([]Job, error)
}

// GrepCandidates is the question Service.Grep asks a store's index: which files below a prefix
// may hold a match. See ContentSearcher.
type GrepCandidates struct {
	// Prefix is the string prefix of the paths to consider ("/docs/"; "/" for all).
	Prefix string
	// After, when not empty, keeps only paths that sort after it (bytewise): where a previous
	// call stopped.
	After string
	// Query holds for the content of every file with a match (see ContentQuery).
	Query ContentQuery
	// Limit is the most files to return (> 0).
	Limit int
	// Deadline, when not zero, bounds the store's work: a statement still running at the
	// deadline is cancelled (pgstore: SET LOCAL statement_timeout) and the call fails with
	// TIMEOUT. The Service sets it from Config.GrepTimeout.
	Deadline time.Time
	// MaxReadBytes, when > 0, bounds the file content a store reads to filter (a store
	// without an index, as memstore): once it has read that much it returns what it found so
	// far and says so in Read. The Service sets it to what is left of Config.GrepMaxScanBytes.
	MaxReadBytes int64
	// Read, when not nil, receives what a store that reads content to filter did (zero for a
	// store with an index).
	Read *CandidateRead
}

// CandidateRead is the content a store read to answer GrepCandidates: it counts against the
// Service's scan budget.
type CandidateRead struct {
	Bytes   int64  // file content read, as charged against the budget (memstore: 1/16 of it)
	Through string // the last path examined, in path order
	Stopped bool   // it stopped at Through because it read MaxReadBytes, not at the end
}

// ContentSearcher is an optional interface of a ReadTx: an index that skips the files whose
// content cannot satisfy a ContentQuery (pgstore: a pg_trgm GIN index on the content). Without
// it, Service.Grep reads every file below the searched directory, within its byte and time
// budgets. Both give identical answers: exact matching always happens in the Service.
type ContentSearcher interface {
	// GrepCandidates returns the infos of active files whose path starts with c.Prefix and
	// sorts after c.After, in path order, at most c.Limit of them, leaving out only files
	// whose content does not satisfy c.Query. A file that satisfies it must never be left
	// out; files that do not may be included.
	GrepCandidates(ctx context.Context, c GrepCandidates) ([]FileInfo, error)
}

// ScanViewer is an optional interface of a Store whose connections are a shared, bounded
// resource (pgstore's pool): it runs the long read-only transactions of Service.Grep and
// Service.Glob, which last up to their time budget, apart from short ones, so that searches
// never hold every connection and a short call of another tenant never waits for one. Without
// it, or behind a wrapper that hides it, the Service runs them with View.
type ScanViewer interface {
	// ViewScan is View for a transaction that may last until ctx's deadline. It may first wait
	// for its turn, at most until ctx ends; when ctx's deadline comes first it fails with a
	// RESOURCE_BUSY *agentfiles.Error (retryable).
	ViewScan(ctx context.Context, scope Scope, fn func(ReadTx) error) error
}

// MultiGetter is an optional interface of a ReadTx that reads many files in one step (pgstore:
// one statement). Service.Grep reads candidate files with it; use the GetMany function, which
// falls back to Get per path.
type MultiGetter interface {
	// GetMany returns the active files among paths, in the order of paths, leaving out the
	// paths without an active file. The caller must not modify the returned contents.
	GetMany(ctx context.Context, paths []string) ([]File, error)
}

// GetMany returns the active files among paths in their order: in one call when tx implements
// MultiGetter, else with one Get per path (missing files are left out).
func GetMany(ctx context.Context, tx ReadTx, paths []string) ([]File, error) {
	if m, ok := tx.(MultiGetter); ok {
		return m.GetMany(ctx, paths)
	}
	out := make([]File, 0, len(paths))
	for _, p := range paths {
		f, err := tx.Get(ctx, p)
		if agentfiles.ErrorCode(err) == agentfiles.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
