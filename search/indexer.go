package search

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
)

// CredentialOpener opens and deletes sealed caller credentials; *Vault implements it.
type CredentialOpener interface {
	Open(ctx context.Context, ref string, scope fileio.Scope, path string) (string, error)
	Delete(ctx context.Context, ref string) error
}

// errNoCredential: the job has no envelope at all, so retrying cannot help.
var errNoCredential = NewError(CodeCredentialUnavailable, "the job carries no sealed caller credential and the embedder needs the caller's key; configure a CredentialSealer on the fileio Service", "")

// IndexerConfig wires an [Indexer].
type IndexerConfig struct {
	Store    fileio.Store // source of file contents and of the outbox of index jobs
	Index    Index        // where chunks go
	Embedder Embedder     // nil: lexical-only indexing
	// Credentials opens the caller's sealed API key for embedders that call an API with it
	// (CallerCredentialUser). Nil: such embedders cannot be used and files are indexed
	// lexical-only.
	Credentials CredentialOpener
	Chunker     Chunker
	// Settings: workers, batch size, retry_max, retry_backoff_ms, slo (zero: DefaultConfig().Index).
	Settings IndexConfig
	// Lease is how long a claimed job stays invisible to other workers (default 2 minutes).
	Lease time.Duration
	// PollInterval is the longest wait for new jobs before polling again (default 1s).
	PollInterval time.Duration
	Now          func() time.Time
	Logger       *slog.Logger // nil: silent; paths and counts only, never contents or keys
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
	cfg     IndexerConfig
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
	Indexed   int64 // file versions written (full or lexical-only)
	Deleted   int64 // files removed from the index
	Skipped   int64 // stale or already-indexed jobs completed without work
	Retried   int64 // jobs released for a later attempt
	Degraded  int64 // files left lexical-only after retry_max attempts
	Failed    int64 // jobs given up after retry_max attempts (the file stays findable by scan)
	Freshness FreshnessStats
}

// NewIndexer validates cfg and returns a stopped Indexer; call Start.
func NewIndexer(cfg IndexerConfig) (*Indexer, error) {
	if cfg.Store == nil || cfg.Index == nil {
		return nil, NewError(CodeInvalidConfig, "an Indexer needs a Store and an Index", "IndexerConfig")
	}
	d := DefaultConfig().Index
	if cfg.Settings == (IndexConfig{}) {
		cfg.Settings = d
	}
	s := &cfg.Settings
	if s.Workers <= 0 {
		s.Workers = d.Workers
	}
	if s.BatchSize <= 0 {
		s.BatchSize = d.BatchSize
	}
	s.RetryMax = max(s.RetryMax, 0)
	if s.RetryBackoff <= 0 {
		s.RetryBackoff = d.RetryBackoff
	}
	if s.SLOP95 <= 0 {
		s.SLOP95 = d.SLOP95
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Indexer{cfg: cfg, log: orDiscard(cfg.Logger)}, nil
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
	for range ix.cfg.Settings.Workers {
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			ix.worker(claimCtx, workCtx)
		}()
	}
}

// Stop stops claiming new jobs and waits for the jobs already claimed to finish (drain). If ctx
// ends first, in-flight work is cancelled (those jobs become claimable again when their lease
// expires) and ctx.Err() is returned.
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
			_ = ix.cfg.Store.WaitForJobs(claimCtx, ix.cfg.PollInterval)
		}
	}
}

// ProcessBatch claims one batch of jobs and processes it, returning how many jobs it claimed.
// It is for callers that drive indexing themselves (tests, cron-style workers) instead of Start.
func (ix *Indexer) ProcessBatch(ctx context.Context) (int, error) {
	return ix.runBatch(ctx, ctx)
}

func (ix *Indexer) runBatch(claimCtx, workCtx context.Context) (int, error) {
	jobs, err := ix.cfg.Store.ClaimJobs(claimCtx, ix.cfg.Settings.BatchSize, ix.cfg.Lease)
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
		Freshness: ix.fresh.stats(ix.cfg.Settings.SLOP95),
	}
}

func (ix *Indexer) handle(ctx context.Context, job fileio.Job) {
	var err error
	switch job.Op {
	case fileio.JobDelete:
		err = ix.handleDelete(ctx, job, job.EnqueuedAt)
	default:
		err = ix.handleUpsert(ctx, job)
	}
	if err == nil || ctx.Err() != nil {
		return
	}
	if job.Attempts >= ix.cfg.Settings.RetryMax {
		ix.counter.failed.Add(1)
		ix.log.Error("index job failed for good; the file stays findable by query-time scan", "path", job.Path, "attempts", job.Attempts+1, "error", errorText(err))
		ix.forgetCredential(ctx, job)
		ix.complete(ctx, job)
		return
	}
	ix.retry(ctx, job, err)
}

// handleDelete removes the file's chunks of versions up to upTo.
func (ix *Indexer) handleDelete(ctx context.Context, job fileio.Job, upTo time.Time) error {
	if err := ix.cfg.Index.DeleteFile(ctx, job.Scope, job.Path, upTo); err != nil {
		return err
	}
	ix.fresh.add(ix.cfg.Now().Sub(job.EnqueuedAt))
	ix.counter.deleted.Add(1)
	ix.forgetCredential(ctx, job)
	ix.complete(ctx, job)
	return nil
}

