package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/jackc/pgx/v5"
)

var (
	_ fileio.ContentSearcher = (*readTx)(nil)
	_ fileio.MultiGetter     = (*readTx)(nil)
)

// grepText is the indexed expression of migration 0007.
const grepText = "mcp_files_grep_text(content)"

// GrepCandidates implements fileio.ContentSearcher with the pg_trgm index of migration 0007:
// the literals of c.Query become LIKE (ILIKE for ignore-case literals) conditions on the
// file's text, a sequence of literals one LIKE '%a%b%', which the GIN index answers and PostgreSQL rechecks exactly. Literals without
// three ASCII letters or digits in a row give pg_trgm no trigram to look up, so they are
// left out (a weaker condition, never a wrong one); a query with nothing left lists the files
// in path order. The statements run under SET LOCAL statement_timeout up to c.Deadline.
func (tx *readTx) GrepCandidates(ctx context.Context, c fileio.GrepCandidates) ([]fileio.FileInfo, error) {
	if err := tx.statementDeadline(ctx, c.Deadline); err != nil {
		return nil, err
	}
	sc := tx.x.scope
	args := []any{sc.Tenant, sc.Project, c.After, c.Prefix}
	var sql strings.Builder
	sql.WriteString(`SELECT path, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND starts_with(path, $4)`)
	if end, bounded := prefixEnd(c.Prefix); bounded {
		args = append(args, end)
		fmt.Fprintf(&sql, " AND path < $%d", len(args))
	}
	if cond := likeCondition(indexable(c.Query), &args); cond != "" {
		sql.WriteString(" AND " + cond)
	}
	args = append(args, int64(max(c.Limit, 1)))
	fmt.Fprintf(&sql, " ORDER BY path LIMIT $%d", len(args))
	var out []fileio.FileInfo
	err := tx.x.query(ctx, opRead, sql.String(), args, func(r pgx.Rows) error {
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		out = append(out, fi)
		return nil
	})
	return out, err
}

// statementDeadline bounds the transaction's statements by deadline (SET LOCAL
// statement_timeout; a statement past it fails with TIMEOUT), and makes PostgreSQL plan each
// statement for its values (plan_cache_mode): a generic plan, which cannot see how selective
// a LIKE pattern is, would walk the path index and test every file of the project.
func (tx *readTx) statementDeadline(ctx context.Context, deadline time.Time) error {
	if deadline.IsZero() { // keep the server's statement_timeout
		return tx.x.query(ctx, opRead, "SELECT set_config('plan_cache_mode', 'force_custom_plan', true)", nil,
			func(pgx.Rows) error { return nil })
	}
	timeout := strconv.FormatInt(max(time.Until(deadline).Milliseconds(), 1), 10)
	return tx.x.query(ctx, opRead, "SELECT set_config('statement_timeout', $1, true), set_config('plan_cache_mode', 'force_custom_plan', true)",
		[]any{timeout}, func(pgx.Rows) error { return nil })
}

// indexable returns q without the literals the trigram index cannot look up.
func indexable(q fileio.ContentQuery) fileio.ContentQuery {
	switch q.Op {
	case fileio.QueryLiteral:
		if !hasTrigram(q.Literal) {
			return fileio.ContentQuery{Op: fileio.QueryAll}
		}
		return q
	case fileio.QuerySequence:
		// One LIKE "%a%b%" holds all of it; it needs a trigram in one of its literals.
		for _, s := range q.Sub {
			if hasTrigram(s.Literal) {
				return q
			}
		}
		return fileio.ContentQuery{Op: fileio.QueryAll}
	case fileio.QueryAnd, fileio.QueryOr:
		subs := make([]fileio.ContentQuery, 0, len(q.Sub))
		for _, s := range q.Sub {
			s = indexable(s)
			switch {
			case q.Op == fileio.QueryAnd && s.Op == fileio.QueryAll:
				continue
			case q.Op == fileio.QueryOr && s.Op == fileio.QueryAll:
				return s
			}
			subs = append(subs, s)
		}
		switch len(subs) {
		case 0:
			return fileio.ContentQuery{Op: fileio.QueryAll}
		case 1:
			return subs[0]
		}
		return fileio.ContentQuery{Op: q.Op, Sub: subs}
	}
	return q
}

// hasTrigram reports whether s holds three ASCII letters or digits in a row: a trigram pg_trgm
// extracts under every locale.
func hasTrigram(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			run++
			if run >= 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// likeCondition renders q as SQL over grepText, appending the patterns to args; "" for
// QueryAll. QueryNone is FALSE.
func likeCondition(q fileio.ContentQuery, args *[]any) string {
	switch q.Op {
	case fileio.QueryAll:
		return ""
	case fileio.QueryNone:
		return "FALSE"
	case fileio.QueryLiteral, fileio.QuerySequence:
		// A sequence is one pattern, so that PostgreSQL reads each candidate's text once.
		lits := q.Sub
		if q.Op == fileio.QueryLiteral {
			lits = []fileio.ContentQuery{q}
		}
		pattern := "%"
		for _, l := range lits {
			pattern += escapeLike(l.Literal) + "%"
		}
		*args = append(*args, pattern)
		op := "LIKE"
		if lits[0].IgnoreCase {
			op = "ILIKE"
		}
		return fmt.Sprintf("%s %s $%d", grepText, op, len(*args))
	}
	parts := make([]string, len(q.Sub))
	for i, s := range q.Sub {
		parts[i] = likeCondition(s, args)
	}
	join := " AND "
	if q.Op == fileio.QueryOr {
		join = " OR "
	}
	return "(" + strings.Join(parts, join) + ")"
}

// escapeLike escapes LIKE's wildcards and its escape character (backslash).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

const sqlGetMany = `SELECT path, content, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($3)`

// GetMany implements fileio.MultiGetter in one statement.
func (tx *readTx) GetMany(ctx context.Context, paths []string) ([]fileio.File, error) {
	byPath := make(map[string]fileio.File, len(paths))
	sc := tx.x.scope
	err := tx.x.query(ctx, opRead, sqlGetMany, []any{sc.Tenant, sc.Project, paths}, func(r pgx.Rows) error {
		var f fileio.File
		if err := r.Scan(&f.Path, &f.Content, &f.SizeBytes, &f.CreatedAt, &f.UpdatedAt); err != nil {
			return err
		}
		f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
		if f.Content == nil {
			f.Content = []byte{}
		}
		byPath[f.Path] = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]fileio.File, 0, len(byPath))
	for _, p := range paths {
		if f, ok := byPath[p]; ok {
			out = append(out, f)
			delete(byPath, p)
		}
	}
	return out, nil
}
