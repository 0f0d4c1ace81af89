package pgindex

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// sqlPostings reads, in one statement, the project's statistics and, for each query term, its
// document frequency over the whole project and its postings in chunks that pass the path
// filters, as two parallel arrays in chunk-id order (the primary key's order): the chunk ids,
// and tf<<32 | chunk_terms. Each term is one index range aggregated on its own, so nothing is
// sorted or grouped. Scoring happens in Go (see Lexical): a SQL aggregation of every posting of
// a frequent term costs far more than shipping the compact arrays. With $7 false the arrays are
// NULL (statistics only).
//
// The result has no row when the project has never been indexed, and a single row with NULL
// term columns when the query has no terms.
const sqlPostings = `SELECT pr.chunk_count, pr.total_terms, q.term, t.df, t.ids, t.packed
FROM mcp_search_projects pr
LEFT JOIN LATERAL unnest($3::text[]) AS q(term) ON true
LEFT JOIN LATERAL (
    SELECT count(*) AS df,
           array_agg(po.chunk_id) FILTER (WHERE $7 AND ($4 = '' OR po.file_path LIKE $5) AND po.file_path <> ALL($6::text[])) AS ids,
           array_agg((po.tf::int8 << 32) | po.chunk_terms) FILTER (WHERE $7 AND ($4 = '' OR po.file_path LIKE $5) AND po.file_path <> ALL($6::text[])) AS packed
    FROM mcp_file_chunk_postings po
    WHERE po.project_id = pr.id AND po.term = q.term) t ON true
WHERE pr.apikey_hash = $1 AND pr.project = $2`

// sqlChunkKeys reads the tie-breaking keys of chunks (see selectChunks).
const sqlChunkKeys = "SELECT c.id, c.file_path, c.chunk_index FROM mcp_file_chunks c WHERE c.id = ANY($1)"

// termPostings are one query term's postings, sorted by chunk id.
type termPostings struct {
	ids    []int64
	packed []int64 // tf<<32 | chunk_terms
}

// Lexical implements search.Index. In LexicalBM25 mode scores are search.BM25's, computed in Go
// from SQL-fetched term frequencies, document frequencies and project statistics, summed over
// q.Terms in order: bit-identical to search/memindex on the same chunks. Statistics, postings
// and the returned chunks are read in one repeatable-read snapshot.
func (ix *Index) Lexical(ctx context.Context, scope fileio.Scope, q search.LexicalQuery) (search.LexicalResult, error) {
	if err := ctx.Err(); err != nil {
		return search.LexicalResult{}, err
	}
	res := search.LexicalResult{DocFreq: make([]int64, len(q.Terms))}
	terms := q.Terms
	if terms == nil {
		terms = []string{}
	}
	want := q.TopK > 0 && len(q.Terms) > 0 && ix.lexical == LexicalBM25
	var cands []search.Candidate
	err := ix.readSnapshot(ctx, want, func(conn *pgxpool.Conn, begin *pgx.Batch) error {
		lists := make([]termPostings, len(q.Terms))
		begin.Queue(sqlPostings, scope.Tenant, scope.Project, terms,
			q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths), want)
		br := conn.SendBatch(ctx, begin)
		defer br.Close()
		for range begin.Len() - 1 {
			if _, err := br.Exec(); err != nil { // BEGIN
				return err
			}
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		var term *string
		var df *int64
		var ids, packed []int64
		_, err = pgx.ForEachRow(rows, []any{&res.Stats.Chunks, &res.Stats.TotalTerms, &term, &df, &ids, &packed}, func() error {
			if term == nil {
				return nil
			}
			for i, t := range q.Terms {
				if t == *term {
					res.DocFreq[i] = *df
					lists[i] = termPostings{ids: ids, packed: packed}
				}
			}
			ids, packed = nil, nil // the next row must not decode into these arrays
			return nil
		})
		if err != nil || !want {
			return err
		}
		if err := br.Close(); err != nil {
			return err
		}
		scorers := make([]search.TermScorer, len(q.Terms))
		for i := range q.Terms {
			scorers[i] = q.BM25.Scorer(res.DocFreq[i], res.Stats)
		}
		best := scoreBest(lists, scorers, q.TopK)
		cands, err = selectChunks(ctx, conn, best, q.TopK)
		return err
	})
	if err != nil {
		return res, backendError(ctx, "running a lexical query", err)
	}
	if ix.lexical == LexicalTSVector {
		cands, err = ix.fullText(ctx, scope, q)
		if err != nil {
			return res, backendError(ctx, "running a full-text query", err)
		}
		cands = topCandidates(cands, q.TopK)
	}
	res.Candidates = cands
	return res, nil
}

