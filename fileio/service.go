package fileio

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/keyedslots"
)

// Service implements the five FileIO operations (Stat, Read, Write, Delete, List) over a
// Store: it validates paths and arguments, enforces UTF-8, payload,
// file and project limits and a per-tenant rate limit, derives implicit directories, and logs
// every operation without content or keys. The tenant always comes from the
// [agentfiles.AuthContext] in the context ([agentfiles.WithAuth]); a context without one is
// PERMISSION_DENIED.
//
// A Service is safe for concurrent use by multiple goroutines.
type Service struct {
	store   driver.Store
	cfg     Config
	update  driver.UpdateOptions // what every Update gets from cfg
	logger  *slog.Logger
	sealer  CredentialSealer
	limiter *RateLimiter
	slots   *keyedslots.Slots // Config.MaxConcurrentCalls per tenant
	// archives bounds each tenant's imports and exports (Config.MaxConcurrentArchives).
	archives *keyedslots.Slots
	// feedWaits holds the Events calls waiting for a change: Config.MaxFeedWaits per tenant.
	feedWaits *keyedslots.Slots
}

// Options are the optional settings of a Service. The zero value is valid: DefaultConfig, no
// logging, no credential sealing.
type Options struct {
	// Config holds the limits and switches (see LoadConfig). The zero Config means
	// DefaultConfig(); any other value must pass Config.Validate, so start from DefaultConfig
	// to change a few fields. Its LockTimeout and DeleteRetention reach the store through
	// every Update (UpdateOptions): do not configure them on the store.
	Config Config
	// Logger receives one record per operation (see the package documentation, Logging).
	// Nil: discard.
	Logger *slog.Logger
	// CredentialSealer, when set, makes every successful write seal the caller's credential
	// for the asynchronous indexer and store the reference in the index job. A sealing
	// failure does not fail the write: it is logged at Warn and the job carries no reference
	// (the indexer then degrades to lexical-only indexing for that file).
	CredentialSealer CredentialSealer
	// Now replaces time.Now for the rate limiter. Nil: time.Now.
	Now func() time.Time
	// RateLimiter, when set, replaces the limiter the Service would build from
	// Config.RateLimitPerSecond and RateLimitBurst, so that several services share one bucket
	// per tenant (see NewRateLimiter). Nil: the Service builds its own (none when
	// RateLimitPerSecond is 0).
	RateLimiter *RateLimiter
}

