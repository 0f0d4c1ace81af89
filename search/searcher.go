package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// SearcherOptions are the optional settings of a [Searcher]; zero fields mean the defaults
// given, which are DefaultConfig's. Config.SearcherOptions fills them from the configuration
// file.
type SearcherOptions struct {
	Embedder Embedder // nil: lexical retrieval only
	Reranker Reranker // nil: fused scores only
	// Chunker must cut files the way the Indexer does; it is used to scan not-yet-indexed files
	// (zero: the default sizes).
	Chunker Chunker
	// LimitDefault is the number of results when a query gives no limit (default 5, or LimitMax
	// when that is lower); LimitMax is the most, larger limits are clamped (default 20).
	LimitDefault, LimitMax int
	// VectorCandidates and BM25Candidates are how many semantic and lexical candidates are
	// merged before ranking (default 30 each; negative: none of that kind).
	VectorCandidates, BM25Candidates int
	// BM25 holds the BM25 parameters (zero: DefaultBM25).
	BM25 indexdriver.BM25
	// FuseMethod combines the semantic and lexical scores when no reranker answers (default
	// FuseMinMax), weighing them with SemanticWeight and LexicalWeight. Both zero means the
	// Embedder's Calibration: SemanticWeight = its weight, LexicalWeight = 1 − that (0.1 and
	// 0.9 for the HashingEmbedder, 0.5 and 0.5 for an embedder without a calibration, 0 and 1
	// without an embedder).
	FuseMethod                    FuseMethod
	SemanticWeight, LexicalWeight float64
	// Expansion is pseudo-relevance feedback into the lexical leg (zero fields: those of
	// DefaultExpansion; FeedbackChunks negative: no expansion).
	Expansion Expansion
	// MinSemanticScore is the similarity a chunk in which none of the query's terms occurs must
	// exceed to be a result (nil: the Embedder's Calibration; see Query.MinSemanticScore).
	MinSemanticScore *float64
	// RerankTimeout bounds a rerank call; when it passes, fused scores order the results
	// (default 3s; negative: no bound of the Searcher's own).
	RerankTimeout time.Duration
	// PendingScanMaxFiles and PendingScanMaxBytes bound the query-time lexical scan of files that
	// are not indexed at their current version yet (defaults 64 files, 8 MiB). Newest files are
	// scanned first; Result.PendingFiles and PendingScanned report what was covered.
	PendingScanMaxFiles int
	PendingScanMaxBytes int64
	// MaxQueryBytes and MaxQueryTerms bound a query: its length in bytes, and its number of
	// distinct terms after analysis (QueryTerms). A query beyond either is INVALID_QUERY saying
	// the limit, refused before any index or store work (defaults DefaultMaxQueryBytes and
	// DefaultMaxQueryTerms; negative: no bound).
	MaxQueryBytes, MaxQueryTerms int
	// RateLimiter, when set, is asked for a token of the caller's tenant before every query; its
	// error (RATE_LIMITED) is returned as it is. Pass the fileio.Service's limiter
	// (Service.RateLimiter) so that one bucket per tenant covers file_search and the file
	// operations. Nil: no rate limit of the Searcher's own.
	RateLimiter RateLimiter
	// MaxConcurrentPerTenant is how many searches of one tenant run at once, MaxConcurrent how
	// many of all tenants (defaults DefaultMaxConcurrentPerTenant and DefaultMaxConcurrent): a
	// search embeds its query, reads the index and may rerank, which takes CPUs, database
	// connections and calls to the embedder's API, so a tenant's further searches wait for one
	// of its own slots instead of slowing other tenants' calls. A search waits for its slots at
	// most SlotWait (default DefaultSlotWait; negative: until its context ends) and then fails
	// with RESOURCE_BUSY.
	MaxConcurrentPerTenant, MaxConcurrent int
	SlotWait                              time.Duration

	Now    func() time.Time // clock for last_served_at (default time.Now)
	Logger *slog.Logger     // nil: silent; queries are logged trimmed, never contents
}

