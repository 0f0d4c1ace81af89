package search

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// CredentialOpener opens and deletes the sealed caller credentials that index jobs refer to
// (driver.Job.CredentialRef); *vault.Vault implements it. Implementations must be safe for
// concurrent use.
type CredentialOpener interface {
	// Open returns the API key sealed under ref for (scope, path), or an error (the Indexer
	// indexes lexical-only and retries).
	Open(ctx context.Context, ref string, scope driver.Scope, path string) (string, error)
	// Delete removes the envelope under ref after use; a missing one is not an error.
	Delete(ctx context.Context, ref string) error
}

// parkedRetry is how long a job that failed retry_max times waits before its next attempt.
const parkedRetry = time.Hour

// errNoCredential: the job has no envelope at all, so retrying cannot help.
var errNoCredential = agentfiles.NewError(agentfiles.CodeCredentialUnavailable, "the job carries no sealed caller credential and the embedder needs the caller's key; configure a CredentialSealer on the fileio Service", "")

// IndexerOptions are the optional settings of an [Indexer]; zero fields mean the defaults given,
// which are DefaultConfig's. Config.IndexerOptions fills them from the configuration file.
type IndexerOptions struct {
	Embedder Embedder // nil: lexical-only indexing
	// Credentials opens the caller's sealed API key for embedders that call an API with it
	// (CallerCredentialUser). Nil: such embedders cannot be used and files are indexed
	// lexical-only.
	Credentials CredentialOpener
	Chunker     Chunker // how files are cut (zero: the default sizes); the Searcher's must match
	Workers     int     // concurrent workers started by Start (default 2)
	BatchSize   int     // jobs claimed at once per worker (default 16)
	// RetryMax is how many failed attempts a job gets before the Indexer gives up or degrades to
	// lexical-only (default 5; negative: no retries).
	RetryMax int
	// RetryBackoff is the first retry delay, doubled per attempt up to 64 times it, plus up to
	// 20% jitter (default 500ms).
	RetryBackoff time.Duration
	// SLOP95 is the freshness objective reported with the stats (default 30s).
	SLOP95 time.Duration
	// Lease is how long a claimed job stays invisible to other workers (default 2 minutes).
	Lease time.Duration
	// PollInterval is the longest wait for new jobs before polling again (default 1s).
	PollInterval time.Duration
	Now          func() time.Time // clock for freshness and retry times (default time.Now)
	Logger       *slog.Logger     // nil: silent; paths and counts only, never contents or keys
}

// Indexer consumes the Store's outbox and keeps the Index in step with the files: N workers
// claim jobs, skip stale ones, cut files into chunks, embed them, replace each file's chunks
// atomically, retry failures with bounded exponential backoff, and record freshness. Processing
// a job twice has the same effect as once. It is safe for concurrent use.
//
// # Failures
//
// When embedding fails (provider error, or the caller's credential envelope is missing or
// expired) the file is indexed lexical-only at once, so it is searchable, and the job is retried
// up to retry_max times to add vectors; after that the lexical-only version stays (degraded).
type Indexer struct {
	store   driver.Store
	index   indexdriver.Index
	opts    IndexerOptions // every default applied
	log     *slog.Logger
	fresh   freshness
	counter struct{ indexed, deleted, skipped, retried, degraded, failed atomic.Int64 }

	mu       sync.Mutex
	started  bool
	stop     context.CancelFunc // ends claiming
	abort    context.CancelFunc // ends in-flight work
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// IndexerStats are counters since NewIndexer plus freshness percentiles.
type IndexerStats struct {
	Indexed  int64 // file versions written (full or lexical-only)
	Deleted  int64 // files removed from the index
	Skipped  int64 // stale or already-indexed jobs completed without work
	Retried  int64 // jobs released for a later attempt
	Degraded int64 // files left lexical-only after retry_max attempts
	// Failed counts jobs that failed retry_max times. They stay in the outbox, parked for an
	// hour between attempts, so the Searcher keeps scanning their files at query time.
	Failed    int64
	Freshness FreshnessStats
}

// NewIndexer returns a stopped Indexer that keeps index in step with the files and the outbox
// of index jobs of store; call Start, or ProcessBatch. A nil store or index is INVALID_CONFIG.
func NewIndexer(store driver.Store, index indexdriver.Index, opts IndexerOptions) (*Indexer, error) {
	if store == nil || index == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "an Indexer needs a Store and an Index", "NewIndexer")
	}
	d := DefaultConfig().Index
	setDefault(&opts.Workers, d.Workers)
	setDefault(&opts.BatchSize, d.BatchSize)
	setDefault(&opts.RetryMax, d.RetryMax)
	opts.RetryMax = max(opts.RetryMax, 0)
	setDefault(&opts.RetryBackoff, d.RetryBackoff)
	setDefault(&opts.SLOP95, d.SLOP95)
	setDefault(&opts.Lease, 2*time.Minute)
	setDefault(&opts.PollInterval, time.Second)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Indexer{store: store, index: index, opts: opts, log: orDiscard(opts.Logger)}, nil
}

