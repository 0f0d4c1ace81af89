package fileio

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"

	"github.com/agentfiles/agentfiles"
)

// MaxGrepPatternBytes is the longest pattern Service.Grep accepts.
const MaxGrepPatternBytes = 4096

// lineMatcher finds the lines of a file that match a pattern, with ripgrep's line semantics:
// a line is the text between two "\n" (a "\r" before the "\n" is part of the line, as rg has it
// without --crlf), the last line needs no "\n", and a file that ends with "\n" has no empty
// line after it. It is immutable and safe for concurrent use.
type lineMatcher struct {
	// re matches within one line only: the syntax tree was rewritten so that no part of it
	// matches "\n", and "^"/"$" and \A/\z match at line boundaries. One search over a whole
	// file then finds exactly the lines that match on their own.
	re    *regexp.Regexp
	query ContentQuery
	// anchor is a literal every matching line contains, found with a fast substring search
	// before the expression runs on the line; anchor.Op is QueryAll when there is none.
	anchor ContentQuery
}

// compileLineMatcher compiles pattern as Go RE2 syntax (a literal with fixed) with ignoreCase
// as rg -i. A bad pattern is INVALID_PATTERN naming what is wrong.
func compileLineMatcher(pattern string, fixed, ignoreCase bool) (*lineMatcher, error) {
	if len(pattern) > MaxGrepPatternBytes {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"pattern is %d bytes; the maximum is %d: search for a shorter distinctive part", len(pattern), MaxGrepPatternBytes), "pattern")
	}
	src := pattern
	if fixed {
		src = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(src, flags)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidPattern, "pattern is not a valid Go RE2 regular expression: "+
			err.Error()+"; escape special characters with \\ or set fixed_strings to search for the text as is", "pattern", err)
	}
	query := contentQueryOf(tree)
	re, err := regexp.Compile(withinLines(tree).String())
	if err != nil { // the rewritten tree prints as valid syntax; this is a bug, not the caller's
		return nil, agentfiles.WrapError(agentfiles.CodeInternal, "the pattern could not be prepared for line matching; report it", "pattern", err)
	}
	m := &lineMatcher{re: re, query: query, anchor: ContentQuery{Op: QueryAll}}
	if lits := anchorCandidates(query); len(lits) > 0 {
		m.anchor = slices.MaxFunc(lits, func(a, b ContentQuery) int { return len(a.Literal) - len(b.Literal) })
	}
	return m, nil
}

// anchorCandidates are the literals every matching line must contain: q itself, the literals
// of a sequence, or those of the conjuncts of q.
func anchorCandidates(q ContentQuery) []ContentQuery {
	switch q.Op {
	case QueryLiteral:
		return []ContentQuery{q}
	case QuerySequence:
		return q.Sub
	case QueryAnd:
		var out []ContentQuery
		for _, s := range q.Sub {
			switch s.Op {
			case QueryLiteral:
				out = append(out, s)
			case QuerySequence:
				out = append(out, s.Sub...)
			}
		}
		return out
	}
	return nil
}

// withinLines rewrites re (in place) so that it never matches "\n" and its text anchors are
// line anchors: what rg does to an expression before it searches a file line by line.
func withinLines(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			*re = syntax.Regexp{Op: syntax.OpNoMatch}
		}
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			*re = syntax.Regexp{Op: syntax.OpNoMatch}
		}
	}
	for _, sub := range re.Sub {
		withinLines(sub)
	}
	return re
}

// withoutNewline removes '\n' from a class given as sorted [lo, hi] pairs.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

// binary reports whether content holds a NUL byte: such files are skipped, as rg skips them.
func binary(content []byte) bool { return bytes.IndexByte(content, 0) >= 0 }

// matchingLines calls fn with the [start, end) byte range (without the "\n") of each matching
// line of content, in order, until fn returns false. The caller skips binary files.
func (m *lineMatcher) matchingLines(content []byte, fn func(start, end int) bool) {
	if m.anchor.Op == QueryLiteral {
		m.anchoredLines(content, fn)
		return
	}
	for pos := 0; pos <= len(content); {
		loc := m.re.FindIndex(content[pos:])
		if loc == nil {
			return
		}
		at := pos + loc[0]
		if at == len(content) && (at == 0 || content[at-1] == '\n') {
			return // the empty "line" after a final newline is no line
		}
		start, end := lineAround(content, at)
		if !fn(start, end) {
			return
		}
		pos = end + 1
	}
}

// anchoredLines is matchingLines for a matcher with an anchor literal: only the lines that
// contain it are given to the expression.
func (m *lineMatcher) anchoredLines(content []byte, fn func(start, end int) bool) {
	lit := m.anchor.Literal
	for pos := 0; pos < len(content); {
		var k int
		if m.anchor.IgnoreCase {
			k = indexASCIIFold(content[pos:], lit)
		} else {
			k = bytes.Index(content[pos:], []byte(lit))
		}
		if k < 0 {
			return
		}
		start, end := lineAround(content, pos+k)
		if m.re.Match(content[start:end]) && !fn(start, end) {
			return
		}
		pos = end + 1
	}
}

// lineAround returns the line holding byte offset at: [start, end) without its "\n".
func lineAround(content []byte, at int) (int, int) {
	start := bytes.LastIndexByte(content[:at], '\n') + 1
	end := bytes.IndexByte(content[at:], '\n')
	if end < 0 {
		return start, len(content)
	}
	return start, at + end
}
