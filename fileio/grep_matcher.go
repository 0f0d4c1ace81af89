package fileio

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/rarebyte"
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
	query driver.ContentQuery
	// anchor is a literal every matching line contains, found with a fast substring search
	// before the expression runs on the line; anchor.Op is QueryAll when there is none.
	anchor driver.ContentQuery
	// chunk is how many bytes of lines one regexp search covers before the scan offers to
	// pause: fewer for a larger program, so that each search costs about grepChunkSteps.
	chunk int
	// maxLine is the longest line the expression is run on: longer lines would cost more than
	// grepLineSteps and are reported as skipped instead.
	maxLine int
	// literalOnly: the pattern is the anchor literal, so a line holding it matches.
	literalOnly bool
	// finders find what every matching line holds, before the expression runs on the line:
	// the anchor literal (by its rarest bytes); without one, a literal of each alternative of
	// the pattern ("(foo|bar)"), any of which; without those, a byte of a set every match
	// contains (the rarest such set: "-" in `[0-9]{4}-[0-9]{2}`).
	finders []indexer
	// window, when above 0, is the longest match of a pattern without assertions anchored on a
	// byte set: a match that holds one of the bytes lies within window bytes of it on either
	// side, so the expression runs on that neighbourhood instead of the whole line.
	window int
}

// indexer finds the first occurrence of what it looks for in s, or -1.
type indexer interface{ Index(s []byte) int }

// The cost bounds of the line matcher, in automaton steps (bytes × program instructions; Go's
// regexp runs in time linear in both). About 5 to 20 ns per step.
const (
	grepChunkSteps = 1 << 24 // between two pauses
	grepLineSteps  = 1 << 26 // on one line
)

// lineScan is what matchingLines reports to: each matching line, pauses between chunks and
// lines too costly to search.
type lineScan struct {
	// match is called with each matching line [start, end); false stops the scan.
	match func(start, end int) bool
	// pause, if set, is called when every line before offset pos was searched; false stops
	// the scan.
	pause func(pos int) bool
	// skip, if set, is called with each line [start, end) that was not searched because the
	// expression would cost more than grepLineSteps on it.
	skip func(start, end int)
}

// parsePattern parses a grep pattern as Go RE2 syntax (quoted when fixed), folding case as
// rg -i does when ignoreCase.
func parsePattern(pattern string, fixed, ignoreCase bool) (*syntax.Regexp, error) {
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := syntax.Perl
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	return syntax.Parse(pattern, flags)
}

// compileLineMatcher compiles pattern as Go RE2 syntax (a literal with fixed) with ignoreCase
// as rg -i. A bad pattern is INVALID_PATTERN naming what is wrong.
func compileLineMatcher(pattern string, fixed, ignoreCase bool) (*lineMatcher, error) {
	if len(pattern) > MaxGrepPatternBytes {
		return nil, agentfiles.NewError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"pattern is %d bytes; the maximum is %d: search for a shorter distinctive part", len(pattern), MaxGrepPatternBytes), "pattern")
	}
	tree, err := parsePattern(pattern, fixed, ignoreCase)
	if err != nil {
		return nil, agentfiles.WrapError(agentfiles.CodeInvalidPattern, "pattern is not a valid Go RE2 regular expression: "+
			err.Error()+"; escape special characters with \\ or set fixed_strings to search for the text as is", "pattern", err)
	}
	query := contentQueryOf(tree)
	var literal string // the whole pattern when it is one literal
	if tree.Op == syntax.OpLiteral {
		literal = string(tree.Rune)
	}
	re, err := regexp.Compile(withinLines(tree).String())
	if err != nil { // the rewritten tree prints as valid syntax; this is a bug, not the caller's
		return nil, agentfiles.WrapError(agentfiles.CodeInternal, "the pattern could not be prepared for line matching; report it", "pattern", err)
	}
	insts := 1
	if prog, err := syntax.Compile(withinLines(tree).Simplify()); err == nil {
		insts = max(1, len(prog.Inst))
	}
	m := &lineMatcher{re: re, query: query, anchor: driver.ContentQuery{Op: driver.QueryAll},
		chunk: min(max(grepChunkSteps/insts, 4<<10), 1<<20), maxLine: grepLineSteps / insts}
	if lits := anchorCandidates(query); len(lits) > 0 {
		m.anchor = slices.MaxFunc(lits, func(a, b driver.ContentQuery) int { return len(a.Literal) - len(b.Literal) })
	}
	// The anchor is the whole pattern when the analysis kept the literal in one piece: finding
	// it is matching, and the expression need not run (on lines of any length).
	m.literalOnly = literal != "" && !strings.Contains(literal, "\n") &&
		m.anchor.Op == driver.QueryLiteral && len(m.anchor.Literal) == len(literal)
	m.query = shortenLiterals(query) // the anchor keeps the whole literal
	switch {
	case m.anchor.Op == driver.QueryLiteral:
		m.finders = []indexer{rarebyte.New(m.anchor.Literal, m.anchor.IgnoreCase)}
	case query.Op == driver.QueryOr:
		m.finders = alternativeFinders(query)
	}
	if len(m.finders) == 0 {
		m.anchorSet(tree)
	}
	return m, nil
}