// Searcher answers file_search: hybrid retrieval over indexed chunks plus a lexical scan of
// files the indexer has not caught up with, reranking with a fused-score fallback, and
// active-file filtering against the Store. It is safe for concurrent use.
type Searcher struct {
	store         driver.Store
	index         indexdriver.Index
	opts          SearcherOptions // every default applied
	gate          *searchGate     // the slots of MaxConcurrentPerTenant and MaxConcurrent
	log           *slog.Logger
	olderAnalysis olderAnalysisMemo
}

// RateLimiter takes one request's token for a tenant (agentfiles.AuthContext.TenantID), or
// returns a RATE_LIMITED *agentfiles.Error saying when to retry. *fileio.RateLimiter implements
// it. Implementations must be safe for concurrent use.
type RateLimiter interface {
	Allow(tenant string) error
}

// Default query bounds (settings.mcp.files.search.max_query_bytes and max_query_terms).
const (
	DefaultMaxQueryBytes = 4096
	DefaultMaxQueryTerms = 64
)

// Query is one file_search request.
type Query struct {
	Project    string // a project name, or "*" (AllProjects) for every project of the caller
	Query      string // required; blank is INVALID_QUERY
	PathPrefix string // raw string prefix on the path ("" for all); "/doc" matches "/docs/a"
	// Glob keeps only files whose path matches, with file_grep's meaning (the pattern language of file_glob): without
	// "/" the base name ("*.md"), with "/" the path from the project root ("docs/**/*.md").
	// The indexes' candidates are filtered by it, and more of them are fetched while it is set
	// (globCandidateFactor), so a narrow glob may still return fewer chunks than Limit.
	Glob  string
	Limit int // results wanted; 0 means the default (5); above the maximum (20) it is clamped
	// MinSemanticScore overrides SearcherOptions.MinSemanticScore for this query (nil: keep
	// it). A chunk qualifies as a result when a query term occurs in it (BM25 above 0) or its
	// semantic score is above MinSemanticScore; other candidates are dropped, never padded into
	// the results. It must be a finite number; above 1 only chunks with a query term qualify.
	MinSemanticScore *float64
}

// Ranking names the path that ordered a Result.
type Ranking string

const (
	RankingRerank Ranking = "rerank" // scores are the reranker's relevance scores
	RankingFused  Ranking = "fused"  // scores are fused semantic+lexical scores (see FuseMethod)
)

// HitSource says where a hit's chunk came from.
type HitSource string

const (
	SourceIndex HitSource = "index" // an indexed chunk
	SourceScan  HitSource = "scan"  // a chunk of a file not indexed yet, scanned at query time
)

// Hit is one returned chunk. Content is exactly the file's bytes [StartByte, EndByte).
type Hit struct {
	Project       string // the project of the file: Query.Project, or one of the caller's for "*"
	Path          string
	StartByte     int64
	EndByte       int64
	Content       string
	Score         float64 // final score: rerank relevance, or the fused score
	SemanticScore float64 // cosine similarity; meaningful when HasSemantic
	HasSemantic   bool    // the chunk has a vector and the query was embedded
	LexicalScore  float64 // BM25 score, 0 when no query term occurs; meaningful when HasLexical
	HasLexical    bool    // the query has terms (it is not only stop words)
	FusedScore    float64 // fused score (always computed; equals Score on the fused path)
	Source        HitSource
}

// Result is the answer to a Query.
type Result struct {
	Hits       []Hit
	Ranking    Ranking
	FuseMethod FuseMethod // fusion used for FusedScore (and for the order on the fused path)
	// RerankError says why reranking was not used ("" when it was, or no reranker is configured).
	RerankError string
	// SemanticError says why there are no semantic candidates ("" when there are, or no embedder).
	SemanticError string
	// ExpandedQuery is the weighted query the lexical leg ran when pseudo-relevance feedback
	// expanded the query (see Expansion): the query's terms, then the terms added from the
	// feedback chunks; every LexicalScore is Σ weight · BM25 over it. Nil when the query was
	// not expanded (expansion off, no terms, or no feedback chunk).
	ExpandedQuery []WeightedTerm
	Limit         int  // the limit applied
	LimitClamped  bool // the requested limit was above the maximum and was lowered
	Truncated     bool // more matching chunks exist than Limit; ask for a higher limit or narrow the query
	Candidates    int  // merged candidates considered
	// Qualified is how many candidates qualified as results (a query term occurs in them, or
	// their semantic score is above MinSemanticScore); when it is below Limit, fewer than Limit
	// chunks match the query at all.
	Qualified        int
	MinSemanticScore float64 // the similarity floor applied to candidates without a query term
	PendingFiles     int     // active files not yet indexed at their current version
	PendingScanned   int     // of those, files scanned lexically for this query
	// Projects is how many projects were searched for Project "*" (0 otherwise), and
	// ProjectsTruncated says the caller has more than MaxAllProjects projects, of which only the
	// first MaxAllProjects by name were searched.
	Projects          int
	ProjectsTruncated bool
	// ProjectEmpty says the project of a query that matched nothing holds no files at all, so
	// that other words will not help: the project name is wrong, or nothing was written yet.
	ProjectEmpty bool
}

