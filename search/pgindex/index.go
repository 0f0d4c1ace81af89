package pgindex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/pgpool"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LexicalMode chooses how Lexical finds and scores candidates.
type LexicalMode string

const (
	// LexicalBM25 (the default) scores with indexdriver.BM25 from the postings table: the same floats
	// as search/memindex, bit for bit.
	LexicalBM25 LexicalMode = "bm25"
	// LexicalTSVector matches chunks with PostgreSQL full-text search (a GIN index on the
	// chunks' tsvector, to_tsvector('english', text), stored by ReplaceFile in this mode only;
	// the query terms OR-ed) and scores them with ts_rank_cd. Files indexed in the other mode
	// have no tsvector and are matched once indexed again in this one. It is a transitional mode: scores are not BM25 and not comparable
	// with memindex; DocFreq and Stats are still BM25's, so query-time scans of unindexed files
	// stay on the BM25 scale. Postings are still written, so switching back needs no re-index.
	LexicalTSVector LexicalMode = "tsvector"
)

// Options configure an Index. The zero value is valid.
type Options struct {
	// Lexical is the lexical mode (default LexicalBM25).
	Lexical LexicalMode
	// Logger receives backend failures and the start-up choices (never file contents or keys).
	// Nil: discard.
	Logger *slog.Logger
	// SkipMigrations leaves the schema alone; New then assumes Migrate has run.
	SkipMigrations bool
	// VectorCacheBytes bounds the in-process cache of vectors that semantic queries scan
	// (default DefaultVectorCacheBytes; negative: no cache, every query streams the project's
	// vectors from PostgreSQL). A chunk's vector costs 4 bytes per dimension below 512
	// dimensions, and from 512 on its int8 codes, dimensions rounded up to 32 plus 12 bytes
	// (1,548 bytes at 1,536 dimensions), plus about 100 bytes per file. One project takes at
	// most half the bound (about 170,000 chunks of 1,536 dimensions by default); the vectors
	// of a bigger project's other files are streamed from PostgreSQL by each query, as int8
	// codes from 512 dimensions (see the package doc, "Scoring"). While a changed project's snapshot is refreshed, the old one
	// stays in use until the new one is published, so the cache may briefly hold a project
	// twice.
	VectorCacheBytes int64
	// ProjectCacheBytes bounds the in-process cache of project views: each project's file states
	// (which FileStateList and FileStates hand out) and the decoded chunk directories and pending
	// files that queries score with, shared while the project's generation counter has not moved
	// (default DefaultProjectCacheBytes; negative: no cache, every query reads the project's
	// files and directories from PostgreSQL). A view costs about 60 bytes per chunk and 100 per
	// file.
	ProjectCacheBytes int64
	// MergePendingChunks is how many chunks written since the last merge wake the background
	// merger (see the package doc, "Storage"; default DefaultMergePendingChunks). Lower: fewer
	// pending rows to read per query, more merging.
	MergePendingChunks int
	// Embedder is the identity of the embedder this process makes vectors and queries with
	// (IdentityOf(embedder)). New records it for the database when none is recorded and refuses
	// with INVALID_CONFIG when another one is: vectors of different embedders cannot be compared
	// (see the package doc, "Embedder identity", and Index.Reembed to switch). Zero: a
	// lexical-only process, which New accepts whatever the database holds.
	Embedder EmbedderIdentity
	// StatementTimeout bounds every statement the Index runs after New (queries, the
	// last_served_at update, index writes): PostgreSQL cancels a statement that runs longer, so
	// no search holds a pooled connection past it, and the call fails with TIMEOUT
	// (retryable; a semantic leg that times out leaves a lexical-only answer). Default
	// DefaultStatementTimeout; negative: no bound. The Index runs its statements on a pool of
	// its own, built from the given pool's configuration with statement_timeout set for its
	// connections, so a slow search never takes the connections of the file store sharing the
	// database (see New).
	StatementTimeout time.Duration
}

// DefaultStatementTimeout is Options.StatementTimeout's default.
const DefaultStatementTimeout = 10 * time.Second