// Start launches the workers. They run until Stop (or until ctx ends).
func (ix *Indexer) Start(ctx context.Context) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.started {
		return
	}
	ix.started = true
	claimCtx, stop := context.WithCancel(ctx)
	workCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	ix.stop, ix.abort = stop, abort
	for range ix.opts.Workers {
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			ix.worker(claimCtx, workCtx)
		}()
	}
}

// Stop stops claiming new jobs and waits for a claim in flight and for the jobs already claimed
// to finish (drain). If ctx ends first, in-flight work is cancelled (those jobs become claimable
// again when their lease expires) and ctx.Err() is returned.
func (ix *Indexer) Stop(ctx context.Context) error {
	ix.mu.Lock()
	started := ix.started
	ix.mu.Unlock()
	if !started {
		return nil
	}
	ix.stopOnce.Do(ix.stop)
	done := make(chan struct{})
	go func() { ix.wg.Wait(); close(done) }()
	select {
	case <-done:
		ix.abort()
		return nil
	case <-ctx.Done():
		ix.abort()
		<-done
		return ctx.Err()
	}
}

func (ix *Indexer) worker(claimCtx, workCtx context.Context) {
	for claimCtx.Err() == nil {
		n, err := ix.runBatch(claimCtx, workCtx)
		if err != nil && claimCtx.Err() == nil {
			ix.log.Warn("claiming index jobs failed", "error", err)
		}
		if n == 0 {
			_ = ix.store.WaitForJobs(claimCtx, ix.opts.PollInterval)
		}
	}
}

// ProcessBatch claims one batch of jobs and processes it, returning how many jobs it claimed.
// It is for callers that drive indexing themselves (tests, cron-style workers) instead of Start.
// ctx bounds the claim and the work: jobs of a claim or a batch that ctx interrupts become
// claimable again when their lease expires (see driver.Outbox.ClaimJobs).
func (ix *Indexer) ProcessBatch(ctx context.Context) (int, error) {
	return ix.runBatch(ctx, ctx)
}

// runBatch claims a batch if claimCtx has not ended and processes it under workCtx.
//
// The claim itself runs under workCtx too: a claim once sent is seen through even if claiming
// stops meanwhile, and its jobs are processed like the rest of the drain. Cancelling it could
// lose them, because a store may carry out a claim whose caller has gone: PostgreSQL ignores a
// cancel request that arrives while it is still reading the statement and then runs it, and
// pgx stops waiting for the answer shortly after the cancel. Such jobs would be leased to nobody
// and wait out the whole lease before any worker could take them.
func (ix *Indexer) runBatch(claimCtx, workCtx context.Context) (int, error) {
	if err := claimCtx.Err(); err != nil {
		return 0, err
	}
	jobs, err := ix.store.ClaimJobs(workCtx, ix.opts.BatchSize, ix.opts.Lease)
	if err != nil {
		return 0, err
	}
	for _, j := range jobs {
		ix.handle(workCtx, j)
	}
	return len(jobs), nil
}

