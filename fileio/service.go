package fileio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"
)

// Service implements the five FileIO operations (Stat, Read, Write, Delete, List) with the
// seed's semantics over a Store: it validates paths and arguments, enforces UTF-8, payload,
// file and project limits and a per-tenant rate limit, derives implicit directories, and logs
// every operation without content or keys. The tenant always comes from the AuthContext in
// the context (WithAuth); a context without one is PERMISSION_DENIED.
//
// A Service is safe for concurrent use by multiple goroutines.
type Service struct {
	store   Store
	cfg     Config
	logger  *slog.Logger
	sealer  CredentialSealer
	limiter *rateLimiter
	now     func() time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithLogger sets the logger (nil: discard, the default).
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.logger = l
		}
	}
}

// WithCredentialSealer makes every successful write seal the caller's credential for the
// asynchronous indexer and store the reference in the index job. A sealing failure does not
// fail the write: it is logged at Warn and the job carries no reference (the indexer then
// degrades to lexical-only indexing for that file).
func WithCredentialSealer(cs CredentialSealer) Option {
	return func(s *Service) { s.sealer = cs }
}

// WithClock replaces time.Now for the rate limiter (for tests).
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// NewService returns a Service over store. cfg is validated (see Config.Validate); start from
// DefaultConfig(). It returns an INVALID_ARGUMENT *Error naming the bad key.
func NewService(store Store, cfg Config, opts ...Option) (*Service, error) {
	if store == nil {
		return nil, NewError(CodeInvalidArgument, "store is nil; use memstore.New() or pgstore", "store")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Service{
		store:  store,
		cfg:    cfg,
		logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1})),
		now:    time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	s.limiter = newRateLimiter(cfg.RateLimitPerSecond, cfg.RateLimitBurst, s.now)
	return s, nil
}

// Config returns the configuration the Service runs with.
func (s *Service) Config() Config { return s.cfg }

// begin authenticates, rate-limits and validates the project and path of one operation.
func (s *Service) begin(ctx context.Context, project, path string) (AuthContext, Scope, error) {
	ac, ok := AuthFromContext(ctx)
	if !ok || ac.APIKeyHash == "" {
		return ac, Scope{}, NewError(CodePermissionDenied,
			"no caller identity: the adapter must authenticate the request and attach fileio.WithAuth", "")
	}
	if err := s.limiter.allow(ac.APIKeyHash); err != nil {
		return ac, Scope{}, err
	}
	if err := ValidateProject(project); err != nil {
		return ac, Scope{}, err
	}
	if err := ValidatePath(path); err != nil {
		return ac, Scope{}, err
	}
	if err := ctx.Err(); err != nil {
		return ac, Scope{}, ctxError(err)
	}
	return ac, Scope{Tenant: ac.APIKeyHash, Project: project}, nil
}

// storeError turns whatever a store returned into a coded error: *Error passes through,
// context errors and anything else become INTERNAL with a message free of internals (the
// cause stays reachable through Unwrap and is logged).
func storeError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ctxError(err)
	}
	return WrapError(CodeInternal, "the file store failed; retry later, and report it if it persists", "", err)
}

func ctxError(err error) error {
	return WrapError(CodeInternal, "the request was cancelled or timed out before it completed", "", err)
}

func asError(err error, target **Error) bool { return errors.As(err, target) }

// errorCode is the code of err, INTERNAL for uncoded errors.
func errorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.code
	}
	return CodeInternal
}

// ErrorCode returns the fileio code of err ("" for nil, INTERNAL for errors without one).
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return errorCode(err)
}

// dirInfo describes the descendants of a directory: whether there are any and the newest
// UpdatedAt among them.
func dirInfo(ctx context.Context, tx ReadTx, dir string) (bool, time.Time, error) {
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
func hasDescendant(ctx context.Context, tx ReadTx, dir string) (bool, error) {
	files, err := tx.List(ctx, dirPrefix(dir), 1)
	return len(files) > 0, err
}
