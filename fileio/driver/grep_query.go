package driver

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles/internal/asciifold"
)

// ContentQueryOp is the kind of a ContentQuery node.
type ContentQueryOp int

// The ContentQuery node kinds.
const (
	QueryAll     ContentQueryOp = iota // every file may match: no index can help
	QueryNone                          // no file can match
	QueryLiteral                       // the content contains Literal
	QueryAnd                           // every Sub holds
	QueryOr                            // at least one Sub holds
	// QuerySequence: the Sub literals occur in this order, each after the end of the one
	// before (a concatenation "foo.*bar" needs "foo", then "bar"). Its Sub are literals with
	// the same IgnoreCase. A store may treat it as QueryAnd of its literals.
	QuerySequence
)

// ContentQuery is a condition that the content of every file holding a match of a grep pattern
// satisfies: a formula of substrings that must occur, derived from the regular expression (see
// Service.Grep). It is a necessary condition, never a sufficient one — a store with an index
// may use it to skip the files that cannot match (ContentScanner), and the Service still
// matches each remaining line exactly. A store may also weaken it (treat any node as QueryAll),
// which only costs speed.
//
// Literal nodes hold at least MinQueryLiteralBytes bytes. IgnoreCase literals are lower case
// and compare ASCII letters case-insensitively (every other character exactly): the analysis
// breaks an ignore-case literal at each character whose case folding is not plain ASCII
// ("k", "s" and non-ASCII letters), so that ASCII folding finds every match of Go's Unicode
// folding. A store must compare them with exactly that folding: a locale's case mapping is
// not it (under Turkish rules "I" lower-cases to a dotless "ı", so PostgreSQL's ILIKE under
// a tr-TR collation misses "FILE" for "file"); pgstore compares ASCII-folded text with LIKE.
// A literal may hold any byte, NUL included.
type ContentQuery struct {
	Op         ContentQueryOp
	Literal    string         // QueryLiteral
	IgnoreCase bool           // QueryLiteral: compare ASCII letters case-insensitively
	Sub        []ContentQuery // QueryAnd, QueryOr, QuerySequence: at least two
}

// MinQueryLiteralBytes is the length below which a literal says too little to filter files by
// (a trigram index needs three characters); shorter ones become QueryAll.
const MinQueryLiteralBytes = 3

// MaxQueryLiteralBytes is the longest literal a ContentQuery holds: a longer one is cut to
// its first MaxQueryLiteralBytes bytes (at a character boundary). A part of a literal that
// must occur must occur too, so the condition still holds, and a store's substring test
// (PostgreSQL's LIKE compares at each position) costs at most that much per byte of content.
const MaxQueryLiteralBytes = 32

// Matches reports whether content satisfies q.
func (q ContentQuery) Matches(content []byte) bool {
	switch q.Op {
	case QueryAll:
		return true
	case QueryLiteral:
		if q.IgnoreCase {
			return asciifold.Index(content, q.Literal) >= 0
		}
		return bytes.Contains(content, []byte(q.Literal))
	case QueryAnd:
		for _, s := range q.Sub {
			if !s.Matches(content) {
				return false
			}
		}
		return true
	case QueryOr:
		for _, s := range q.Sub {
			if s.Matches(content) {
				return true
			}
		}
		return false
	case QuerySequence:
		// The leftmost occurrence of each literal ends first, which leaves the most room for
		// the next one.
		for _, s := range q.Sub {
			var at int
			if s.IgnoreCase {
				at = asciifold.Index(content, s.Literal)
			} else {
				at = bytes.Index(content, []byte(s.Literal))
			}
			if at < 0 {
				return false
			}
			content = content[at+len(s.Literal):]
		}
		return true
	}
	return false // QueryNone
}

// String renders q for logs and tests: "all", "none", "abc", "i:abc" (ignore case),
// "and(…)", "or(…)".
func (q ContentQuery) String() string {
	switch q.Op {
	case QueryAll:
		return "all"
	case QueryNone:
		return "none"
	case QueryLiteral:
		if q.IgnoreCase {
			return "i:" + strconv.Quote(q.Literal)
		}
		return strconv.Quote(q.Literal)
	}
	parts := make([]string, len(q.Sub))
	for i, s := range q.Sub {
		parts[i] = s.String()
	}
	op := "and"
	switch q.Op {
	case QueryOr:
		op = "or"
	case QuerySequence:
		op = "seq"
	}
	return op + "(" + strings.Join(parts, " ") + ")"
}

// Literals returns the literal nodes of q, depth first.
func (q ContentQuery) Literals() []ContentQuery {
	if q.Op == QueryLiteral {
		return []ContentQuery{q}
	}
	var out []ContentQuery
	for _, s := range q.Sub {
		out = append(out, s.Literals()...)
	}
	return out
}
