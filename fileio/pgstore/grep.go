package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/memgrep"
	"github.com/jackc/pgx/v5"
)

var (
	_ driver.ContentSearcher = (*readTx)(nil)
	_ driver.MultiGetter     = (*readTx)(nil)
)

// grepText is a file's text (NULL when it holds a NUL byte), and grepFold the same with the
// ASCII letters lower-cased: the expression of the trigram index (migration 0009).
const (
	grepText = "mcp_files_grep_text(content)"
	grepFold = "mcp_files_grep_fold(content)"
)

// GrepCandidates implements driver.ContentSearcher with the pg_trgm index of migration 0008,
// which holds the files the background indexer has reached (grep_indexed). The literals of
// c.Query become LIKE conditions on the file's ASCII-folded text (grepFold), a sequence of
// literals one LIKE '%a%b%', which the GIN index answers among indexed files and PostgreSQL
// rechecks exactly; a case-sensitive literal also has to occur in the text as it is. LIKE
// compares characters exactly and the folding is ASCII's alone, so the condition is the one
// driver.ContentQuery.Matches checks, under every database collation (no ILIKE, whose
// lower-casing follows the collation: tr-TR lower-cases "I" to a dotless "ı"). Every unindexed
// file below the prefix is a candidate too (the Service reads it and matches it itself), so
// the answer does not depend on how far the indexer has come. Literals without three ASCII
// letters or digits in a row give pg_trgm no trigram to look up, so they are left out (a
// weaker condition, never a wrong one); a literal with a NUL byte (which a text parameter
// cannot hold) occurs only in files with a NUL byte, which have no text in the index and which
// grep skips, so it is a condition no file meets (QueryNone). A query with nothing left lists
// the files in path order. The statements run
// under SET LOCAL statement_timeout up to c.Deadline.
//
// With the grep cache on (Options.GrepCacheBytes) and the files below c.Prefix within its
// budget, a read transaction answers from the contents instead (grep_cache.go): the
// candidates are the files whose contents hold the literals, as memstore's, and GetMany then
// answers from the same contents.
func (tx *readTx) GrepCandidates(ctx context.Context, c driver.GrepCandidates) ([]driver.FileInfo, error) {
	if err := tx.statementDeadline(ctx, c.Deadline); err != nil {
		return nil, err
	}
	if v, err := tx.grepView(ctx, c.Prefix, c.After); v != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return memgrep.Candidates(ctx, c, tx.files(v, c.Deadline))
	}
	where, args := tx.grepWhere(c.Prefix, c.After, c.Limit)
	const cols = `SELECT path, size, created_at, updated_at FROM mcp_files WHERE `
	var sql string
	switch cond := likeCondition(indexable(c.Query), &args); cond {
	case "", "FALSE": // every file, or none: the index has nothing to say
		if cond != "" {
			where += " AND " + cond
		}
		sql = cols + where + ` ORDER BY path LIMIT $5`
	default:
		// The indexed files that the index finds, and the unindexed ones (the partial index
		// idx_mcp_files_grep_pending): two disjoint sets, each in path order.
		sql = `SELECT * FROM ((` + cols + where + ` AND grep_indexed AND ` + cond + ` ORDER BY path LIMIT $5)
UNION ALL (` + cols + where + ` AND NOT grep_indexed ORDER BY path LIMIT $5)) AS c ORDER BY path LIMIT $5`
	}
	var out []driver.FileInfo
	err := tx.x.query(ctx, opRead, sql, args, func(r pgx.Rows) error {
		fi, err := scanFileInfo(r)
		if err != nil {
			return err
		}
		out = append(out, fi)
		return nil
	})
	return out, err
}