// chunkScore is a chunk id with its exact BM25 score.
type chunkScore struct {
	id    int64
	score float64
}

// scoreBest merges the per-term postings (each sorted by chunk id), scores every chunk exactly
// as memindex does (Σ over the terms in query order), and returns every chunk whose score is at
// least the k-th best: the top k by score plus all chunks tied with the k-th, whose order is
// decided by path and chunk index (see selectChunks).
func scoreBest(lists []termPostings, scorers []search.TermScorer, k int) []chunkScore {
	for i := range lists {
		if !slices.IsSorted(lists[i].ids) { // the primary key's order; sorted here if a plan changes it
			sortPostings(&lists[i])
		}
	}
	total := 0
	for _, l := range lists {
		total += len(l.ids)
	}
	all := make([]chunkScore, 0, total)
	pos := make([]int, len(lists))
	for {
		next := int64(math.MaxInt64)
		for i, l := range lists {
			if pos[i] < len(l.ids) && l.ids[pos[i]] < next {
				next = l.ids[pos[i]]
			}
		}
		if next == math.MaxInt64 {
			break
		}
		score := 0.0
		for i, l := range lists {
			if p := pos[i]; p < len(l.ids) && l.ids[p] == next {
				v := l.packed[p]
				score += scorers[i].Score(int(v>>32), int(uint32(v)))
				pos[i]++
			}
		}
		all = append(all, chunkScore{id: next, score: score})
	}
	if len(all) <= k {
		return all
	}
	// The k-th best score: a min-heap of the k best scores seen.
	h := make(minScores, 0, k)
	for _, c := range all {
		h.offer(c.score, k)
	}
	threshold := h[0]
	out := all[:0]
	for _, c := range all {
		if c.score >= threshold {
			out = append(out, c)
		}
	}
	return out
}

// sortPostings sorts a term's parallel arrays by chunk id.
func sortPostings(l *termPostings) {
	idx := make([]int, len(l.ids))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return l.ids[idx[a]] < l.ids[idx[b]] })
	ids, packed := make([]int64, len(idx)), make([]int64, len(idx))
	for i, j := range idx {
		ids[i], packed[i] = l.ids[j], l.packed[j]
	}
	l.ids, l.packed = ids, packed
}

// minScores is a min-heap of scores (the root is the smallest kept).
type minScores []float64

func (h *minScores) offer(s float64, k int) {
	a := *h
	if len(a) < k {
		a = append(a, s)
		for i := len(a) - 1; i > 0; {
			p := (i - 1) / 2
			if a[p] <= a[i] {
				break
			}
			a[p], a[i] = a[i], a[p]
			i = p
		}
		*h = a
		return
	}
	if s <= a[0] {
		return
	}
	a[0] = s
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l] < a[m] {
			m = l
		}
		if r < len(a) && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
}