// Stats returns the counters and freshness percentiles.
func (ix *Indexer) Stats() IndexerStats {
	c := &ix.counter
	return IndexerStats{
		Indexed: c.indexed.Load(), Deleted: c.deleted.Load(), Skipped: c.skipped.Load(),
		Retried: c.retried.Load(), Degraded: c.degraded.Load(), Failed: c.failed.Load(),
		Freshness: ix.fresh.stats(ix.opts.SLOP95),
	}
}

func (ix *Indexer) handle(ctx context.Context, job driver.Job) {
	var err error
	switch job.Op {
	case driver.JobDelete:
		err = ix.handleDelete(ctx, job, job.EnqueuedAt)
	default:
		err = ix.handleUpsert(ctx, job)
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	if job.Attempts >= ix.opts.RetryMax {
		// Parked rather than completed: the pending job is how the Searcher knows to scan the
		// file at query time, and an hourly attempt heals what was transient.
		ix.counter.failed.Add(1)
		ix.log.Error("index job failed retry_max times; parked, retried hourly, the file stays findable by query-time scan", "path", job.Path, "attempts", job.Attempts+1, "error", errorText(err))
		if err := ix.store.RetryJob(ctx, job, ix.opts.Now().Add(parkedRetry), errorText(err)); err != nil {
			ix.log.Warn("parking an index job failed; it is retried when its lease expires", "path", job.Path, "error", err)
		}
		return
	}
	ix.retry(ctx, job, err)
}

// handleDelete removes the file's chunks of versions up to upTo.
func (ix *Indexer) handleDelete(ctx context.Context, job driver.Job, upTo time.Time) error {
	if err := ix.index.DeleteFile(ctx, job.Scope, job.Path, upTo); err != nil {
		return err
	}
	ix.fresh.add(ix.opts.Now().Sub(job.EnqueuedAt))
	ix.counter.deleted.Add(1)
	ix.forgetCredential(ctx, job)
	ix.complete(ctx, job)
	return nil
}

func (ix *Indexer) handleUpsert(ctx context.Context, job driver.Job) error {
	var file driver.File
	found := true
	err := ix.store.View(ctx, job.Scope, func(tx driver.ReadTx) error {
		f, err := tx.Get(ctx, job.Path)
		if errors.Is(err, agentfiles.ErrNotFound) {
			found = false
			return nil
		}
		file = f
		return err
	})
	if err != nil {
		return err
	}
	if !found { // deleted since: the chunks of this version (and older) must go
		return ix.handleDelete(ctx, job, job.FileUpdatedAt)
	}
	if file.UpdatedAt.After(job.FileUpdatedAt) { // a newer mutation's job will index it
		ix.counter.skipped.Add(1)
		ix.complete(ctx, job)
		return nil
	}
	states, err := ix.index.FileStates(ctx, job.Scope, job.Path)
	if err != nil {
		return err
	}
	state, had := states[job.Path]
	had = had && state.Current(file.UpdatedAt)
	model := ""
	if ix.opts.Embedder != nil {
		model = ix.opts.Embedder.Model()
	}
	if had && state.EmbeddingModel == model { // already done: idempotent
		ix.counter.skipped.Add(1)
		ix.forgetCredential(ctx, job)
		ix.complete(ctx, job)
		return nil
	}

	doc, texts := ix.document(file)
	var embedErr error
	if ix.opts.Embedder != nil && len(texts) > 0 {
		var vecs [][]float32
		vecs, embedErr = ix.embed(ctx, job, texts)
		if embedErr == nil {
			setVectors(&doc, vecs, model)
		}
	}
	if embedErr == nil || !had {
		// Either the full version, or a lexical-only one so the file is searchable at once.
		if err := ix.index.ReplaceFile(ctx, job.Scope, doc); err != nil {
			return err
		}
		if err := ix.dropIfDeleted(ctx, job.Scope, job.Path, file.UpdatedAt); err != nil {
			return err
		}
		if !had {
			ix.fresh.add(ix.opts.Now().Sub(job.EnqueuedAt))
		}
		ix.counter.indexed.Add(1)
	}
	if embedErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if job.Attempts >= ix.opts.RetryMax || embedErr == errNoCredential {
			ix.counter.degraded.Add(1)
			ix.log.Warn("indexed lexical-only after repeated embedding failures", "path", job.Path, "attempts", job.Attempts+1, "error", errorText(embedErr))
			ix.forgetCredential(ctx, job)
			ix.complete(ctx, job)
			return nil
		}
		ix.retry(ctx, job, embedErr)
		return nil
	}
	ix.forgetCredential(ctx, job)
	ix.complete(ctx, job)
	return nil
}

