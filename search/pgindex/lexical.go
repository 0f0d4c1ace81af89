package pgindex

import (
	"context"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/search"
	"github.com/jackc/pgx/v5"
)

// sqlLexical answers a BM25 query in one statement (one snapshot): the project's statistics,
// the document frequency of every query term over the whole project, and the best chunks by
// BM25 with path filters applied, each with its term frequencies. SQL's score only selects and
// orders candidates; Lexical recomputes every score in Go with search.BM25 so the floats are
// exactly memindex's, and fetches more rows than asked (see lexicalFetch) so that last-bit
// differences between SQL's and Go's arithmetic cannot change which chunks make the top K.
//
// The result has one row per candidate, or a single row with NULL candidate columns when there
// are none, and no row when the project has never been indexed.
const sqlLexical = `WITH pr AS (
    SELECT id, chunk_count, total_terms,
           total_terms::float8 / greatest(chunk_count, 1) AS avgdl
    FROM mcp_search_projects WHERE apikey_hash = $1 AND project = $2
), p AS (
    SELECT po.term, po.chunk_id, po.tf, po.chunk_terms, po.file_path
    FROM pr JOIN mcp_file_chunk_postings po ON po.project_id = pr.id AND po.term = ANY($3::text[])
), d AS (
    SELECT p.term, count(*) AS df FROM p GROUP BY p.term
), w AS (
    SELECT d.term, ln(1 + (pr.chunk_count - d.df + 0.5::float8) / (d.df + 0.5::float8)) AS idf FROM d CROSS JOIN pr
), h AS (
    SELECT pr.chunk_count, pr.total_terms,
           ARRAY(SELECT coalesce(d.df, 0) FROM unnest($3::text[]) WITH ORDINALITY AS q(term, ord)
                 LEFT JOIN d ON d.term = q.term ORDER BY q.ord) AS dfs
    FROM pr
), s AS (
    SELECT p.chunk_id, min(p.file_path) AS fpath,
           sum(w.idf * p.tf * ($4::float8 + 1)
               / (p.tf + $4::float8 * (1 - $5::float8 + $5::float8 * p.chunk_terms / pr.avgdl))) AS score
    FROM p JOIN w ON w.term = p.term CROSS JOIN pr
    WHERE ($6::text = '' OR p.file_path LIKE $7::text) AND p.file_path <> ALL($8::text[])
    GROUP BY p.chunk_id
    ORDER BY score DESC, fpath, p.chunk_id
    LIMIT $9
)
SELECT h.chunk_count, h.total_terms, h.dfs, c.chunk_terms, t.terms, t.tfs, ` + chunkColumns + `
FROM h LEFT JOIN (s JOIN mcp_file_chunks c ON c.id = s.chunk_id
    CROSS JOIN LATERAL (
        SELECT array_agg(po.term) AS terms, array_agg(po.tf) AS tfs FROM mcp_file_chunk_postings po
        WHERE po.project_id = c.project_id AND po.term = ANY($3::text[]) AND po.chunk_id = c.id) t) ON true`

// lexicalFetch is how many SQL-ranked rows are fetched for a top-k query.
func lexicalFetch(k int) int {
	if k <= 0 {
		return 0
	}
	return 2*k + 16
}

