package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Store. The zero value is valid.
type Options struct {
	// LockTimeout bounds the wait for a project's write lock; on expiry Update returns
	// RESOURCE_BUSY. Default fileio.DefaultLockTimeout; pass fileio.Config.LockTimeout.
	LockTimeout time.Duration
	// DeleteRetention, when positive, starts a background purger that removes soft-deleted
	// rows older than this (pass fileio.Config.DeleteRetention). Zero: no background purger;
	// call Purge yourself.
	DeleteRetention time.Duration
	// PurgeInterval is how often the background purger runs. Default 1 hour.
	PurgeInterval time.Duration
	// PollInterval caps WaitForJobs while its LISTEN connection is down, so workers fall back
	// to polling. Default 1 second.
	PollInterval time.Duration
	// Logger receives backend failures (never file contents or keys). Nil: discard.
	Logger *slog.Logger
	// SkipMigrations leaves the schema alone; New then assumes Migrate has run.
	SkipMigrations bool
}

// Defaults for Options fields left zero.
const (
	DefaultPurgeInterval = time.Hour
	DefaultPollInterval  = time.Second
)

// Store is a fileio.Store in PostgreSQL, shared by any number of processes using the same
// database. It is safe for concurrent use by multiple goroutines. Create it with New or Open
// and release it with Close.
type Store struct {
	pool         *pgxpool.Pool
	ownsPool     bool
	lockTimeout  time.Duration
	pollInterval time.Duration
	logger       *slog.Logger

	// Statement texts that depend on Options, built once.
	beginWriteSQL string // opens an Update's transaction, before the lock

	listener listener

	stopPurger context.CancelFunc
	purgerDone chan struct{}
	closeOnce  sync.Once
}

var _ fileio.Store = (*Store)(nil)

// New returns a Store over pool, which the caller keeps owning (Close does not close it). Unless
// opts.SkipMigrations is set it first brings the schema up to date (see Migrate).
func New(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if pool == nil {
		return nil, fmt.Errorf("pgstore: pool is nil; use pgxpool.New or pgstore.Open")
	}
	if !opts.SkipMigrations {
		if err := Migrate(ctx, pool); err != nil {
			return nil, fmt.Errorf("pgstore: migrating the schema: %w", err)
		}
	}
	s := &Store{
		pool:         pool,
		lockTimeout:  opts.LockTimeout,
		pollInterval: opts.PollInterval,
		logger:       opts.Logger,
	}
	if s.lockTimeout <= 0 {
		s.lockTimeout = fileio.DefaultLockTimeout
	}
	if s.lockTimeout < time.Millisecond {
		s.lockTimeout = time.Millisecond // 0 would mean "wait forever" to PostgreSQL
	}
	if s.pollInterval <= 0 {
		s.pollInterval = DefaultPollInterval
	}
	if s.logger == nil {
		s.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// Every statement of a write transaction is a lookup by (tenant, project, path) whose best
	// plan does not depend on the values, so it runs a generic plan: PostgreSQL would otherwise
	// keep planning sqlWriteIfAllowed afresh (its generic cost assumes ten ancestors), which
	// costs more than running it.
	s.beginWriteSQL = fmt.Sprintf("BEGIN; SET LOCAL lock_timeout = %d; SET LOCAL plan_cache_mode = force_generic_plan",
		s.lockTimeout.Milliseconds())
	s.listener.init(s)
	if opts.DeleteRetention > 0 {
		interval := opts.PurgeInterval
		if interval <= 0 {
			interval = DefaultPurgeInterval
		}
		s.startPurger(opts.DeleteRetention, interval)
	}
	return s, nil
}

// Open connects to databaseURL (a PostgreSQL URL or key=value string, see pgxpool.ParseConfig)
// and returns a Store that owns the pool: Close closes it.
func Open(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("pgstore: the database URL is not valid: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connecting: %w", err)
	}
	s, err := New(ctx, pool, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownsPool = true
	return s, nil
}

// Pool returns the connection pool the Store uses.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close stops the background purger and the LISTEN connection and, when the Store was created
// by Open, closes the pool. Calling it more than once is harmless.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		if s.stopPurger != nil {
			s.stopPurger()
			<-s.purgerDone
		}
		s.listener.stop()
		if s.ownsPool {
			s.pool.Close()
		}
	})
}

// projectLockKey is the pg_advisory_xact_lock key of a project: the first 8 bytes of
// SHA-256(tenant NUL project). Every instance computes the same key.
func projectLockKey(scope fileio.Scope) int64 {
	h := sha256.New()
	h.Write([]byte(scope.Tenant))
	h.Write([]byte{0})
	h.Write([]byte(scope.Project))
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}
