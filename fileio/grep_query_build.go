package fileio

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
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

// exactLiterals is what a pattern's lines must contain when that is all it asks: the pattern
// matches a line exactly when the line contains one of the strings (under ASCII case folding
// when fold). It is nil when the pattern asks more: anchors, word boundaries, repetition, any
// character, a string with "\n" (no line holds one), NUL (grep skips such files) or U+FEFF
// (ripgrep drops a byte order mark), an empty string (every line matches), or case folding
// that is not plain ASCII ("k" also matches the Kelvin sign) or that applies to part of the
// pattern only.
type exactLiterals struct {
	literals []string
	fold     bool
}

func exactLiteralsOf(pattern string, fixed, ignoreCase bool) *exactLiterals {
	tree, err := parsePattern(pattern, fixed, ignoreCase)
	if err != nil || countNodes(tree, maxAnalysisNodes+1) > maxAnalysisNodes {
		return nil
	}
	fold := usesFoldCase(tree)
	if !onlyLiteralText(tree, fold) {
		return nil
	}
	x := analyzer{fold: fold}.node(tree)
	if !x.known || len(x.exact) == 0 || x.query.Op != driver.QueryAll {
		return nil
	}
	for _, s := range x.exact {
		if s == "" || strings.ContainsAny(s, "\n\x00\uFEFF") || !utf8.ValidString(s) {
			return nil
		}
	}
	return &exactLiterals{literals: slices.Clone(x.exact), fold: fold}
}

// onlyLiteralText reports whether re is made of literals and small character classes only
// (with concatenation, alternation, grouping and "?"), each of which compares as the
// analysis's exact strings do: under fold, every literal folds case and every class holds
// each of its letters in both cases.
func onlyLiteralText(re *syntax.Regexp, fold bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if fold && re.Flags&syntax.FoldCase == 0 {
			for _, r := range re.Rune {
				if unicode.SimpleFold(r) != r {
					return false
				}
			}
		}
	case syntax.OpCharClass:
		if fold && !foldClosed(re.Rune) {
			return false
		}
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate, syntax.OpQuest, syntax.OpEmptyMatch:
	default:
		return false
	}
	for _, sub := range re.Sub {
		if !onlyLiteralText(sub, fold) {
			return false
		}
	}
	return true
}

// foldClosed reports whether a class (sorted [lo, hi] pairs) of at most maxClassExpand
// characters holds the ASCII case partner of each of its characters, and no character whose
// case folding leaves ASCII.
func foldClosed(ranges []rune) bool {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		if n += int(ranges[i+1]-ranges[i]) + 1; n > maxClassExpand {
			return false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if !asciiFoldable(r) || !in(unicode.SimpleFold(r)) {
				return false
			}
		}
	}
	return true
}
