package pgindex

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/search/indexdriver"
	"github.com/jackc/pgx/v5"
)

// sqlProject reads the project's id, generation and statistics.
const sqlProject = "SELECT id, generation, chunk_count, total_terms FROM mcp_search_projects WHERE apikey_hash = $1 AND project = $2"

// sqlPostingSlices reads postings blocks: for each (segment, offset, length), that slice of the
// segment's postings bytes. The column is stored uncompressed out of line (migration 0005), so
// PostgreSQL reads only the TOAST chunks that hold the slice, not the segment's postings.
const sqlPostingSlices = `SELECT r.i, substring(s.postings FROM r.off + 1 FOR r.len)
FROM unnest($1::bigint[], $2::int[], $3::int[]) WITH ORDINALITY AS r(seg, off, len, i)
JOIN mcp_search_segments s ON s.id = r.seg`

// snapshot is what a query reads in one repeatable-read snapshot: the project's generation and
// statistics, the view at that generation, and the postings blocks of the query terms.
type snapshot struct {
	pid    int64 // 0: the project has never been indexed
	stats  indexdriver.CorpusStats
	view   *view
	blocks []termBlock
	// need says which chunk groups (see chunkKey) the caller reads postings of; nil: all.
	need []bool
}

// termBlock is the postings block of a term in a segment of the view.
type termBlock struct {
	seg   int // index in view.segs
	term  string
	block []byte
}

