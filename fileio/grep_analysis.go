package fileio

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio/driver"
)

// The analysis turns a regular expression into a ContentQuery, after the idea of Russ Cox's
// "Regular Expression Matching with a Trigram Index": walk the syntax tree and compute, for
// each node, either the exact set of strings it can match (while that set is small) or a
// query that every string it matches satisfies. A concatenation multiplies exact sets; when a
// set grows too large, or a node can match unboundedly many strings (".", "x*"), what is known
// becomes a query of required literals and the exact set is forgotten. Every step only loses
// information, never adds a requirement, so the query holds for every file with a match.

// Bounds that keep the analysis cheap for any pattern.
const (
	maxExactStrings  = 64 // the largest exact set kept
	maxClassExpand   = 16 // a character class with more characters is "any character"
	maxExactLiteral  = 256
	maxAnalysisNodes = 10000 // larger syntax trees are analysed as QueryAll
)

// analysis is what is known about the strings one syntax node matches.
type analysis struct {
	exact []string            // every string the node can match, when known (nil: unknown)
	known bool                // exact is meaningful (an empty exact set: the node never matches)
	query driver.ContentQuery // holds for every string the node matches, beyond exact
}

// contentQueryOf returns the ContentQuery for re, a parsed (not yet compiled) expression. fold
// says whether any part of re ignores case; then every literal of the query ignores case.
func contentQueryOf(re *syntax.Regexp) driver.ContentQuery {
	if countNodes(re, maxAnalysisNodes+1) > maxAnalysisNodes {
		return driver.ContentQuery{Op: driver.QueryAll}
	}
	a := analyzer{fold: usesFoldCase(re)}
	return a.toQuery(a.node(re))
}

type analyzer struct {
	fold bool
}

func (a analyzer) node(re *syntax.Regexp) analysis {
	switch re.Op {
	case syntax.OpNoMatch:
		return analysis{known: true, exact: []string{}}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly("")
	case syntax.OpLiteral:
		return a.literal(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return a.class(re.Rune)
	case syntax.OpCapture:
		return a.node(re.Sub[0])
	case syntax.OpQuest:
		sub := a.node(re.Sub[0])
		if sub.known {
			return a.union(sub, exactly(""))
		}
		return unknown()
	case syntax.OpPlus:
		return analysis{query: a.toQuery(a.node(re.Sub[0]))}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return unknown()
		}
		return analysis{query: a.toQuery(a.node(re.Sub[0]))}
	case syntax.OpConcat:
		acc := exactly("")
		for _, sub := range re.Sub {
			acc = a.concat(acc, a.node(sub))
		}
		return acc
	case syntax.OpAlternate:
		acc := analysis{known: true, exact: []string{}}
		for _, sub := range re.Sub {
			acc = a.union(acc, a.node(sub))
		}
		return acc
	}
	return unknown() // OpAnyChar, OpAnyCharNotNL, OpStar and anything new
}

func exactly(s string) analysis { return analysis{known: true, exact: []string{s}} }
func unknown() analysis         { return analysis{query: driver.ContentQuery{Op: driver.QueryAll}} }

// literal analyses a run of literal runes. Under fold, a rune whose case folding leaves ASCII
// ("k" also matches the Kelvin sign, "é" matches "É") cannot be part of an ASCII-folding
// literal, so it stands for "some character" and splits the run.
func (a analyzer) literal(runes []rune, fold bool) analysis {
	acc := exactly("")
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			acc = a.concat(acc, exactly(b.String()))
			b.Reset()
		}
	}
	for _, r := range runes {
		// U+FFFD also matches each byte of invalid UTF-8, which its encoding does not find.
		if fold && !asciiFoldable(r) || r == utf8.RuneError {
			flush()
			acc = a.concat(acc, unknown())
			continue
		}
		b.WriteString(a.canon(string(r)))
	}
	flush()
	return acc
}

// class analyses a character class (a sorted list of ranges).
func (a analyzer) class(ranges []rune) analysis {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassExpand {
			return unknown()
		}
	}
	set := make([]string, 0, n)
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= utf8.RuneError && utf8.RuneError <= ranges[i+1] {
			return unknown() // U+FFFD matches invalid UTF-8 too
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			set = append(set, a.canon(string(r)))
		}
	}
	return analysis{known: true, exact: dedupStrings(set)}
}

// canon is how a string is compared in the query: lower-cased ASCII under fold.
func (a analyzer) canon(s string) string {
	if !a.fold {
		return s
	}
	return asciiLower(s)
}

// concat is the analysis of x followed by y.
func (a analyzer) concat(x, y analysis) analysis {
	if x.known && y.known && len(x.exact)*len(y.exact) <= maxExactStrings {
		out := make([]string, 0, len(x.exact)*len(y.exact))
		tooLong := false
		for _, s := range x.exact {
			for _, t := range y.exact {
				out = append(out, s+t)
				tooLong = tooLong || len(s)+len(t) > maxExactLiteral
			}
		}
		if !tooLong {
			return analysis{known: true, exact: dedupStrings(out), query: queryAnd(x.query, y.query)}
		}
	}
	return analysis{query: querySequence(a.toQuery(x), a.toQuery(y))}
}

