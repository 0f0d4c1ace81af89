package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/memgrep"
	"github.com/jackc/pgx/v5"
)

var _ driver.LiteralGrepper = (*readTx)(nil)

// GrepLiterals implements driver.LiteralGrepper in one statement: the files are found as
// GrepCandidates finds them, the indexed ones with the trigram index and the unindexed ones
// with the index of pending files, under a condition that is exact for literal text (LIKE
// compares characters exactly, and on grepFold ASCII letters without case); the files in path
// order whose predecessors hold less than g.MaxReadBytes are kept, and for the count mode the
// lines of each (string_to_table at "\n") that contain a literal are counted in SQL. Only
// paths, infos and counts leave the database. A file with a NUL byte has no text (grepText is
// NULL), so no condition holds for it. It declines (false) when no literal has a trigram: the
// index could not narrow the files, and the Service's own scan is bounded by its budget.
//
// With the grep cache on (Options.GrepCacheBytes) and the files below g.Prefix within its
// budget, a read transaction answers from the cache instead, after the same decline check
// (grep_cache.go).
func (tx *readTx) GrepLiterals(ctx context.Context, g driver.LiteralGrep) ([]driver.LiteralFile, bool, error) {
	return tx.grepLiterals(ctx, g, tx.x.s.grepCache)
}

// GrepLiterals of a write transaction never uses the grep cache: its files may hold writes
// that are not committed, which the cache must never hold.
func (tx *writeTx) GrepLiterals(ctx context.Context, g driver.LiteralGrep) ([]driver.LiteralFile, bool, error) {
	return tx.grepLiterals(ctx, g, nil)
}

// grepLiterals is GrepLiterals, with the grep cache c when not nil.
func (tx *readTx) grepLiterals(ctx context.Context, g driver.LiteralGrep, c *grepCache) ([]driver.LiteralFile, bool, error) {
	lits := make([]driver.ContentQuery, len(g.Literals))
	for i, l := range g.Literals {
		lits[i] = driver.ContentQuery{Op: driver.QueryLiteral, Literal: l, IgnoreCase: g.IgnoreCase}
	}
	q := lits[0]
	if len(lits) > 1 {
		q = driver.ContentQuery{Op: driver.QueryOr, Sub: lits}
	}
	if indexable(q).Op == driver.QueryAll {
		return nil, false, nil
	}
	if err := tx.statementDeadline(ctx, g.Deadline); err != nil {
		return nil, false, err
	}
	if c != nil {
		v, err := tx.grepView(ctx, g.Prefix, g.After)
		if err != nil {
			return nil, false, err
		}
		if v != nil {
			out, err := memgrep.Literals(ctx, g, tx.files(v, g.Deadline))
			return out, err == nil, err
		}
	}
	where, args := tx.grepWhere(g.Prefix, g.After, g.Limit)
	cond := likeCondition(q, &args)
	budget := g.MaxReadBytes
	if budget <= 0 {
		budget = 1 << 62
	}
	args = append(args, budget)
	budgetArg := len(args)
	lines := "1"
	if g.CountLines {
		text, line := grepText, make([]string, len(g.Literals))
		if g.IgnoreCase {
			text = grepFold
		}
		for i, l := range g.Literals {
			args = append(args, "%"+escapeLike(l)+"%")
			line[i] = fmt.Sprintf("l LIKE $%d", len(args))
		}
		lines = fmt.Sprintf(`(SELECT count(*) FROM string_to_table(%s, E'\n') AS l WHERE %s)`, text, strings.Join(line, " OR "))
	}
	const cols = `SELECT path, size, created_at, updated_at, content FROM mcp_files WHERE `
	sql := fmt.Sprintf(`WITH f AS (
    SELECT * FROM ((%[1]s%[2]s AND grep_indexed AND %[3]s ORDER BY path LIMIT $5)
    UNION ALL (%[1]s%[2]s AND NOT grep_indexed AND %[3]s ORDER BY path LIMIT $5)) AS u ORDER BY path LIMIT $5
), w AS (SELECT *, sum(size) OVER (ORDER BY path) - size AS before FROM f)
SELECT path, size, created_at, updated_at, %[4]s FROM w WHERE before < $%[5]d ORDER BY path`, cols, where, cond, lines, budgetArg)
	var out []driver.LiteralFile
	err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		var f driver.LiteralFile
		var n int64
		if err := r.Scan(&f.Path, &f.SizeBytes, &f.CreatedAt, &f.UpdatedAt, &n); err != nil {
			return err
		}
		f.CreatedAt, f.UpdatedAt, f.Lines = f.CreatedAt.UTC(), f.UpdatedAt.UTC(), int(n)
		out = append(out, f)
		return nil
	})
	return out, true, err
}