func (ix *Indexer) handleUpsert(ctx context.Context, job fileio.Job) error {
	var file fileio.File
	found := true
	err := ix.cfg.Store.View(ctx, job.Scope, func(tx fileio.ReadTx) error {
		f, err := tx.Get(ctx, job.Path)
		if errors.Is(err, fileio.ErrNotFound) {
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
	states, err := ix.cfg.Index.FileStates(ctx, job.Scope, job.Path)
	if err != nil {
		return err
	}
	state, had := states[job.Path]
	had = had && state.FileUpdatedAt.Equal(file.UpdatedAt)
	model := ""
	if ix.cfg.Embedder != nil {
		model = ix.cfg.Embedder.Model()
	}
	if had && state.EmbeddingModel == model { // already done: idempotent
		ix.counter.skipped.Add(1)
		ix.forgetCredential(ctx, job)
		ix.complete(ctx, job)
		return nil
	}

	chunks := ix.cfg.Chunker.Split(string(file.Content))
	doc := IndexedFile{Path: file.Path, FileUpdatedAt: file.UpdatedAt, Tokenizer: TokenizerName, Chunks: make([]IndexedChunk, len(chunks))}
	texts := make([]string, len(chunks))
	for i, ch := range chunks {
		terms, n := TermCounts(ch.Text)
		doc.Chunks[i] = IndexedChunk{Chunk: ch, Terms: terms, ChunkTerms: n}
		texts[i] = ch.Text
	}
	var embedErr error
	if ix.cfg.Embedder != nil && len(chunks) > 0 {
		var vecs [][]float32
		vecs, embedErr = ix.embed(ctx, job, texts)
		if embedErr == nil {
			for i := range doc.Chunks {
				doc.Chunks[i].Vector = vecs[i]
			}
			doc.EmbeddingModel = model
		}
	}
	if embedErr == nil || !had {
		// Either the full version, or a lexical-only one so the file is searchable at once.
		if err := ix.cfg.Index.ReplaceFile(ctx, job.Scope, doc); err != nil {
			return err
		}
		if err := ix.dropIfDeleted(ctx, job, file.UpdatedAt); err != nil {
			return err
		}
		if !had {
			ix.fresh.add(ix.cfg.Now().Sub(job.EnqueuedAt))
		}
		ix.counter.indexed.Add(1)
	}
	if embedErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if job.Attempts >= ix.cfg.Settings.RetryMax || embedErr == errNoCredential {
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
func (ix *Indexer) dropIfDeleted(ctx context.Context, job fileio.Job, version time.Time) error {
	exists := true
	err := ix.cfg.Store.View(ctx, job.Scope, func(tx fileio.ReadTx) error {
		var err error
		_, exists, err = tx.Stat(ctx, job.Path)
		return err
	})
	if err != nil || exists {
		return err
	}
	return ix.cfg.Index.DeleteFile(ctx, job.Scope, job.Path, version)
}

// embed calls the embedder, with the caller's key opened from the job's envelope when the
// embedder needs it.
func (ix *Indexer) embed(ctx context.Context, job fileio.Job, texts []string) ([][]float32, error) {
	if usesCallerCredential(ix.cfg.Embedder) {
		if ix.cfg.Credentials == nil || job.CredentialRef == "" {
			return nil, errNoCredential
		}
		key, err := ix.cfg.Credentials.Open(ctx, job.CredentialRef, job.Scope, job.Path)
		if err != nil {
			return nil, err
		}
		ctx = fileio.WithAuth(ctx, fileio.AuthContext{APIKeyHash: job.Scope.Tenant, APIKey: key})
	}
	vecs, err := ix.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, NewError(CodeSearchBackend, "the embedder returned a different number of vectors than texts", job.Path)
	}
	for _, v := range vecs {
		if len(v) != ix.cfg.Embedder.Dimensions() {
			return nil, NewError(CodeSearchBackend, "the embedder returned a vector of the wrong size", job.Path)
		}
	}
	return vecs, nil
}

func (ix *Indexer) retry(ctx context.Context, job fileio.Job, cause error) {
	backoff := ix.cfg.Settings.RetryBackoff << min(job.Attempts, 6)
	backoff += time.Duration(rand.Int64N(int64(backoff)/5 + 1)) // up to 20% jitter
	ix.counter.retried.Add(1)
	ix.log.Info("index job will be retried", "path", job.Path, "attempt", job.Attempts+1, "backoff", backoff, "error", errorText(cause))
	if err := ix.cfg.Store.RetryJob(ctx, job, ix.cfg.Now().Add(backoff), errorText(cause)); err != nil {
		ix.log.Warn("releasing an index job failed; it is retried when its lease expires", "path", job.Path, "error", err)
	}
}

func (ix *Indexer) complete(ctx context.Context, job fileio.Job) {
	if err := ix.cfg.Store.CompleteJob(ctx, job); err != nil {
		ix.log.Warn("completing an index job failed; it runs again (idempotently) when its lease expires", "path", job.Path, "error", err)
	}
}

func (ix *Indexer) forgetCredential(ctx context.Context, job fileio.Job) {
	if ix.cfg.Credentials == nil || job.CredentialRef == "" {
		return
	}
	if err := ix.cfg.Credentials.Delete(ctx, job.CredentialRef); err != nil {
		ix.log.Warn("deleting a credential envelope failed; it expires by TTL", "path", job.Path)
	}
}