// Index is a indexdriver.Index in PostgreSQL, shared by any number of processes using the same
// database. It is safe for concurrent use by multiple goroutines. Create it with New or Open and
// release it with Close.
type Index struct {
	pool     *pgxpool.Pool // the Index's own pool, with the statement timeout
	given    *pgxpool.Pool // the pool passed to New
	ownsPool bool          // given was opened by Open: Close closes it
	log      *slog.Logger
	lexical  LexicalMode
	vectors  *vectorCache // nil: no cache
	views    *viewCache   // nil: no cache
	merger   *merger

	stopBackfill context.CancelFunc
	backfilled   chan struct{} // closed when the background BackfillCodes returns

	closeOnce sync.Once

	mu       sync.RWMutex
	projects map[driver.Scope]int64 // project ids never change once created
}

var _ indexdriver.Index = (*Index)(nil)

// New returns an Index over the database of pool, which the caller keeps owning (Close does not
// close it). Unless opts.SkipMigrations is set it first brings the schema up to date (see
// Migrate); it then, in LexicalTSVector mode, creates the full-text GIN index, and checks
// opts.Embedder against the embedder recorded for the database (INVALID_CONFIG when they
// differ). Those steps run on pool; afterwards the Index runs every statement on a pool of its
// own (same configuration and size as pool's, connections opened on demand) whose connections
// carry opts.StatementTimeout, so searches neither outlive the timeout nor take the connections
// of others using pool. It converts files indexed by schema version 4 (see the package doc,
// "Storage") and starts the background merger. Close stops the merger and closes that pool.
//
// Errors are *agentfiles.Error: INVALID_CONFIG for a nil pool, options out of range, an
// embedder other than the database's, a database that does not exist (named) or credentials the
// server refuses; UNAVAILABLE when the database cannot be reached; INTERNAL otherwise.
func New(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Index, error) {
	if pool == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "the pool is nil; pass a *pgxpool.Pool or use pgindex.Open", "pool")
	}
	if err := checkMode(&opts.Lexical, "lexical", LexicalBM25, LexicalTSVector); err != nil {
		return nil, err
	}
	if opts.MergePendingChunks < 0 {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "MergePendingChunks must not be negative (0: the default)", "MergePendingChunks")
	}
	if err := opts.Embedder.validate("Embedder"); err != nil {
		return nil, err
	}
	ix := &Index{pool: pool, given: pool, log: opts.Logger, lexical: opts.Lexical, projects: make(map[driver.Scope]int64)}
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	err := schema.WithLock(ctx, pool, func(conn *pgxpool.Conn) error {
		if !opts.SkipMigrations {
			if err := schema.ApplyLocked(ctx, conn); err != nil {
				return err
			}
		}
		if err := ix.setup(ctx, conn, opts); err != nil {
			return err
		}
		return ix.checkEmbedder(ctx, conn, opts.Embedder)
	})
	if err != nil {
		return nil, pgpool.PoolErr(pool, "pgindex", "preparing the schema", err) // the embedder check's refusal passes as it is
	}
	if opts.VectorCacheBytes == 0 {
		opts.VectorCacheBytes = DefaultVectorCacheBytes
	}
	if opts.VectorCacheBytes > 0 {
		ix.vectors = newVectorCache(opts.VectorCacheBytes)
	}
	if opts.ProjectCacheBytes == 0 {
		opts.ProjectCacheBytes = DefaultProjectCacheBytes
	}
	if opts.ProjectCacheBytes > 0 {
		ix.views = newViewCache(opts.ProjectCacheBytes)
	}
	if opts.MergePendingChunks == 0 {
		opts.MergePendingChunks = DefaultMergePendingChunks
	}
	if ix.pool, err = ownPool(ctx, pool, opts.StatementTimeout); err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidConfig, "pgindex: opening the index's own pool: "+err.Error(), "", err)
	}
	ix.merger = newMerger(ix, int64(opts.MergePendingChunks))
	bctx, stop := context.WithCancel(context.Background())
	ix.stopBackfill, ix.backfilled = stop, make(chan struct{})
	if err := ix.convertLegacy(ctx); err != nil {
		close(ix.backfilled)
		ix.Close()
		return nil, pgpool.Err("pgindex", "converting files indexed by schema version 4", err)
	}
	if backfillOnStart {
		go ix.backfillInBackground(bctx, ix.backfilled)
	} else {
		close(ix.backfilled)
	}
	return ix, nil
}

// backfillOnStart: New runs BackfillCodes in the background. Tests switch it off to query rows
// without codes.
var backfillOnStart = true