// The bounds of a byte-set anchor: its bytes together at most as frequent in typical text as
// one byte of rank windowSetRank, the space (a window around each hit costs a few times what
// the expression costs per byte of a line, so even a set as frequent as the space gains), or
// lineSetRank (each hit costs a line), and a window of at most maxWindowBytes.
const (
	windowSetRank  = 255
	lineSetRank    = 224
	maxWindowBytes = 256
)

// anchorSet anchors a pattern without literals on the cheapest set of bytes every match of
// tree (rewritten within lines) holds one of, if that is rare enough to pay.
func (m *lineMatcher) anchorSet(tree *syntax.Regexp) {
	sets := requiredSets(tree)
	if len(sets) == 0 {
		return
	}
	set := slices.MinFunc(sets, compareSetCost)
	n := maxMatchBytes(tree)
	switch {
	case n > 0 && n <= maxWindowBytes && setCost(set) <= byteFrequency(windowSetRank):
		m.window = n
	case setCost(set) > byteFrequency(lineSetRank):
		return
	}
	m.finders = []indexer{newByteSet(set)}
}

// setCost is how often a byte of set occurs in typical text, relative to the space.
func setCost(set []byte) float64 {
	var sum float64
	for _, b := range set {
		sum += byteFrequency(rarebyte.Rank(b))
	}
	return sum
}

// byteFrequency undoes the logarithmic scale of rarebyte.Rank: 1 for the space, 10^-9 for a
// rank of 0.
func byteFrequency(rank int) float64 { return math.Pow(10, 9*float64(rank-255)/255) }

func compareSetCost(a, b []byte) int { return cmp.Compare(setCost(a), setCost(b)) }

// byteSet finds the first byte of a set: with IndexByte for one byte, else by a table.
type byteSet struct {
	only  int // the one byte, or -1
	table [256]bool
}

func newByteSet(set []byte) *byteSet {
	s := &byteSet{only: -1}
	if len(set) == 1 {
		s.only = int(set[0])
	}
	for _, b := range set {
		s.table[b] = true
	}
	return s
}

func (s *byteSet) Index(text []byte) int {
	if s.only >= 0 {
		return bytes.IndexByte(text, byte(s.only))
	}
	for i, c := range text {
		if s.table[c] {
			return i
		}
	}
	return -1
}

// alternativeFinders returns a finder for the longest anchor literal of each alternative of
// q (a QueryOr), or none when one alternative has no literal.
func alternativeFinders(q driver.ContentQuery) []indexer {
	out := make([]indexer, 0, len(q.Sub))
	for _, alt := range q.Sub {
		lits := anchorCandidates(alt)
		if len(lits) == 0 {
			return nil
		}
		lit := slices.MaxFunc(lits, func(a, b driver.ContentQuery) int { return len(a.Literal) - len(b.Literal) })
		out = append(out, rarebyte.New(lit.Literal, lit.IgnoreCase))
	}
	return out
}