// dropIfDeleted closes the race with a concurrent delete: if the file was deleted while this
// worker indexed it (and the delete job may already have run), the chunks just written go.
func (ix *Indexer) dropIfDeleted(ctx context.Context, scope driver.Scope, path string, version time.Time) error {
	exists := true
	err := ix.store.View(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		_, exists, err = tx.Stat(ctx, path)
		return err
	})
	if err != nil || exists {
		return err
	}
	return ix.index.DeleteFile(ctx, scope, path, version)
}

// document cuts and analyses file: the IndexedFile without vectors, and its chunks' texts.
func (ix *Indexer) document(file driver.File) (indexdriver.IndexedFile, []string) {
	chunks := ix.opts.Chunker.Split(string(file.Content))
	doc := indexdriver.IndexedFile{Path: file.Path, FileUpdatedAt: file.UpdatedAt, Tokenizer: indexdriver.TokenizerName, Chunks: make([]indexdriver.IndexedChunk, len(chunks))}
	texts := make([]string, len(chunks))
	for i, ch := range chunks {
		terms, n := indexdriver.TermCounts(ch.Text)
		doc.Chunks[i] = indexdriver.IndexedChunk{Chunk: ch, Terms: terms, ChunkTerms: n}
		texts[i] = ch.Text
	}
	return doc, texts
}

// setVectors gives f's chunks their vectors (one per chunk, in order) of model.
func setVectors(f *indexdriver.IndexedFile, vecs [][]float32, model string) {
	for i := range f.Chunks {
		f.Chunks[i].Vector = vecs[i]
	}
	f.EmbeddingModel = model
}

// embed calls the embedder, with the caller's key opened from the job's envelope when the
// embedder needs it.
func (ix *Indexer) embed(ctx context.Context, job driver.Job, texts []string) ([][]float32, error) {
	if usesCallerCredential(ix.opts.Embedder) {
		if ix.opts.Credentials == nil || job.CredentialRef == "" {
			return nil, errNoCredential
		}
		key, err := ix.opts.Credentials.Open(ctx, job.CredentialRef, job.Scope, job.Path)
		if err != nil {
			return nil, err
		}
		ctx = agentfiles.WithAuth(ctx, agentfiles.AuthContext{Tenant: job.Scope.Tenant, APIKey: key})
	}
	return ix.embedChecked(ctx, job.Path, texts)
}

// embedChecked calls the embedder with ctx and checks that it returned one vector of the
// configured size per text.
func (ix *Indexer) embedChecked(ctx context.Context, path string, texts []string) ([][]float32, error) {
	vecs, err := ix.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, agentfiles.NewError(agentfiles.CodeModelError, "the embedder returned a different number of vectors than texts", path)
	}
	for _, v := range vecs {
		if len(v) != ix.opts.Embedder.Dimensions() {
			return nil, agentfiles.NewError(agentfiles.CodeModelError, "the embedder returned a vector of the wrong size", path)
		}
	}
	return vecs, nil
}

// SyncStats is what Indexer.Sync did.
type SyncStats struct {
	Indexed     int // files (re-)indexed
	LexicalOnly int // of those, indexed without vectors because embedding failed
	Removed     int // indexed files that were no longer active
}