// union is the analysis of x or y.
func (a analyzer) union(x, y analysis) analysis {
	if x.known && y.known && len(x.exact)+len(y.exact) <= maxExactStrings {
		return analysis{known: true, exact: dedupStrings(append(append([]string{}, x.exact...), y.exact...)),
			query: queryOr(x.query, y.query)}
	}
	return analysis{query: queryOr(a.toQuery(x), a.toQuery(y))}
}

// toQuery forgets the exact set of x: any of its strings must occur. A string shorter than
// MinQueryLiteralBytes (the empty one included) says nothing, so the set then says nothing.
func (a analyzer) toQuery(x analysis) driver.ContentQuery {
	if !x.known {
		return x.query
	}
	if len(x.exact) == 0 {
		return driver.ContentQuery{Op: driver.QueryNone}
	}
	or := driver.ContentQuery{Op: driver.QueryNone}
	for _, s := range x.exact {
		if len(s) < driver.MinQueryLiteralBytes {
			return x.query // x.query is what its parts required; often QueryAll
		}
		or = queryOr(or, driver.ContentQuery{Op: driver.QueryLiteral, Literal: s, IgnoreCase: a.fold})
	}
	return queryAnd(x.query, or)
}

// asciiFoldable reports whether r's case-folding orbit is r alone or an ASCII letter pair, so
// that comparing with ASCII case folding finds every string (?i)r matches.
func asciiFoldable(r rune) bool {
	f := unicode.SimpleFold(r)
	if f == r {
		return true
	}
	if r >= utf8.RuneSelf || f >= utf8.RuneSelf {
		return false
	}
	return unicode.SimpleFold(f) == r
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func dedupStrings(set []string) []string {
	seen := make(map[string]bool, len(set))
	out := set[:0]
	for _, s := range set {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// usesFoldCase reports whether any literal of re ignores case.
func usesFoldCase(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase != 0 {
		return true
	}
	for _, sub := range re.Sub {
		if usesFoldCase(sub) {
			return true
		}
	}
	return false
}

// countNodes counts the nodes of re, stopping at limit.
func countNodes(re *syntax.Regexp, limit int) int {
	n := 1
	for _, sub := range re.Sub {
		if n >= limit {
			break
		}
		n += countNodes(sub, limit-n)
	}
	return n
}

// maxRequiredSet is the most bytes a set of requiredSets holds.
const maxRequiredSet = 16

// requiredSets returns sets of ASCII bytes such that every string re matches contains a byte
// of each set, for a pattern with no literal long enough for a ContentQuery: {"-"} and
// {"0", …, "9"} for `[0-9]{4}-[0-9]{2}`. Bytes compare exactly; under case folding a letter
// stands for the set of its two cases, and one whose folding leaves ASCII ("k", "s") for
// nothing.
func requiredSets(re *syntax.Regexp) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		var out [][]byte
		for _, r := range re.Rune {
			switch f := unicode.SimpleFold(r); {
			case r >= utf8.RuneSelf:
			case re.Flags&syntax.FoldCase == 0 || f == r:
				out = append(out, []byte{byte(r)})
			case asciiFoldable(r):
				out = append(out, []byte{byte(r), byte(f)})
			}
		}
		return out
	case syntax.OpCharClass:
		var set []byte
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf || len(set)+int(re.Rune[i+1]-re.Rune[i])+1 > maxRequiredSet {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, byte(r))
			}
		}
		if len(set) == 0 {
			return nil
		}
		return [][]byte{set}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredSets(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredSets(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]byte
		for _, sub := range re.Sub {
			out = append(out, requiredSets(sub)...)
		}
		return out
	case syntax.OpAlternate:
		// A byte of the cheapest set of each alternative.
		var union []byte
		for _, sub := range re.Sub {
			sets := requiredSets(sub)
			if len(sets) == 0 {
				return nil
			}
			union = append(union, slices.MinFunc(sets, compareSetCost)...)
		}
		slices.Sort(union)
		if union = slices.Compact(union); len(union) > maxRequiredSet {
			return nil
		}
		return [][]byte{union}
	}
	return nil
}

// maxMatchBytes is the length in bytes of the longest string re matches, or -1 when that is
// unbounded or re holds an assertion (^, $, \b, \B): a match then depends on more than the
// bytes it spans, so it cannot be looked for in a window around one of them.
func maxMatchBytes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpNoMatch:
		return 0
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return len(re.Rune) * utf8.UTFMax // a folded rune may be longer than the rune
		}
		n := 0
		for _, r := range re.Rune {
			n += max(utf8.RuneLen(r), 1)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 || re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return min(len(re.Rune), 1)
		}
		return utf8.UTFMax
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchBytes(re.Sub[0])
	case syntax.OpRepeat:
		sub := maxMatchBytes(re.Sub[0])
		if re.Max < 0 || sub < 0 {
			return -1
		}
		return re.Max * sub
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxMatchBytes(sub)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	}
	return -1 // stars, pluses, assertions and anything new
}