// grepWhere is the condition on the active files of the transaction's project whose path
// starts with prefix and sorts after after, with its arguments: $5 is limit.
func (tx *readTx) grepWhere(prefix, after string, limit int) (string, []any) {
	sc := tx.x.scope
	args := []any{sc.Tenant, sc.Project, after, prefix, int64(max(limit, 1))}
	where := `apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path > $3 AND path >= $4 AND starts_with(path, $4)`
	if end, bounded := prefixEnd(prefix); bounded {
		args = append(args, end)
		where += fmt.Sprintf(" AND path < $%d", len(args))
	}
	return where, args
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

// indexable returns q as a condition that the trigram index can look up: without the
// literals it has no trigram for (QueryAll, any file), and with the literals that hold a NUL
// byte as QueryNone (only a file with a NUL byte holds one, and grep skips such files).
func indexable(q driver.ContentQuery) driver.ContentQuery {
	all, none := driver.ContentQuery{Op: driver.QueryAll}, driver.ContentQuery{Op: driver.QueryNone}
	switch q.Op {
	case driver.QueryLiteral:
		switch {
		case strings.IndexByte(q.Literal, 0) >= 0:
			return none
		case !hasTrigram(q.Literal):
			return all
		}
		return q
	case driver.QuerySequence:
		// One LIKE "%a%b%" holds all of it; it needs a trigram in one of its literals.
		trigram := false
		for _, s := range q.Sub {
			if strings.IndexByte(s.Literal, 0) >= 0 {
				return none
			}
			trigram = trigram || hasTrigram(s.Literal)
		}
		if !trigram {
			return all
		}
		return q
	case driver.QueryAnd, driver.QueryOr:
		// A neutral part (QueryAll in a conjunction, QueryNone in a disjunction) drops out; an
		// absorbing one (QueryNone, QueryAll) decides the whole.
		neutral, absorbing := all, none
		if q.Op == driver.QueryOr {
			neutral, absorbing = none, all
		}
		subs := make([]driver.ContentQuery, 0, len(q.Sub))
		for _, s := range q.Sub {
			switch s = indexable(s); s.Op {
			case neutral.Op:
				continue
			case absorbing.Op:
				return absorbing
			}
			subs = append(subs, s)
		}
		switch len(subs) {
		case 0:
			return neutral
		case 1:
			return subs[0]
		}
		return driver.ContentQuery{Op: q.Op, Sub: subs}
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

// likeCondition renders q as SQL over grepFold (which the index serves) and grepText,
// appending the patterns to args; "" for QueryAll. QueryNone is FALSE.
func likeCondition(q driver.ContentQuery, args *[]any) string {
	switch q.Op {
	case driver.QueryAll:
		return ""
	case driver.QueryNone:
		return "FALSE"
	case driver.QueryLiteral, driver.QuerySequence:
		// A sequence is one pattern, so that PostgreSQL reads each candidate's text once.
		lits := q.Sub
		if q.Op == driver.QueryLiteral {
			lits = []driver.ContentQuery{q}
		}
		pattern := "%"
		for _, l := range lits {
			pattern += escapeLike(l.Literal) + "%"
		}
		if lits[0].IgnoreCase { // already lower case
			*args = append(*args, pattern)
			return fmt.Sprintf("%s LIKE $%d", grepFold, len(*args))
		}
		*args = append(*args, asciiLower(pattern), pattern)
		return fmt.Sprintf("(%s LIKE $%d AND %s LIKE $%d)", grepFold, len(*args)-1, grepText, len(*args))
	}
	if cond, ok := alternationCondition(q, args); ok {
		return cond
	}
	parts := make([]string, len(q.Sub))
	for i, s := range q.Sub {
		parts[i] = likeCondition(s, args)
	}
	join := " AND "
	if q.Op == driver.QueryOr {
		join = " OR "
	}
	return "(" + strings.Join(parts, join) + ")"
}

// maxRegexAlternatives is the most literals an alternation is looked up with one regular
// expression: pg_trgm extracts the trigrams of a larger one less reliably.
const maxRegexAlternatives = 8

// alternationCondition renders a disjunction of two to maxRegexAlternatives literals of the
// same case rule as one regular expression over grepFold, "(a|b)" with every character that is
// not a letter or digit escaped, which the trigram index serves as it serves LIKE: PostgreSQL
// computes the folded text of each candidate once, where a LIKE per literal computes it once
// per literal (about twice the time for two). A case-sensitive disjunction adds the exact
// condition on the text (LIKE per literal), which runs only on the rows the first one keeps.
func alternationCondition(q driver.ContentQuery, args *[]any) (string, bool) {
	if q.Op != driver.QueryOr || len(q.Sub) > maxRegexAlternatives {
		return "", false
	}
	alts := make([]string, len(q.Sub))
	for i, l := range q.Sub {
		if l.Op != driver.QueryLiteral || l.IgnoreCase != q.Sub[0].IgnoreCase {
			return "", false
		}
		alts[i] = escapeRegex(asciiLower(l.Literal))
	}
	*args = append(*args, "("+strings.Join(alts, "|")+")")
	cond := fmt.Sprintf("%s ~ $%d", grepFold, len(*args))
	if q.Sub[0].IgnoreCase {
		return cond, true
	}
	exact := make([]string, len(q.Sub))
	for i, l := range q.Sub {
		*args = append(*args, "%"+escapeLike(l.Literal)+"%")
		exact[i] = fmt.Sprintf("%s LIKE $%d", grepText, len(*args))
	}
	return "(" + cond + " AND (" + strings.Join(exact, " OR ") + "))", true
}

// escapeRegex escapes s for a PostgreSQL regular expression (ARE) that matches it literally:
// a backslash before every ASCII character that is not a letter or digit (which makes it
// stand for itself); letters, digits and non-ASCII characters stand for themselves.
func escapeRegex(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// asciiLower is s with A-Z lower-cased, as lower(… COLLATE "C") in mcp_files_grep_fold does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// escapeLike escapes LIKE's wildcards and its escape character (backslash).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

const sqlGetMany = `SELECT path, content, size, created_at, updated_at FROM mcp_files
WHERE apikey_hash = $1 AND project = $2 AND deleted = FALSE AND path = ANY($3)`

// GetMany implements driver.MultiGetter in one statement.
func (tx *readTx) GetMany(ctx context.Context, paths []string) ([]driver.File, error) {
	if out, ok, err := tx.getCached(ctx, paths); ok {
		return out, err
	}
	byPath := make(map[string]driver.File, len(paths))
	sc := tx.x.scope
	err := tx.x.query(ctx, opRead, sqlGetMany, []any{sc.Tenant, sc.Project, paths}, func(r pgx.Rows) error {
		var f driver.File
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
	out := make([]driver.File, 0, len(byPath))
	for _, p := range paths {
		if f, ok := byPath[p]; ok {
			out = append(out, f)
			delete(byPath, p)
		}
	}
	return out, nil
}
