package fileio

import (
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// shortenLiterals returns q with every literal cut to MaxQueryLiteralBytes.
func shortenLiterals(q driver.ContentQuery) driver.ContentQuery {
	if q.Op == driver.QueryLiteral && len(q.Literal) > driver.MaxQueryLiteralBytes {
		cut := driver.MaxQueryLiteralBytes
		for cut > 0 && !utf8.RuneStart(q.Literal[cut]) {
			cut--
		}
		q.Literal = q.Literal[:cut]
		return q
	}
	if len(q.Sub) > 0 {
		subs := make([]driver.ContentQuery, len(q.Sub))
		for i, s := range q.Sub {
			subs[i] = shortenLiterals(s)
		}
		q.Sub = subs
	}
	return q
}

// querySequence is the query of a concatenation whose parts need a and then b: a sequence when
// both are literals or sequences of the same case rule, else their conjunction.
func querySequence(a, b driver.ContentQuery) driver.ContentQuery {
	literals := func(q driver.ContentQuery) ([]driver.ContentQuery, bool) {
		switch q.Op {
		case driver.QueryLiteral:
			return []driver.ContentQuery{q}, true
		case driver.QuerySequence:
			return q.Sub, true
		}
		return nil, false
	}
	la, okA := literals(a)
	lb, okB := literals(b)
	if !okA || !okB || la[0].IgnoreCase != lb[0].IgnoreCase {
		return queryAnd(a, b)
	}
	return driver.ContentQuery{Op: driver.QuerySequence, Sub: append(append([]driver.ContentQuery{}, la...), lb...)}
}

func queryAnd(a, b driver.ContentQuery) driver.ContentQuery {
	switch {
	case a.Op == driver.QueryNone || b.Op == driver.QueryNone:
		return driver.ContentQuery{Op: driver.QueryNone}
	case a.Op == driver.QueryAll:
		return b
	case b.Op == driver.QueryAll:
		return a
	}
	var subs []driver.ContentQuery
	for _, x := range []driver.ContentQuery{a, b} {
		if x.Op == driver.QueryAnd {
			subs = append(subs, x.Sub...)
		} else {
			subs = append(subs, x)
		}
	}
	return joinQueries(driver.QueryAnd, subs)
}

func queryOr(a, b driver.ContentQuery) driver.ContentQuery {
	switch {
	case a.Op == driver.QueryAll || b.Op == driver.QueryAll:
		return driver.ContentQuery{Op: driver.QueryAll}
	case a.Op == driver.QueryNone:
		return b
	case b.Op == driver.QueryNone:
		return a
	}
	var subs []driver.ContentQuery
	for _, x := range []driver.ContentQuery{a, b} {
		if x.Op == driver.QueryOr {
			subs = append(subs, x.Sub...)
		} else {
			subs = append(subs, x)
		}
	}
	return joinQueries(driver.QueryOr, subs)
}

// joinQueries is the op node over subs without repeated literals, or the only survivor.
func joinQueries(op driver.ContentQueryOp, subs []driver.ContentQuery) driver.ContentQuery {
	subs = dedupQueries(subs)
	if len(subs) == 1 {
		return subs[0]
	}
	return driver.ContentQuery{Op: op, Sub: subs}
}

// dedupQueries drops repeated literal nodes; a single survivor stands for the whole list.
func dedupQueries(subs []driver.ContentQuery) []driver.ContentQuery {
	type literalKey struct {
		literal    string
		ignoreCase bool
	}
	seen := map[literalKey]bool{}
	out := subs[:0]
	for _, s := range subs {
		if s.Op == driver.QueryLiteral {
			key := literalKey{s.Literal, s.IgnoreCase}
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		out = append(out, s)
	}
	return out
}