// NewSearcher returns a Searcher over the files of store (the source of truth for which files
// are active) and the chunks of index. A nil store or index is INVALID_CONFIG.
func NewSearcher(store driver.Store, index indexdriver.Index, opts SearcherOptions) (*Searcher, error) {
	if store == nil || index == nil {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "a Searcher needs a Store and an Index", "NewSearcher")
	}
	d := DefaultConfig().Search
	setDefault(&opts.LimitMax, d.LimitMax)
	setDefault(&opts.LimitDefault, min(d.LimitDefault, opts.LimitMax))
	setDefault(&opts.VectorCandidates, d.VectorCandidates)
	setDefault(&opts.BM25Candidates, d.BM25Candidates)
	setDefault(&opts.BM25, d.BM25)
	setDefault(&opts.FuseMethod, d.Fallback.Method)
	setDefault(&opts.Expansion.FeedbackChunks, d.Expansion.FeedbackChunks)
	setDefault(&opts.Expansion.FeedbackTerms, d.Expansion.FeedbackTerms)
	setDefault(&opts.Expansion.OriginalWeight, d.Expansion.OriginalWeight)
	if !opts.Expansion.valid() {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, fmt.Sprintf(
			"Expansion.FeedbackChunks and FeedbackTerms must be at most %d and OriginalWeight in (0, 1]", MaxFeedback), "Expansion")
	}
	cal := Calibration{SemanticWeight: 0} // no embedder: BM25 alone orders the results
	if opts.Embedder != nil {
		cal = CalibrationOf(opts.Embedder)
	}
	switch {
	case opts.SemanticWeight < 0 || opts.LexicalWeight < 0 || !finite(opts.SemanticWeight) || !finite(opts.LexicalWeight):
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "SemanticWeight and LexicalWeight must be finite and not negative", "SemanticWeight")
	case opts.SemanticWeight+opts.LexicalWeight == 0:
		opts.SemanticWeight, opts.LexicalWeight = cal.SemanticWeight, 1-cal.SemanticWeight
	}
	if opts.MinSemanticScore == nil {
		opts.MinSemanticScore = &cal.MinSemanticScore
	} else if !finite(*opts.MinSemanticScore) {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidConfig, "MinSemanticScore must be a finite number", "MinSemanticScore")
	} else {
		opts.MinSemanticScore = copyFloat(opts.MinSemanticScore) // the caller's variable may change
	}
	setDefault(&opts.RerankTimeout, d.Rerank.Timeout)
	setDefault(&opts.PendingScanMaxFiles, 64)
	setDefault(&opts.PendingScanMaxBytes, 8<<20)
	setDefault(&opts.MaxQueryBytes, d.MaxQueryBytes)
	setDefault(&opts.MaxQueryTerms, d.MaxQueryTerms)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxConcurrentPerTenant <= 0 {
		opts.MaxConcurrentPerTenant = DefaultMaxConcurrentPerTenant()
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent()
	}
	setDefault(&opts.SlotWait, DefaultSlotWait)
	gate := newSearchGate(opts.MaxConcurrentPerTenant, opts.MaxConcurrent, opts.SlotWait)
	return &Searcher{store: store, index: index, opts: opts, gate: gate, log: orDiscard(opts.Logger)}, nil
}