// Sync brings the index in step with the store for the files of scope whose path has the string
// prefix, synchronously, without the outbox: every active file that is not indexed at its
// current version by today's analysis (see FileState.Current) — never indexed, its job lost, or
// indexed by an older TokenizerName — is indexed now, and every indexed file that is no longer
// active is removed. Run it once per project after upgrading to a release whose analysis
// changed (until then those files are found only by the Searcher's bounded query-time scan), or
// to fill an in-memory index from a persistent store at start-up (the Searcher learns which
// files are not indexed from the outbox, so files without a job are not found until then).
//
// An embedder that needs the caller's API key (CallerCredentialUser) gets it from ctx's
// agentfiles.AuthContext, as a query's embedding does; when embedding fails the file is indexed
// lexical-only and counted in LexicalOnly. Sync is safe to run next to running workers: versions
// never go backwards and deletions spare newer versions.
func (ix *Indexer) Sync(ctx context.Context, scope driver.Scope, prefix string) (SyncStats, error) {
	var st SyncStats
	active, err := listActive(ctx, ix.store, scope, prefix)
	if err != nil {
		return st, err
	}
	states, err := ix.index.FileStates(ctx, scope, prefix)
	if err != nil {
		return st, err
	}
	exclude, pending := active.diff(states)
	for path := range exclude {
		if _, ok := activeFileIndex(active, path); ok {
			continue // re-indexed below
		}
		if err := ix.index.DeleteFile(ctx, scope, path, states[path].FileUpdatedAt); err != nil {
			return st, err
		}
		st.Removed++
	}
	model := ""
	if ix.opts.Embedder != nil {
		model = ix.opts.Embedder.Model()
	}
	for _, info := range pending {
		var file driver.File
		err := ix.store.View(ctx, scope, func(tx driver.ReadTx) error {
			var err error
			file, err = tx.Get(ctx, info.Path)
			return err
		})
		if errors.Is(err, agentfiles.ErrNotFound) {
			continue // deleted meanwhile: its delete job removes it
		}
		if err != nil {
			return st, err
		}
		doc, texts := ix.document(file)
		if ix.opts.Embedder != nil && len(texts) > 0 {
			vecs, err := ix.embedChecked(ctx, file.Path, texts)
			if err != nil {
				if ctx.Err() != nil {
					return st, ctx.Err()
				}
				ix.log.Warn("sync: indexed lexical-only, embedding failed", "path", file.Path, "error", errorText(err))
				st.LexicalOnly++
			} else {
				setVectors(&doc, vecs, model)
			}
		}
		if err := ix.index.ReplaceFile(ctx, scope, doc); err != nil {
			return st, err
		}
		if err := ix.dropIfDeleted(ctx, scope, file.Path, file.UpdatedAt); err != nil {
			return st, err
		}
		st.Indexed++
		ix.counter.indexed.Add(1)
	}
	return st, nil
}

func (ix *Indexer) retry(ctx context.Context, job driver.Job, cause error) {
	backoff := ix.opts.RetryBackoff << min(job.Attempts, 6)
	backoff += time.Duration(rand.Int64N(int64(backoff)/5 + 1)) // up to 20% jitter
	ix.counter.retried.Add(1)
	ix.log.Info("index job will be retried", "path", job.Path, "attempt", job.Attempts+1, "backoff", backoff, "error", errorText(cause))
	if err := ix.store.RetryJob(ctx, job, ix.opts.Now().Add(backoff), errorText(cause)); err != nil {
		ix.log.Warn("releasing an index job failed; it is retried when its lease expires", "path", job.Path, "error", err)
	}
}

func (ix *Indexer) complete(ctx context.Context, job driver.Job) {
	if err := ix.store.CompleteJob(ctx, job); err != nil {
		ix.log.Warn("completing an index job failed; it runs again (idempotently) when its lease expires", "path", job.Path, "error", err)
	}
}

func (ix *Indexer) forgetCredential(ctx context.Context, job driver.Job) {
	if ix.opts.Credentials == nil || job.CredentialRef == "" {
		return
	}
	if err := ix.opts.Credentials.Delete(ctx, job.CredentialRef); err != nil {
		ix.log.Warn("deleting a credential envelope failed; it expires by TTL", "path", job.Path)
	}
}