// readSnapshot reads a snapshot for terms in one repeatable-read, read-only transaction: the
// statistics with extra's statements (queued after them; read consumes their results) in one
// round trip, the view from the cache (or, when the project changed, read in the same
// snapshot), then the postings blocks of the terms in the view's segments with the COMMIT.
// need, when not nil, names the chunk groups (see chunkKey) whose postings the caller reads:
// the blocks of other segments are neither fetched nor decoded (document frequencies are then
// partial, so only a caller that does not use them may pass it).
func (ix *Index) readSnapshot(ctx context.Context, scope driver.Scope, terms []string, need func(*view) []bool, extra func(*pgx.Batch), read func(pgx.BatchResults) error) (*snapshot, error) {
	conn, err := ix.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release() // a connection released inside a transaction (failure) is closed by the pool
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
	b.Queue(sqlProject, scope.Tenant, scope.Project)
	if extra != nil {
		extra(b)
	}
	s := &snapshot{}
	var gen int64
	err = func() error {
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		if _, err := br.Exec(); err != nil {
			return err
		}
		err := br.QueryRow().Scan(&s.pid, &gen, &s.stats.Chunks, &s.stats.TotalTerms)
		if errors.Is(err, pgx.ErrNoRows) {
			s.pid = 0
		} else if err != nil {
			return err
		}
		if read != nil {
			if err := read(br); err != nil {
				return err
			}
		}
		return br.Close()
	}()
	if err != nil {
		return nil, err
	}
	if s.pid != 0 {
		if s.view, err = ix.viewIn(ctx, conn, s.pid, gen); err != nil {
			return nil, err
		}
	}
	var segs []int64
	var offs, lens []int32
	if s.view != nil && need != nil {
		s.need = need(s.view)
	}
	if s.view != nil {
		distinct := slices.Compact(slices.Sorted(slices.Values(terms)))
		for si, seg := range s.view.segs {
			if s.need != nil && !s.need[si] {
				continue
			}
			for _, t := range distinct {
				if off, size, ok := seg.dict.find(t); ok {
					s.blocks = append(s.blocks, termBlock{seg: si, term: t})
					segs, offs, lens = append(segs, seg.id), append(offs, off), append(lens, size)
				}
			}
		}
	}
	b = &pgx.Batch{}
	if len(segs) > 0 {
		b.Queue(sqlPostingSlices, segs, offs, lens)
	}
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if len(segs) > 0 {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		var i int64
		var block []byte
		if _, err := pgx.ForEachRow(rows, []any{&i, &block}, func() error {
			s.blocks[i-1].block = block
			block = nil // the next row must not decode into this one's bytes
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	return s, br.Close()
}

// termPostings are one query term's postings, sorted by chunk key (see chunkKey).
type termPostings struct {
	ids    []int64
	packed []int64 // tf<<32 | chunk_terms
}

// chunkKey numbers a chunk of the view for merging postings: segment index (or, after the
// segments, the position in view.pending) in the high 32 bits, ordinal (or chunk index) low.
func chunkKey(group, ord int) int64 { return int64(group)<<32 | int64(ord) }

// postingLists decodes, for each of terms, its postings in live chunks: every one counts in the
// term's document frequency (df), and those of files that allowed lets through (nil: all) are
// returned, sorted by chunk key.
func (s *snapshot) postingLists(terms []string, allowed []bool) ([]termPostings, []int64, error) {
	lists := make([]termPostings, len(terms))
	df := make([]int64, len(terms))
	if s.view == nil {
		return lists, df, nil
	}
	v := s.view
	termIdx := make(map[string][]int, len(terms))
	for i, t := range terms {
		termIdx[t] = append(termIdx[t], i)
	}
	// s.blocks are in the view's segment order, so keys come out sorted.
	for _, tb := range s.blocks {
		si := tb.seg
		seg := &v.segs[si]
		for _, ti := range termIdx[tb.term] {
			l := &lists[ti]
			err := forEachPosting(tb.block, func(ord, tf int) {
				if ord >= len(seg.owner) {
					return
				}
				fi := seg.owner[ord]
				if fi < 0 {
					return
				}
				df[ti]++
				if allowed == nil || allowed[fi] {
					l.ids = append(l.ids, chunkKey(si, ord))
					l.packed = append(l.packed, int64(tf)<<32|int64(seg.dir.terms[ord]))
				}
			})
			if err != nil {
				return nil, nil, err
			}
		}
	}
	for pi, fi := range v.pending {
		if s.need != nil && !s.need[len(v.segs)+pi] {
			continue
		}
		p := v.files[fi].pending
		for ti, t := range terms {
			block, ok := p.blocks[t]
			if !ok {
				continue
			}
			l := &lists[ti]
			err := forEachPosting(block, func(i, tf int) {
				if i >= p.dir.len() {
					return
				}
				df[ti]++
				if allowed == nil || allowed[fi] {
					l.ids = append(l.ids, chunkKey(len(v.segs)+pi, i))
					l.packed = append(l.packed, int64(tf)<<32|int64(p.dir.terms[i]))
				}
			})
			if err != nil {
				return nil, nil, err
			}
		}
	}
	return lists, df, nil
}

// locate returns the file index and chunk index of a chunk key.
func (v *view) locate(key int64) (fi, chunk int) {
	group, ord := int(key>>32), int(uint32(key))
	if group < len(v.segs) {
		fi = int(v.segs[group].owner[ord])
		return fi, ord - int(v.files[fi].first)
	}
	return int(v.pending[group-len(v.segs)]), ord
}

// Lexical implements indexdriver.Index. In LexicalBM25 mode scores are indexdriver.BM25's, computed in Go
// from the postings blocks of the query terms, the project's statistics and document
// frequencies counted over its live chunks, weighted by q.Weights and summed over q.Terms in
// order: bit-identical to search/memindex on the same chunks. Everything is read in one
// repeatable-read snapshot. In LexicalTSVector mode the terms are OR-ed and ranked by
// ts_rank_cd, which has no per-term weights: q.Weights do not apply there.
func (ix *Index) Lexical(ctx context.Context, scope driver.Scope, q indexdriver.LexicalQuery) (indexdriver.LexicalResult, error) {
	if err := ctx.Err(); err != nil {
		return indexdriver.LexicalResult{}, err
	}
	res := indexdriver.LexicalResult{DocFreq: make([]int64, len(q.Terms))}
	s, err := ix.readSnapshot(ctx, scope, q.Terms, nil, nil, nil)
	if err != nil {
		return res, backendError(ctx, "running a lexical query", err)
	}
	res.Stats = s.stats
	if s.view == nil {
		return res, nil
	}
	var allowed []bool
	want := q.TopK > 0 && len(q.Terms) > 0 && ix.lexical == LexicalBM25
	if want {
		allowed = s.view.allowed(q.PathPrefix, q.ExcludePaths)
	}
	lists, df, err := s.postingLists(q.Terms, allowed)
	if err != nil {
		return res, backendError(ctx, "decoding postings", err)
	}
	res.DocFreq = df
	if want {
		scorers := q.TermScorers(df, res.Stats)
		for i := range lists {
			if !(indexdriver.Weight(q.Weights, i) > 0) {
				lists[i] = termPostings{} // scores nothing: no chunk is matched by it alone
			}
		}
		h := indexdriver.NewTopK[int64](q.TopK)
		for _, c := range scoreBest(lists, scorers, q.TopK) {
			fi, chunk := s.view.locate(c.id)
			h.Offer(indexdriver.Ranked[int64]{Score: c.score, Path: s.view.states[fi].Path, Index: chunk, Value: c.id})
		}
		for _, r := range h.Sorted() {
			fi, chunk := s.view.locate(r.Value)
			res.Candidates = append(res.Candidates, s.view.candidate(fi, chunk, r.Score))
		}
	}
	if ix.lexical == LexicalTSVector {
		res.Candidates, err = ix.fullText(ctx, scope, q, s.view)
		if err != nil {
			return res, backendError(ctx, "running a full-text query", err)
		}
	}
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
// decided by path and chunk index (see Lexical).
func scoreBest(lists []termPostings, scorers []indexdriver.TermScorer, k int) []chunkScore {
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

// tsQuery ORs the terms as tsquery lexemes, quoted so that no term is parsed as an operator.
func tsQuery(terms []string) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		parts = append(parts, "'"+strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(t)+"'")
	}
	return strings.Join(parts, " | ")
}

// fullText is LexicalTSVector's candidate query: chunks matching any term, ranked by
// ts_rank_cd over the chunk's stored tsvector (mcp_search_chunk_tsv, written in this mode). The
// terms are already stemmed by the search tokenizer (Snowball English, like PostgreSQL's english
// configuration), so they are used as lexemes as they are. The chunks' offsets and hashes come
// from v.
func (ix *Index) fullText(ctx context.Context, scope driver.Scope, q indexdriver.LexicalQuery, v *view) ([]indexdriver.Candidate, error) {
	if len(q.Terms) == 0 || q.TopK <= 0 {
		return nil, nil
	}
	rows, err := ix.pool.Query(ctx, `SELECT ts_rank_cd(c.tsv, $3::tsquery)::float8, c.file_path, c.chunk_index
FROM mcp_search_projects pr JOIN mcp_search_chunk_tsv c ON c.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND c.tsv @@ $3::tsquery
  AND ($4::text = '' OR c.file_path LIKE $5::text) AND c.file_path <> ALL($6::text[])
ORDER BY 1 DESC, c.file_path, c.chunk_index LIMIT $7`,
		scope.Tenant, scope.Project, tsQuery(q.Terms), q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths), q.TopK)
	if err != nil {
		return nil, err
	}
	var out []indexdriver.Candidate
	var score float64
	var path string
	var index int32
	_, err = pgx.ForEachRow(rows, []any{&score, &path, &index}, func() error {
		if fi, ok := v.fileIndex(path); ok && int(index) < v.states[fi].Chunks {
			out = append(out, v.candidate(fi, int(index), score))
		}
		return nil
	})
	return out, err
}