// selectChunks reads the chunks of best and returns the k best by score, then path, then chunk
// index. When ties at the k-th score make best much longer than k, the tie-breaking keys are
// read first and only the chosen chunks' rows after. It ends the snapshot's transaction: the
// last read and COMMIT go in one round trip.
func selectChunks(ctx context.Context, conn *pgxpool.Conn, best []chunkScore, k int) ([]search.Candidate, error) {
	if len(best) == 0 {
		_, err := conn.Exec(ctx, "COMMIT")
		return nil, err
	}
	ids := make([]int64, len(best))
	scores := make(map[int64]float64, len(best))
	for i, b := range best {
		ids[i] = b.id
		scores[b.id] = b.score
	}
	if len(best) > 2*k+16 {
		rows, err := conn.Query(ctx, sqlChunkKeys, ids)
		if err != nil {
			return nil, err
		}
		h := search.NewTopK[int64](k)
		var id int64
		var path string
		var index int32
		_, err = pgx.ForEachRow(rows, []any{&id, &path, &index}, func() error {
			h.Offer(search.Ranked[int64]{Score: scores[id], Path: path, Index: int(index), Value: id})
			return nil
		})
		if err != nil {
			return nil, err
		}
		ids = ids[:0]
		for _, s := range h.Sorted() {
			ids = append(ids, s.Value)
		}
	}
	b := &pgx.Batch{}
	b.Queue(sqlFetchChunks, ids)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	chunks, err := scanChunks(rows, len(ids))
	if err != nil {
		return nil, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	cands := make([]search.Candidate, 0, len(chunks))
	for id, c := range chunks {
		c.Score = scores[id]
		cands = append(cands, c)
	}
	return topCandidates(cands, k), nil
}

// readSnapshot runs fn on a pooled connection. With snapshot set, begin holds the BEGIN of a
// repeatable-read, read-only transaction, which fn sends in one batch with its first statement
// (one round trip instead of two), and fn must end the transaction (COMMIT) itself; without it
// begin is empty. A connection released inside a transaction (fn failed) is closed by the pool,
// never reused.
func (ix *Index) readSnapshot(ctx context.Context, snapshot bool, fn func(conn *pgxpool.Conn, begin *pgx.Batch) error) error {
	conn, err := ix.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	begin := &pgx.Batch{}
	if snapshot {
		begin.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	}
	return fn(conn, begin)
}

// topCandidates sorts by score, path, chunk index and keeps k.
func topCandidates(cands []search.Candidate, k int) []search.Candidate {
	h := search.NewTopK[int](k)
	for i, c := range cands {
		h.Offer(search.Ranked[int]{Score: c.Score, Path: c.Path, Index: c.Chunk.Index, Value: i})
	}
	best := h.Sorted()
	out := make([]search.Candidate, len(best))
	for i, b := range best {
		out[i] = cands[b.Value]
	}
	return out
}

// tsQuery ORs the terms as tsquery lexemes, quoted so that no term is parsed as an operator.
func tsQuery(terms []string) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		parts = append(parts, "'"+strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(t)+"'")
	}
	return strings.Join(parts, " | ")
}

// fullText is LexicalTSVector's candidate query: chunks matching any term, ranked by
// ts_rank_cd over the chunk's stored tsvector (chunk_tsv, written in this mode). The terms are
// already stemmed by the search tokenizer (Snowball English, like
// PostgreSQL's english configuration), so they are used as lexemes as they are.
func (ix *Index) fullText(ctx context.Context, scope fileio.Scope, q search.LexicalQuery) ([]search.Candidate, error) {
	if len(q.Terms) == 0 || q.TopK <= 0 {
		return nil, nil
	}
	rows, err := ix.pool.Query(ctx, `SELECT ts_rank_cd(c.chunk_tsv, $3::tsquery)::float8, `+chunkColumns+`
FROM mcp_search_projects pr JOIN mcp_file_chunks c ON c.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND c.chunk_tsv @@ $3::tsquery
  AND ($4::text = '' OR c.file_path LIKE $5::text) AND c.file_path <> ALL($6::text[])
ORDER BY 1 DESC, c.file_path, c.chunk_index LIMIT $7`,
		scope.Tenant, scope.Project, tsQuery(q.Terms), q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths), q.TopK)
	if err != nil {
		return nil, err
	}
	var out []search.Candidate
	var c search.Candidate
	var id int64
	var at time.Time
	var ns, index int32
	_, err = pgx.ForEachRow(rows, []any{&c.Score, &id, &c.Path, &at, &ns, &index, &c.Chunk.StartByte, &c.Chunk.EndByte, &c.Chunk.ContentHash}, func() error {
		c.FileUpdatedAt, c.Chunk.Index = joinVersion(at, ns), int(index)
		out = append(out, c)
		return nil
	})
	return out, err
}