// setDefault replaces a zero *v with def.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Options returns the effective options, every default applied.
func (s *Searcher) Options() SearcherOptions {
	o := s.opts
	o.MinSemanticScore = copyFloat(o.MinSemanticScore)
	return o
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// candidate is one chunk under consideration, merged from every source.
type candidate struct {
	project     string // the project of the file (Query.Project, or one of "*")
	path        string
	version     time.Time // UpdatedAt of the file version the offsets refer to
	chunk       indexdriver.Chunk
	source      HitSource
	semantic    float64
	hasSemantic bool
	lexical     float64
	hasLexical  bool
	fused       float64
	final       float64
}

func (c *candidate) less(o *candidate) bool {
	if c.project != o.project {
		return c.project < o.project
	}
	if c.path != o.path {
		return c.path < o.path
	}
	return c.chunk.StartByte < o.chunk.StartByte
}

// candKey names one chunk of one file version by its bytes.
type candKey struct {
	path       string
	version    int64 // UnixNano
	start, end int64
}

func (c *candidate) key() candKey {
	return candKey{c.path, c.version.UnixNano(), c.chunk.StartByte, c.chunk.EndByte}
}

// Search runs q for the tenant in ctx (agentfiles.AuthFromContext). With Project "*"
// (AllProjects) it searches every project of the tenant that holds a file (at most
// MaxAllProjects), which needs a store implementing driver.ProjectLister, and each Hit names its
// project; the rate limiter is asked for one token per query either way. Errors: RATE_LIMITED from
// the RateLimiter, INVALID_QUERY for a blank query or one beyond MaxQueryBytes or
// MaxQueryTerms, INVALID_ARGUMENT for a blank project or a MinSemanticScore that is not finite,
// INVALID_ARGUMENT for "*" over a store that cannot list projects,
// PERMISSION_DENIED without an AuthContext, RESOURCE_BUSY when the tenant's other searches (or
// all tenants' searches) held the search slots for longer than the search could wait (see
// SearcherOptions.MaxConcurrentPerTenant), SEARCH_BACKEND_ERROR when the store or the index
// fails. Embedder and reranker failures are not errors: the result says which path produced it.
func (s *Searcher) Search(ctx context.Context, q Query) (Result, error) {
	ac, ok := agentfiles.AuthFromContext(ctx)
	if !ok || ac.TenantID() == "" {
		return Result{}, agentfiles.NewError(agentfiles.CodePermissionDenied, "no caller identity in the request; the adapter must authenticate the caller", "")
	}
	if s.opts.RateLimiter != nil {
		if err := s.opts.RateLimiter.Allow(ac.TenantID()); err != nil {
			return Result{}, err
		}
	}
	if limit := s.opts.MaxQueryBytes; limit > 0 && len(q.Query) > limit {
		return Result{}, agentfiles.NewError(CodeInvalidQuery, fmt.Sprintf(
			"the query is %d bytes, more than the limit of %d bytes; shorten it to the words that matter", len(q.Query), limit), "query")
	}
	query := strings.TrimSpace(q.Query)
	if query == "" {
		return Result{}, agentfiles.NewError(CodeInvalidQuery, "the query is empty; pass words or a phrase to search for, e.g. \"retry backoff\"", "query")
	}
	terms := indexdriver.QueryTerms(query)
	if limit := s.opts.MaxQueryTerms; limit > 0 && len(terms) > limit {
		return Result{}, agentfiles.NewError(CodeInvalidQuery, fmt.Sprintf(
			"the query has %d distinct terms, more than the limit of %d; keep the words that matter", len(terms), limit), "query")
	}
	if strings.TrimSpace(q.Project) == "" {
		return Result{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "the project is empty; pass the project name used with file_write", "project")
	}
	minSemantic := *s.opts.MinSemanticScore
	if q.MinSemanticScore != nil {
		if minSemantic = *q.MinSemanticScore; !finite(minSemantic) {
			return Result{}, agentfiles.NewError(agentfiles.CodeInvalidArgument, "min_semantic_score must be a number, e.g. 0.2", "min_semantic_score")
		}
	}
	res := Result{Limit: q.Limit, FuseMethod: s.opts.FuseMethod, MinSemanticScore: minSemantic}
	if res.Limit <= 0 {
		res.Limit = s.opts.LimitDefault
	}
	if res.Limit > s.opts.LimitMax {
		res.Limit, res.LimitClamped = s.opts.LimitMax, true
	}
	s.log.DebugContext(ctx, "file_search", "project", q.Project, "query", truncateText(query, 128), "limit", res.Limit)
	sq := scopeQuery{query: query, terms: terms, prefix: fileio.NormalizePath(q.PathPrefix), minSemantic: minSemantic}
	if q.Glob != "" {
		g, err := globmatch.Compile(fileio.NormalizePath(q.Glob))
		if err != nil {
			return Result{}, err
		}
		sq.glob = g
	}
	release, err := s.gate.acquire(ctx, ac.TenantID())
	if err != nil {
		return Result{}, err
	}
	defer release()
	if q.Project == AllProjects {
		return s.searchAll(ctx, ac.TenantID(), sq, res)
	}
	scope := driver.Scope{Tenant: ac.TenantID(), Project: q.Project}
	cands, err := s.searchScope(ctx, scope, sq, &res)
	if err != nil {
		return Result{}, err
	}
	if len(cands) == 0 && res.PendingFiles == 0 {
		if res.ProjectEmpty, err = s.projectEmpty(ctx, scope); err != nil {
			return Result{}, err
		}
	}
	if cands, err = s.rerankAndCheck(ctx, ac.TenantID(), query, cands, 0, &res); err != nil {
		return Result{}, err
	}
	return s.finish(ctx, ac.TenantID(), res, cands), nil
}

// scopeQuery is a validated query, as searchScope runs it in one project.
type scopeQuery struct {
	query, prefix string
	terms         []string
	weights       []float64 // the terms' weights (nil: 1 each); set by expansion
	minSemantic   float64
	glob          *globmatch.Glob // nil: every path
	// embedded says qvec and embedErr hold the query's embedding, computed once for "*".
	embedded bool
	qvec     []float32
	embedErr error
}

// rerankAndCheck reranks the fused-ordered candidates (at most the first maxDocs of them when
// maxDocs > 0; the others rank below, in fused order) when a Reranker is configured, and then checks
// them against the store again, one read per project: a reranker may have taken seconds, and
// the store is the source of truth at return time. It sets res.Ranking and res.RerankError.
func (s *Searcher) rerankAndCheck(ctx context.Context, tenant, query string, cands []*candidate, maxDocs int, res *Result) ([]*candidate, error) {
	res.Ranking = RankingFused
	if s.opts.Reranker == nil || len(cands) == 0 {
		return cands, nil
	}
	top := cands
	if maxDocs > 0 && len(top) > maxDocs {
		top = cands[:maxDocs]
	}
	if err := s.rerank(ctx, query, top); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.RerankError = errorText(err)
		s.log.WarnContext(ctx, "rerank failed; using fused scores", "error", res.RerankError)
		for _, c := range cands {
			c.final = c.fused
		}
	} else {
		res.Ranking = RankingRerank
		lowest := top[0].final
		for _, c := range top {
			lowest = min(lowest, c.final)
		}
		for i, c := range cands[len(top):] {
			c.final = lowest - 1 - float64(len(top)+i)*1e-9
		}
	}
	sortCandidates(cands)
	byProject := map[string][]string{}
	var projects []string
	for _, c := range cands {
		if _, ok := byProject[c.project]; !ok {
			projects = append(projects, c.project)
		}
		byProject[c.project] = append(byProject[c.project], c.path)
	}
	lives := make(map[string]liveFiles, len(projects))
	for _, p := range projects {
		live, err := s.statMany(ctx, driver.Scope{Tenant: tenant, Project: p}, byProject[p])
		if err != nil {
			return nil, err
		}
		lives[p] = live
	}
	kept := cands[:0]
	for _, c := range cands {
		if lives[c.project].current(c.path, c.version) {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// finish applies the limit to the ranked candidates, makes the hits and records
// last_served_at on exactly the returned indexed chunks (one call per project).
func (s *Searcher) finish(ctx context.Context, tenant string, res Result, cands []*candidate) Result {
	returned := cands
	if len(returned) > res.Limit {
		returned, res.Truncated = returned[:res.Limit], true
	}
	refs := map[string][]indexdriver.ChunkRef{}
	var projects []string
	for _, c := range returned {
		res.Hits = append(res.Hits, c.hit())
		if c.source == SourceIndex {
			if _, ok := refs[c.project]; !ok {
				projects = append(projects, c.project)
			}
			refs[c.project] = append(refs[c.project], indexdriver.ChunkRef{Path: c.path, FileUpdatedAt: c.version, ChunkIndex: c.chunk.Index})
		}
	}
	for _, p := range projects {
		if err := s.index.MarkServed(ctx, driver.Scope{Tenant: tenant, Project: p}, refs[p], s.opts.Now()); err != nil {
			s.log.WarnContext(ctx, "recording last_served_at failed", "error", err)
		}
	}
	return res
}

// staleAndPending compares the index's file states with the active files (see activeFiles.diff):
// the fallback of notCurrent for a store without driver.ScopeJobLister.
func (s *Searcher) staleAndPending(ctx context.Context, scope driver.Scope, prefix string, active activeFiles) (map[string]bool, []driver.FileInfo, error) {
	if l, ok := s.index.(indexdriver.FileStateLister); ok {
		states, err := l.FileStateList(ctx, scope, prefix)
		if err != nil {
			return nil, nil, err
		}
		exclude, pending := active.diffSorted(states)
		return exclude, pending, nil
	}
	states, err := s.index.FileStates(ctx, scope, prefix)
	if err != nil {
		return nil, nil, err
	}
	exclude, pending := active.diff(states)
	return exclude, pending, nil
}

func (c *candidate) hit() Hit {
	return Hit{
		Project: c.project, Path: c.path, StartByte: c.chunk.StartByte, EndByte: c.chunk.EndByte, Content: c.chunk.Text,
		Score: c.final, SemanticScore: c.semantic, HasSemantic: c.hasSemantic,
		LexicalScore: c.lexical, HasLexical: c.hasLexical, FusedScore: c.fused, Source: c.source,
	}
}

func sortCandidates(cands []*candidate) {
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].final != cands[j].final {
			return cands[i].final > cands[j].final
		}
		return cands[i].less(cands[j])
	})
}