// ownPool returns a new pool configured as given, whose connections run with statement_timeout
// = timeout (DefaultStatementTimeout for 0, none when negative) and without JIT. It opens no
// connection yet.
func ownPool(ctx context.Context, given *pgxpool.Pool, timeout time.Duration) (*pgxpool.Pool, error) {
	cfg := given.Config()
	if timeout == 0 {
		timeout = DefaultStatementTimeout
	}
	ms := "0" // PostgreSQL's "no timeout"
	if timeout > 0 {
		ms = strconv.FormatInt(max(timeout.Milliseconds(), 1), 10)
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = ms
	// The Index's statements are short lookups whose cost estimates can still cross
	// jit_above_cost (a project's file list, a merge): compiling them takes longer than running
	// them, so JIT is off on the Index's connections.
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	cfg.MinConns = 0
	return pgxpool.NewWithConfig(ctx, cfg)
}

// checkMode sets an empty *mode to def and accepts def and other; anything else is
// INVALID_CONFIG naming the two.
func checkMode[M ~string](mode *M, what string, def, other M) error {
	switch *mode {
	case "":
		*mode = def
	case def, other:
	default:
		return agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf("unknown %s mode; use %q or %q", what, def, other), string(*mode))
	}
	return nil
}

// Open connects to databaseURL (a PostgreSQL URL or key=value string, see pgxpool.ParseConfig)
// and returns an Index that owns the pool: Close closes it. A URL that cannot be parsed is
// INVALID_CONFIG; other errors are New's.
func Open(ctx context.Context, databaseURL string, opts Options) (*Index, error) {
	pool, err := pgpool.Open(ctx, "pgindex", databaseURL, pgpool.Options{})
	if err != nil {
		return nil, err
	}
	ix, err := New(ctx, pool, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	ix.ownsPool = true
	return ix, nil
}

// setup adapts to the database: in tsvector mode, the full-text index. The caller holds the
// schema lock.
func (ix *Index) setup(ctx context.Context, conn *pgxpool.Conn, opts Options) error {
	if opts.Lexical == LexicalTSVector {
		if _, err := conn.Exec(ctx, `CREATE INDEX IF NOT EXISTS idx_mcp_search_chunk_tsv
			ON mcp_search_chunk_tsv USING gin (tsv)`); err != nil {
			return err
		}
	}
	ix.log.Info("pgindex ready", "lexical", string(ix.lexical))
	return nil
}

// Pool returns the connection pool the Index runs its statements on: its own, with the
// statement timeout (see New).
func (ix *Index) Pool() *pgxpool.Pool { return ix.pool }

// Close stops the background merger (a merge in flight is rolled back and done again later) and
// the background BackfillCodes (likewise), closes the Index's own pool and, when the Index was
// created by Open, the pool it opened. Calling it more than once is harmless.
func (ix *Index) Close() {
	ix.closeOnce.Do(func() {
		ix.stopBackfill()
		<-ix.backfilled
		ix.merger.close()
	})
	ix.pool.Close()
	if ix.ownsPool {
		ix.given.Close()
	}
}

// projectID returns the id of scope's project row, creating it when create is set. It returns
// 0 (and no error) for a project that has never been indexed and create is false.
func (ix *Index) projectID(ctx context.Context, scope driver.Scope, create bool) (int64, error) {
	ix.mu.RLock()
	id, ok := ix.projects[scope]
	ix.mu.RUnlock()
	if ok {
		return id, nil
	}
	for attempt := 0; ; attempt++ {
		var err error
		if create {
			// ON CONFLICT DO NOTHING returns no row when another transaction created the project
			// after this statement's snapshot; the next attempt (a new snapshot) sees it.
			err = ix.pool.QueryRow(ctx, `WITH ins AS (
				INSERT INTO mcp_search_projects (apikey_hash, project) VALUES ($1, $2)
				ON CONFLICT (apikey_hash, project) DO NOTHING RETURNING id)
			SELECT id FROM ins UNION ALL
			SELECT id FROM mcp_search_projects WHERE apikey_hash = $1 AND project = $2`, scope.Tenant, scope.Project).Scan(&id)
		} else {
			err = ix.pool.QueryRow(ctx, "SELECT id FROM mcp_search_projects WHERE apikey_hash = $1 AND project = $2", scope.Tenant, scope.Project).Scan(&id)
		}
		if errors.Is(err, pgx.ErrNoRows) {
			if !create {
				return 0, nil
			}
			if attempt < 3 {
				continue
			}
		}
		if err != nil {
			return 0, err
		}
		break
	}
	ix.mu.Lock()
	ix.projects[scope] = id
	ix.mu.Unlock()
	return id, nil
}
