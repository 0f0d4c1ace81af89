package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"log/slog"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgpool"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options configure a Store. The zero value is valid. The lock timeout and the delete
// retention are not store options: they come with every Update (driver.UpdateOptions), which a
// fileio.Service fills in from its Config.
type Options struct {
	// PurgeInterval is how often a background purger removes the rows of deleted files whose
	// retention has run out (see Purge). Zero means DefaultPurgeInterval; negative: no
	// background purger, call Purge yourself.
	PurgeInterval time.Duration
	// PollInterval caps WaitForJobs while its LISTEN connection is down, so workers fall back
	// to polling. Zero means DefaultPollInterval.
	PollInterval time.Duration
	// Logger receives backend failures (never file contents or keys). Nil: discard.
	Logger *slog.Logger
	// SkipMigrations leaves the schema alone; New then assumes Migrate has run.
	SkipMigrations bool
	// StatementTimeout bounds every statement of a transaction (its statement_timeout): the
	// time left before the context's deadline when that is shorter. Zero means
	// DefaultStatementTimeout; a statement that runs out is rolled back, TIMEOUT.
	StatementTimeout time.Duration
	// MaxConns is the size of the connection pool Open creates (pgxpool's pool_max_conns,
	// which a pool_max_conns parameter in the URL also sets; this field wins). Zero leaves
	// pgxpool's default, the larger of 4 and the number of CPUs. New uses the caller's pool
	// as it is.
	MaxConns int32
	// GrepIndexInterval is how often a background indexer adds the files written since it last
	// ran to the trigram index that fileio.Service.Grep uses (see IndexGrep); it runs again at
	// once while it finds work. Zero means DefaultGrepIndexInterval; negative: no background
	// indexer (call IndexGrep yourself, or let another process run it). Grep answers exactly
	// either way: it reads the files not yet indexed itself, within its scan budget.
	GrepIndexInterval time.Duration
	// GrepIndexBatchBytes bounds the text one indexer transaction (one tenant's turn, at most
	// 256 files of one project) adds to the index, and so how long a writer of one of its files
	// may wait for it: about 5–10 ms at the default 64 KiB on a busy 2-core machine. Zero means
	// DefaultGrepIndexBatchBytes; a transaction always takes at least one file.
	GrepIndexBatchBytes int64
	// GrepCacheBytes is how much memory the Store keeps file contents in to answer
	// fileio.Service.Grep (every pattern and mode) without PostgreSQL rechecking the trigram
	// index's candidates or sending whole files. Greps fill it with what they read and
	// committed writes with what they wrote, per project; the least recently used project is
	// evicted first, and a project (or the part of it below the grep's path) larger than the
	// cache is answered in SQL as before. Each grep checks the versions of its files in its own
	// transaction, so answers are always current. Zero means DefaultGrepCacheBytes (512 MiB);
	// negative: no cache. Open write transactions also keep copies of what they write until
	// they commit. Everything counts against GrepCacheBytes: contents, the paths and listings
	// of the cached projects, those copies, and a fixed cost per file (about 300 bytes, for
	// Go's maps and slices; an empty file is not free), so a project of many small files is
	// answered in SQL when its listing would not fit, and the cache's heap stays within
	// GrepCacheBytes plus what the greps in flight hold (each at most its project's listing
	// and contents, within the same budget) whatever the file sizes.
	GrepCacheBytes int64
}

// Defaults for Options fields left zero.
const (
	DefaultPurgeInterval = time.Hour
	DefaultPollInterval  = time.Second
)

// Store is a driver.Store in PostgreSQL, shared by any number of processes using the same
// database. It is safe for concurrent use by multiple goroutines. Create it with New or Open
// and release it with Close.
type Store struct {
	pool         *pgxpool.Pool
	ownsPool     bool
	pollInterval time.Duration
	logger       *slog.Logger
	// statementTimeout bounds each statement (see Options.StatementTimeout).
	statementTimeout time.Duration

	listener listener
	// scans bounds the connections searches hold (ViewScan).
	scans *scanGate

	stopPurger context.CancelFunc
	purgerDone chan struct{}

	grepIndexBatchBytes int64
	grepTurns           grepTurns // where the grep indexer of this process stands
	claimTurn           claimTurn // where the outbox claims of this process stand
	// grepCache answers literal greps from memory (nil: off; see Options.GrepCacheBytes).
	grepCache       *grepCache
	stopGrepIndexer context.CancelFunc
	grepIndexerDone chan struct{}
	closeOnce       sync.Once
}