// semantic embeds the query and returns the index's semantic candidates and the query vector.
// With "*" the query is embedded once (q.embedded) and every project uses that vector.
func (s *Searcher) semantic(ctx context.Context, scope driver.Scope, q scopeQuery, exclude map[string]bool) ([]indexdriver.Candidate, []float32, error) {
	qvec, err := q.qvec, q.embedErr
	if !q.embedded {
		qvec, err = s.embedQuery(ctx, q.query)
	}
	if err != nil {
		return nil, nil, err
	}
	cands, err := s.index.Semantic(ctx, scope, indexdriver.SemanticQuery{
		Vector: qvec, Model: s.opts.Embedder.Model(), PathPrefix: q.prefix, ExcludePaths: exclude, TopK: q.candidates(s.opts.VectorCandidates),
	})
	return keepGlob(q.glob, cands, func(c indexdriver.Candidate) string { return c.Path }), qvec, err
}

// globCandidateFactor is how many times more candidates each index returns while a query has a
// glob, which then drops those of other files.
const globCandidateFactor = 4

// candidates is the number of candidates to ask an index for: n, more with a glob.
func (q scopeQuery) candidates(n int) int {
	if q.glob != nil {
		return n * globCandidateFactor
	}
	return n
}

// keepGlob returns the items whose path g matches (all of them when g is nil).
func keepGlob[T any](g *globmatch.Glob, items []T, path func(T) string) []T {
	if g == nil {
		return items
	}
	kept := make([]T, 0, len(items))
	for _, it := range items {
		if g.MatchFile("", path(it)) {
			kept = append(kept, it)
		}
	}
	return kept
}