// Lexical implements search.Index. In LexicalBM25 mode scores are search.BM25's, computed in Go
// from SQL-fetched term frequencies, document frequencies and project statistics, summed over
// q.Terms in order: bit-identical to search/memindex on the same chunks.
func (ix *Index) Lexical(ctx context.Context, scope fileio.Scope, q search.LexicalQuery) (search.LexicalResult, error) {
	if err := ctx.Err(); err != nil {
		return search.LexicalResult{}, err
	}
	res := search.LexicalResult{DocFreq: make([]int64, len(q.Terms))}
	terms := q.Terms
	if terms == nil {
		terms = []string{}
	}
	fetch := lexicalFetch(q.TopK)
	if ix.lexical == LexicalTSVector {
		fetch = 0 // only the statistics; candidates come from full-text search
	}
	rows, err := ix.pool.Query(ctx, sqlLexical, scope.Tenant, scope.Project, terms, q.BM25.K1, q.BM25.B,
		q.PathPrefix, likePrefix(q.PathPrefix), excludeList(q.ExcludePaths), fetch)
	if err != nil {
		return res, backendError(ctx, "running a lexical query", err)
	}
	var cands []search.Candidate
	var scorers []search.TermScorer
	var tfs []int32
	for rows.Next() {
		var dfs []int64
		var chunkTerms *int32
		var rowTerms []string
		var id *int64
		var path, text, hash *string
		var at *time.Time
		var ns, index *int32
		var start, end *int64
		if err := rows.Scan(&res.Stats.Chunks, &res.Stats.TotalTerms, &dfs, &chunkTerms, &rowTerms, &tfs,
			&id, &path, &at, &ns, &index, &start, &end, &text, &hash); err != nil {
			rows.Close()
			return res, backendError(ctx, "reading lexical candidates", err)
		}
		if scorers == nil {
			copy(res.DocFreq, dfs)
			scorers = make([]search.TermScorer, len(q.Terms))
			for i := range q.Terms {
				scorers[i] = q.BM25.Scorer(res.DocFreq[i], res.Stats)
			}
		}
		if id == nil {
			continue
		}
		score := 0.0
		for i, term := range q.Terms {
			for j, t := range rowTerms {
				if t == term {
					score += scorers[i].Score(int(tfs[j]), int(*chunkTerms))
					break
				}
			}
		}
		cands = append(cands, search.Candidate{
			Path: *path, FileUpdatedAt: joinVersion(*at, *ns), Score: score,
			Chunk: search.Chunk{Index: int(*index), StartByte: *start, EndByte: *end, Text: *text, ContentHash: *hash},
		})
	}
	if err := rows.Err(); err != nil {
		return res, backendError(ctx, "reading lexical candidates", err)
	}
	if ix.lexical == LexicalTSVector {
		cands, err = ix.fullText(ctx, scope, q)
		if err != nil {
			return res, backendError(ctx, "running a full-text query", err)
		}
	}
	res.Candidates = topCandidates(cands, q.TopK)
	return res, nil
}

// topCandidates sorts by score, path, chunk index and keeps k.
func topCandidates(cands []search.Candidate, k int) []search.Candidate {
	h := &bestK{k: k}
	for i, c := range cands {
		h.offer(scored{id: int64(i), path: c.Path, index: c.Chunk.Index, score: c.Score})
	}
	best := h.sorted()
	out := make([]search.Candidate, len(best))
	for i, b := range best {
		out[i] = cands[b.id]
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
// ts_rank_cd. The terms are already stemmed by the search tokenizer (Snowball English, like
// PostgreSQL's english configuration), so they are used as lexemes as they are.
func (ix *Index) fullText(ctx context.Context, scope fileio.Scope, q search.LexicalQuery) ([]search.Candidate, error) {
	if len(q.Terms) == 0 || q.TopK <= 0 {
		return nil, nil
	}
	rows, err := ix.pool.Query(ctx, `SELECT ts_rank_cd(to_tsvector('english', c.chunk_content), $3::tsquery)::float8, `+chunkColumns+`
FROM mcp_search_projects pr JOIN mcp_file_chunks c ON c.project_id = pr.id
WHERE pr.apikey_hash = $1 AND pr.project = $2 AND to_tsvector('english', c.chunk_content) @@ $3::tsquery
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
	_, err = pgx.ForEachRow(rows, []any{&c.Score, &id, &c.Path, &at, &ns, &index, &c.Chunk.StartByte, &c.Chunk.EndByte, &c.Chunk.Text, &c.Chunk.ContentHash}, func() error {
		c.FileUpdatedAt, c.Chunk.Index = joinVersion(at, ns), int(index)
		out = append(out, c)
		return nil
	})
	return out, err
}