// anchorCandidates are the literals every matching line must contain: q itself, the literals
// of a sequence, or those of the conjuncts of q.
func anchorCandidates(q driver.ContentQuery) []driver.ContentQuery {
	switch q.Op {
	case driver.QueryLiteral:
		return []driver.ContentQuery{q}
	case driver.QuerySequence:
		return q.Sub
	case driver.QueryAnd:
		var out []driver.ContentQuery
		for _, s := range q.Sub {
			switch s.Op {
			case driver.QueryLiteral:
				out = append(out, s)
			case driver.QuerySequence:
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

// matchingLines reports to scan the [start, end) byte range (without the "\n") of each
// matching line of content from offset from (a line start) on, in order. The expression runs
// on chunks of whole lines of about m.chunk bytes, and scan.pause is offered between them, so a
// costly pattern over a large file can stop part way. The caller skips binary files.
func (m *lineMatcher) matchingLines(content []byte, from int, scan lineScan) {
	if len(m.finders) > 0 {
		m.anchoredLines(content, from, scan)
		return
	}
	for pos := from; pos <= len(content); {
		end, oneLine := m.chunkEnd(content, pos)
		if oneLine && end-pos > m.maxLine {
			if scan.skip != nil {
				scan.skip(pos, end)
			}
		} else {
			for p := pos; p <= end; {
				loc := m.re.FindIndex(content[p:end])
				if loc == nil {
					break
				}
				at := p + loc[0]
				if at == len(content) && (at == 0 || content[at-1] == '\n') {
					return // the empty "line" after a final newline is no line
				}
				start, lineEnd := lineAround(content, at)
				if !scan.match(start, lineEnd) {
					return
				}
				p = lineEnd + 1
			}
		}
		if end >= len(content) {
			return
		}
		pos = end + 1
		if scan.pause != nil && !scan.pause(pos) {
			return
		}
	}
}

// chunkEnd is the end of the chunk of lines that starts at pos: the last "\n" within m.chunk
// bytes, or the end of the one line at pos when it is longer (oneLine).
func (m *lineMatcher) chunkEnd(content []byte, pos int) (end int, oneLine bool) {
	if len(content)-pos <= m.chunk {
		return len(content), false
	}
	if k := bytes.LastIndexByte(content[pos:pos+m.chunk], '\n'); k >= 0 {
		return pos + k, false
	}
	if k := bytes.IndexByte(content[pos:], '\n'); k >= 0 {
		return pos + k, true
	}
	return len(content), true
}

// anchoredLines is matchingLines for a matcher with anchor literals: only the lines that
// contain one are given to the expression.
func (m *lineMatcher) anchoredLines(content []byte, from int, scan lineScan) {
	anchors := rarebyte.NewEarliest(m.finders)
	paused := from
	for pos := from; pos < len(content); {
		at := anchors.Index(content, pos)
		if at < 0 {
			return
		}
		start, end := lineAround(content, at)
		switch {
		case m.literalOnly:
			if !scan.match(start, end) {
				return
			}
		case m.window > 0:
			if m.windowMatch(content[start:end], at-start) && !scan.match(start, end) {
				return
			}
		case end-start > m.maxLine:
			if scan.skip != nil {
				scan.skip(start, end)
			}
		case m.re.Match(content[start:end]) && !scan.match(start, end):
			return
		}
		pos = end + 1
		if pos-paused >= m.chunk && pos < len(content) {
			paused = pos
			if scan.pause != nil && !scan.pause(pos) {
				return
			}
		}
	}
}

// windowMatch reports whether line, which holds a byte of the anchor set at offset at and
// maybe later, matches: the expression runs on the window bytes either side of each
// occurrence, widened to whole characters so that it decodes them as in the line.
func (m *lineMatcher) windowMatch(line []byte, at int) bool {
	for at >= 0 && at < len(line) {
		lo, hi := max(at-m.window+1, 0), min(at+m.window, len(line))
		for lo > 0 && !utf8.RuneStart(line[lo]) {
			lo--
		}
		for hi < len(line) && !utf8.RuneStart(line[hi]) {
			hi++
		}
		if m.re.Match(line[lo:hi]) {
			return true
		}
		k := m.finders[0].Index(line[at+1:])
		if k < 0 {
			return false
		}
		at += 1 + k
	}
	return false
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