// embedQuery returns the query's embedding.
func (s *Searcher) embedQuery(ctx context.Context, query string) ([]float32, error) {
	vecs, err := s.opts.Embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 || len(vecs[0]) != s.opts.Embedder.Dimensions() {
		return nil, agentfiles.NewError(agentfiles.CodeModelError, "the embedder returned no vector of the configured size for the query", "")
	}
	return vecs[0], nil
}

// completeScores asks the index for the scores that indexed candidates lack: the BM25 of the
// semantic candidates and the similarity of the lexical ones (Index.ScoreChunks). Scanned
// chunks of not-yet-indexed files have no vector and keep only their BM25. With relex every
// indexed candidate gets its BM25 from lex, the lexical candidates too.
func (s *Searcher) completeScores(ctx context.Context, scope driver.Scope, cands []*candidate, terms []string, weights []float64, lex indexdriver.LexicalResult, qvec []float32, relex bool) error {
	var need []*candidate
	q := indexdriver.ScoreQuery{}
	for _, c := range cands {
		if c.source == SourceIndex && ((len(terms) > 0 && (relex || !c.hasLexical)) || (qvec != nil && !c.hasSemantic)) {
			need = append(need, c)
			q.Chunks = append(q.Chunks, indexdriver.ChunkRef{Path: c.path, FileUpdatedAt: c.version, ChunkIndex: c.chunk.Index})
		}
	}
	if len(need) == 0 {
		return nil
	}
	if len(terms) > 0 {
		q.Terms, q.Weights, q.DocFreq, q.Stats, q.BM25 = terms, weights, lex.DocFreq, lex.Stats, s.opts.BM25
	}
	if qvec != nil {
		q.Vector, q.Model = qvec, s.opts.Embedder.Model()
	}
	scores, err := s.index.ScoreChunks(ctx, scope, q)
	if err != nil {
		return err
	}
	if len(scores) != len(need) {
		return agentfiles.NewError(CodeSearchBackendError, "the index scored a different number of chunks than asked", "")
	}
	for i, c := range need {
		sc := scores[i]
		if !sc.Found {
			continue // re-indexed meanwhile: the final check against the store drops it
		}
		if len(terms) > 0 && (relex || !c.hasLexical) {
			c.lexical, c.hasLexical = sc.Lexical, true
		}
		if qvec != nil && !c.hasSemantic && sc.HasSemantic {
			c.semantic, c.hasSemantic = sc.Semantic, true
		}
	}
	return nil
}

