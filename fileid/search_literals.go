package fileid

import (
	"bytes"
	"regexp/syntax"
	"strings"
)

// maxPrefilterLiterals bounds the literals of an alternation prefilter: each one costs a pass
// of bytes.Index over the file.
const maxPrefilterLiterals = 8

// foldLiteral is a literal a match contains, case-folded when fold is set.
type foldLiteral struct {
	text string
	fold bool
}

// requiredLiterals returns at most limit literals of which every match of re contains at
// least one, for expressions such as `error|warning` or `\b(TODO|FIXME)\b:` that have no
// single required literal; nil when there is no such set. Among the choices of a concatenation
// it keeps the set whose shortest literal is longest (then the smaller set, then the first).
// With limit 1 it is the longest literal every match contains.
func requiredLiterals(re *syntax.Regexp, limit int) []foldLiteral {
	switch re.Op {
	case syntax.OpLiteral:
		return []foldLiteral{{string(re.Rune), re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0], limit)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0], limit)
		}
	case syntax.OpConcat:
		var best []foldLiteral
		for _, sub := range re.Sub {
			if lits := requiredLiterals(sub, limit); betterLiterals(lits, best) {
				best = lits
			}
		}
		return best
	case syntax.OpAlternate:
		var all []foldLiteral
		for _, sub := range re.Sub {
			lits := requiredLiterals(sub, limit)
			if lits == nil || len(all)+len(lits) > limit {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	}
	return nil
}

// betterLiterals reports whether a is the more selective prefilter: a longer shortest literal,
// then fewer literals.
func betterLiterals(a, b []foldLiteral) bool {
	if a == nil {
		return false
	}
	if b == nil {
		return true
	}
	if sa, sb := shortestLiteral(a), shortestLiteral(b); sa != sb {
		return sa > sb
	}
	return len(a) < len(b)
}

func shortestLiteral(lits []foldLiteral) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.text) < n {
			n = len(l.text)
		}
	}
	return n
}

// literalSet is the byte form of requiredLiterals for the search: the literals as they are,
// or, when any of them is case-folded, all of them lower-cased to be found in an ASCII
// lower-cased copy of the file (a literal that is found as it is is also found there, so the
// set stays a necessary condition; the expression decides).
type literalSet struct {
	lits  [][]byte
	fold  bool
	folds []*foldFinder // with fold: finds each literal
}

// newLiteralSet returns the set for lits, or nil when byte search could miss a match: a
// literal holds '\n' or U+FFFD (which the regexp package matches against invalid UTF-8), or a
// case-folded literal is not ASCII.
func newLiteralSet(lits []foldLiteral) *literalSet {
	s := &literalSet{}
	for _, l := range lits {
		if strings.ContainsAny(l.text, "\n\uFFFD") || (l.fold && !isASCII(l.text)) {
			return nil
		}
		s.fold = s.fold || l.fold
	}
	for _, l := range lits {
		b := []byte(l.text)
		if s.fold {
			b = lowerASCII(nil, b)
		}
		s.lits = append(s.lits, b)
		if s.fold {
			s.folds = append(s.folds, newFoldFinder(b))
		}
	}
	return s
}

// literalSetLines runs the expression only on lines that contain one of the literals.
func (m *matcher) literalSetLines(content []byte, from, max int, orig []byte) []hit {
	if !m.pres.fold {
		return candidateLines(content, content, from, max, m.re, m.pres.nextIn(content), orig)
	}
	for _, lit := range m.pres.lits {
		if foldHazard(lit, content[from:]) {
			return m.byteFilteredLines(content, from, max, orig)
		}
	}
	return candidateLines(content, content, from, max, m.re, m.pres.nextFoldIn(content), orig)
}

// nextFoldIn is nextIn for a case-folded set: the first occurrence of any literal, ASCII
// case-insensitively, at or after pos.
func (s *literalSet) nextFoldIn(haystack []byte) func(pos int) int {
	finds := make([]func(int) int, len(s.folds))
	for i, f := range s.folds {
		finds[i] = f.nextIn(haystack)
	}
	return earliest(len(finds), func(i, pos int) int { return finds[i](pos) })
}

// nextIn returns the candidate function of candidateLines for haystack: the offset of the
// first occurrence of any literal at or after pos. Each literal's next occurrence is kept
// and searched for again only once the scan has passed it (see earliest).
func (s *literalSet) nextIn(haystack []byte) func(pos int) int {
	return earliest(len(s.lits), func(i, pos int) int { return indexFrom(haystack, pos, s.lits[i]) })
}

// indexFrom returns the offset of the first lit in b[from:], or -1.
func indexFrom(b []byte, from int, lit []byte) int {
	if from >= len(b) {
		return -1
	}
	if i := bytes.Index(b[from:], lit); i >= 0 {
		return from + i
	}
	return -1
}