// NewService returns a Service over store. opts.Config is validated (see Config.Validate); a
// bad value is an INVALID_CONFIG error naming the YAML key, a nil store INVALID_ARGUMENT.
func NewService(store driver.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "store is nil; use memstore.New or pgstore.Open", "store")
	}
	cfg := opts.Config
	if cfg == (Config{}) {
		cfg = DefaultConfig()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withGrepDefaults()
	s := &Service{
		store: store,
		cfg:   cfg,
		update: driver.UpdateOptions{LockTimeout: cfg.LockTimeout, DeleteRetention: cfg.DeleteRetention,
			HistoryVersions: cfg.HistoryVersions, HistoryRetention: cfg.HistoryRetention,
			Quota: driver.Quota{ProjectBytes: cfg.MaxProjectBytes, ProjectFiles: cfg.MaxProjectFiles,
				TenantFiles: cfg.MaxTenantFiles, TenantProjects: cfg.MaxTenantProjects}},
		logger:    opts.Logger,
		sealer:    opts.CredentialSealer,
		slots:     keyedslots.New(cfg.ConcurrentCalls()),
		archives:  keyedslots.New(cfg.MaxConcurrentArchives),
		feedWaits: keyedslots.New(cfg.MaxFeedWaits),
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s.limiter = opts.RateLimiter
	if s.limiter == nil {
		s.limiter = NewRateLimiter(cfg.RateLimitPerSecond, cfg.RateLimitBurst, now)
	}
	return s, nil
}

// RateLimiter returns the Service's per-tenant rate limiter (nil when rate limiting is off), for
// other services that must draw from the same bucket per tenant: pass it as
// search.SearcherOptions.RateLimiter so that file_search and the file operations share one limit.
func (s *Service) RateLimiter() *RateLimiter { return s.limiter }

// begin authenticates, rate-limits and validates the project and path of one operation. The
// path must be normalized already (NormalizePath): operations normalize their paths first.
func (s *Service) begin(ctx context.Context, project, path string) (agentfiles.AuthContext, driver.Scope, error) {
	ac, ok := agentfiles.AuthFromContext(ctx)
	if !ok || ac.TenantID() == "" {
		return ac, driver.Scope{}, agentfiles.NewError(agentfiles.CodePermissionDenied,
			"no caller identity: the adapter must authenticate the request and attach agentfiles.WithAuth", "")
	}
	if err := s.limiter.Allow(ac.TenantID()); err != nil {
		return ac, driver.Scope{}, err
	}
	if err := ValidateProject(project); err != nil {
		return ac, driver.Scope{}, err
	}
	if err := s.cfg.PathRule.Validate(path); err != nil {
		return ac, driver.Scope{}, err
	}
	if err := ctx.Err(); err != nil {
		return ac, driver.Scope{}, ctxError(err)
	}
	return ac, driver.Scope{Tenant: ac.TenantID(), Project: project}, nil
}

// inView returns what fn returns in a read transaction of scope, holding one of the tenant's
// call slots (Config.MaxConcurrentCalls), with the store's errors coded
// (storeError); on error the result is the zero R.
func inView[R any](ctx context.Context, s *Service, scope driver.Scope, fn func(driver.ReadTx) (R, error)) (R, error) {
	return inRead(ctx, s, scope, s.store.View, fn)
}

// inScan is inView for a search that may hold its transaction up to its time budget: in the
// store's ViewScan when it has one (ScanViewer).
func inScan[R any](ctx context.Context, s *Service, scope driver.Scope, fn func(driver.ReadTx) (R, error)) (R, error) {
	return inRead(ctx, s, scope, s.viewScan, fn)
}

// viewScan is the store's ViewScan, or View when it has none.
func (s *Service) viewScan(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	if sv, ok := s.store.(driver.ScanViewer); ok {
		return sv.ViewScan(ctx, scope, fn)
	}
	return s.store.View(ctx, scope, fn)
}

// inRead runs fn in view, holding one of the tenant's call slots.
func inRead[R any](ctx context.Context, s *Service, scope driver.Scope, view func(context.Context, driver.Scope, func(driver.ReadTx) error) error, fn func(driver.ReadTx) (R, error)) (R, error) {
	var res R
	release, err := s.slots.Acquire(ctx, scope.Tenant)
	if err != nil {
		return res, ctxError(err)
	}
	defer release()
	err = view(ctx, scope, func(tx driver.ReadTx) error {
		var err error
		res, err = fn(tx)
		return err
	})
	return resultOf(res, err)
}

// inUpdate is inView for a write transaction, which waits for the project's lock at most the
// configured lock timeout and keeps what it deletes for the configured retention.
func inUpdate[R any](ctx context.Context, s *Service, scope driver.Scope, fn func(driver.WriteTx) (R, error)) (R, error) {
	var res R
	release, err := s.slots.Acquire(ctx, scope.Tenant)
	if err != nil {
		return res, ctxError(err)
	}
	err = func() error {
		defer release() // before explainQuota, which takes a slot of its own
		return s.store.Update(ctx, scope, s.update, func(tx driver.WriteTx) error {
			var err error
			res, err = fn(tx)
			return err
		})
	}()
	res, err = resultOf(res, err)
	return res, s.explainQuota(ctx, scope, err)
}

func resultOf[R any](res R, err error) (R, error) {
	if err != nil {
		var zero R
		return zero, storeError(err)
	}
	return res, nil
}

// storeError turns whatever a store returned into a coded error: *agentfiles.Error passes
// through, a *driver.QuotaError becomes QUOTA_EXCEEDED (which explainQuota words), context
// errors become TIMEOUT or CANCELED, anything else INTERNAL with a message free of internals
// (the cause stays reachable through Unwrap and is logged).
func storeError(err error) error {
	if err == nil {
		return nil
	}
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return err
	}
	var qe *driver.QuotaError
	if errors.As(err, &qe) {
		return newQuotaError(qe, "")
	}
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	return agentfiles.WrapError(agentfiles.CodeInternal, "the file store failed; retry later, and report it if it persists", "", err)
}

// ctxError is the coded error for a context that ended before the operation completed
// (agentfiles.ContextError; INTERNAL for an error that is not a context's).
func ctxError(err error) error {
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	return storeError(err)
}

// dirInfo describes the descendants of a directory: whether there are any and the newest
// UpdatedAt among them.
func dirInfo(ctx context.Context, tx driver.ReadTx, dir string) (bool, time.Time, error) {
	files, err := tx.List(ctx, dirPrefix(dir), 0)
	if err != nil {
		return false, time.Time{}, err
	}
	var newest time.Time
	for _, f := range files {
		if f.UpdatedAt.After(newest) {
			newest = f.UpdatedAt
		}
	}
	return len(files) > 0, newest, nil
}

// hasDescendant reports whether any active file lies below dir.
func hasDescendant(ctx context.Context, tx driver.ReadTx, dir string) (bool, error) {
	files, err := tx.List(ctx, dirPrefix(dir), 1)
	return len(files) > 0, err
}

// Config returns the configuration the Service runs with, so that tool descriptions can
// state its limits. Grep fields left 0 hold their defaults.
func (s *Service) Config() Config { return s.cfg }