// qualified keeps the candidates that are evidence of a match on a leg that weighs in the
// fusion: a query term occurs in them (BM25 above 0) and the lexical weight is above 0, or
// their similarity to the query is above minSemantic (and above −1, the least there is) and
// the semantic weight is above 0. The order is kept.
func (s *Searcher) qualified(cands []*candidate, minSemantic float64) []*candidate {
	lexical, semantic := s.opts.LexicalWeight > 0, s.opts.SemanticWeight > 0
	out := cands[:0]
	for _, c := range cands {
		if (lexical && c.hasLexical && c.lexical > 0) || (semantic && c.hasSemantic && c.semantic > max(minSemantic, leastSimilarity)) {
			out = append(out, c)
		}
	}
	return out
}

func (s *Searcher) rerank(ctx context.Context, query string, cands []*candidate) error {
	if t := s.opts.RerankTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	docs := make([]string, len(cands))
	for i, c := range cands {
		docs[i] = c.chunk.Text
	}
	results, err := s.opts.Reranker.Rerank(ctx, query, docs, len(docs))
	if err != nil {
		return err
	}
	if len(results) == 0 {
		return agentfiles.NewError(agentfiles.CodeModelError, "the reranker returned no results", "")
	}
	scored := make([]bool, len(cands))
	lowest := results[0].Score
	for _, r := range results {
		if r.Index < 0 || r.Index >= len(cands) {
			return agentfiles.NewError(agentfiles.CodeModelError, "the reranker returned an out-of-range index", "")
		}
		cands[r.Index].final = r.Score
		scored[r.Index] = true
		lowest = min(lowest, r.Score)
	}
	// Documents the reranker left out rank below every scored one, in fused order.
	for i, c := range cands {
		if !scored[i] {
			c.final = lowest - 1 - float64(i)*1e-9
		}
	}
	return nil
}

// backendError passes on coded errors (an index or store that is UNAVAILABLE stays so) and
// context errors, and reports anything else, INTERNAL included, as SEARCH_BACKEND_ERROR with msg.
func backendError(msg string, err error) error {
	var e *agentfiles.Error
	if errors.As(err, &e) && e.Code.Kind() != agentfiles.KindInternal {
		return err
	}
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr
	}
	return agentfiles.WrapError(CodeSearchBackendError, msg+"; retry later", "", err)
}

// errorText is an error's text safe to show: coded errors give their message, others a generic one.
func errorText(err error) string {
	var e *agentfiles.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return cerr.Error()
	}
	return "provider call failed"
}