var _ driver.Store = (*Store)(nil)

// New returns a Store over pool, which the caller keeps owning (Close does not close it). Unless
// opts.SkipMigrations is set it first brings the schema up to date (see Migrate). Errors are
// *agentfiles.Error: INVALID_ARGUMENT for a nil pool, INVALID_CONFIG naming the database when
// it does not exist or the user when the server refuses the credentials, UNAVAILABLE when the
// database cannot be reached, INTERNAL when a migration fails; their messages are for operators
// and name the cause, never the password.
func New(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if pool == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, "pgstore: pool is nil; use pgxpool.New or pgstore.Open", "pool")
	}
	if !opts.SkipMigrations {
		if err := Migrate(ctx, pool); err != nil {
			return nil, pgpool.PoolErr(pool, "pgstore", "migrating the schema", err)
		}
	}
	s := &Store{pool: pool, pollInterval: opts.PollInterval, logger: opts.Logger, statementTimeout: opts.StatementTimeout}
	if s.statementTimeout <= 0 {
		s.statementTimeout = DefaultStatementTimeout
	}
	if s.pollInterval <= 0 {
		s.pollInterval = DefaultPollInterval
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.grepIndexBatchBytes = opts.GrepIndexBatchBytes
	if s.grepIndexBatchBytes <= 0 {
		s.grepIndexBatchBytes = DefaultGrepIndexBatchBytes
	}
	s.grepCache = newGrepCache(opts.GrepCacheBytes)
	s.scans = newScanGate(pool.Config().MaxConns)
	s.listener.init(s)
	switch {
	case opts.GrepIndexInterval == 0:
		s.startGrepIndexer(DefaultGrepIndexInterval)
	case opts.GrepIndexInterval > 0:
		s.startGrepIndexer(opts.GrepIndexInterval)
	}
	switch {
	case opts.PurgeInterval == 0:
		s.startPurger(DefaultPurgeInterval)
	case opts.PurgeInterval > 0:
		s.startPurger(opts.PurgeInterval)
	}
	return s, nil
}

// Open connects to databaseURL (a PostgreSQL URL or key=value string, see pgxpool.ParseConfig)
// and returns a Store that owns the pool: Close closes it. The pool has opts.MaxConns
// connections, and a statement whose context ends is cancelled in the server by a cancel
// request on a connection that stays in the pool. A URL that cannot be parsed or
// a negative MaxConns is INVALID_CONFIG; other errors are New's.
func Open(ctx context.Context, databaseURL string, opts Options) (*Store, error) {
	pool, err := pgpool.Open(ctx, "pgstore", databaseURL, pgpool.Options{MaxConns: opts.MaxConns})
	if err != nil {
		return nil, err
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

// Close stops the background purger, the background grep indexer and the LISTEN connection
// and, when the Store was created by Open, closes the pool. Calling it more than once is harmless.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		if s.stopPurger != nil {
			s.stopPurger()
			<-s.purgerDone
		}
		if s.stopGrepIndexer != nil {
			s.stopGrepIndexer()
			<-s.grepIndexerDone
		}
		s.listener.stop()
		if s.ownsPool {
			s.pool.Close()
		}
	})
}

// projectLockKey is the pg_advisory_xact_lock key of a project: the first 8 bytes of
// SHA-256(tenant NUL project). Every instance computes the same key.
func projectLockKey(scope driver.Scope) int64 {
	h := sha256.New()
	h.Write([]byte(scope.Tenant))
	h.Write([]byte{0})
	h.Write([]byte(scope.Project))
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}
