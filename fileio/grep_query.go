package fileio

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
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

// shortenLiterals returns q with every literal cut to MaxQueryLiteralBytes.
func shortenLiterals(q ContentQuery) ContentQuery {
	if q.Op == QueryLiteral && len(q.Literal) > MaxQueryLiteralBytes {
		cut := MaxQueryLiteralBytes
		for cut > 0 && !utf8.RuneStart(q.Literal[cut]) {
			cut--
		}
		q.Literal = q.Literal[:cut]
		return q
	}
	if len(q.Sub) > 0 {
		subs := make([]ContentQuery, len(q.Sub))
		for i, s := range q.Sub {
			subs[i] = shortenLiterals(s)
		}
		q.Sub = subs
	}
	return q
}

// Matches reports whether content satisfies q.
func (q ContentQuery) Matches(content []byte) bool {
	switch q.Op {
	case QueryAll:
		return true
	case QueryLiteral:
		if q.IgnoreCase {
			return indexASCIIFold(content, q.Literal) >= 0
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
				at = indexASCIIFold(content, s.Literal)
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

// querySequence is the query of a concatenation whose parts need a and then b: a sequence when
// both are literals or sequences of the same case rule, else their conjunction.
func querySequence(a, b ContentQuery) ContentQuery {
	literals := func(q ContentQuery) ([]ContentQuery, bool) {
		switch q.Op {
		case QueryLiteral:
			return []ContentQuery{q}, true
		case QuerySequence:
			return q.Sub, true
		}
		return nil, false
	}
	la, okA := literals(a)
	lb, okB := literals(b)
	if !okA || !okB || la[0].IgnoreCase != lb[0].IgnoreCase {
		return queryAnd(a, b)
	}
	return ContentQuery{Op: QuerySequence, Sub: append(append([]ContentQuery{}, la...), lb...)}
}

func queryAnd(a, b ContentQuery) ContentQuery {
	switch {
	case a.Op == QueryNone || b.Op == QueryNone:
		return ContentQuery{Op: QueryNone}
	case a.Op == QueryAll:
		return b
	case b.Op == QueryAll:
		return a
	}
	var subs []ContentQuery
	for _, x := range []ContentQuery{a, b} {
		if x.Op == QueryAnd {
			subs = append(subs, x.Sub...)
		} else {
			subs = append(subs, x)
		}
	}
	return joinQueries(QueryAnd, subs)
}

func queryOr(a, b ContentQuery) ContentQuery {
	switch {
	case a.Op == QueryAll || b.Op == QueryAll:
		return ContentQuery{Op: QueryAll}
	case a.Op == QueryNone:
		return b
	case b.Op == QueryNone:
		return a
	}
	var subs []ContentQuery
	for _, x := range []ContentQuery{a, b} {
		if x.Op == QueryOr {
			subs = append(subs, x.Sub...)
		} else {
			subs = append(subs, x)
		}
	}
	return joinQueries(QueryOr, subs)
}

// joinQueries is the op node over subs without repeated literals, or the only survivor.
func joinQueries(op ContentQueryOp, subs []ContentQuery) ContentQuery {
	subs = dedupQueries(subs)
	if len(subs) == 1 {
		return subs[0]
	}
	return ContentQuery{Op: op, Sub: subs}
}

// dedupQueries drops repeated literal nodes; a single survivor stands for the whole list.
func dedupQueries(subs []ContentQuery) []ContentQuery {
	type literalKey struct {
		literal    string
		ignoreCase bool
	}
	seen := map[literalKey]bool{}
	out := subs[:0]
	for _, s := range subs {
		if s.Op == QueryLiteral {
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

// indexASCIIFold is bytes.Index with ASCII letters compared case-insensitively; lit is lower
// case. It skips to candidates with IndexByte and compares each; once the comparisons cost
// more than a few times the bytes passed (a long literal over repetitive text), it finishes
// with Knuth-Morris-Pratt, so the whole search is linear in len(s) + len(lit).
func indexASCIIFold(s []byte, lit string) int {
	if lit == "" {
		return 0
	}
	// Anchor on the first byte that is not a letter, if any: one IndexByte finds it.
	anchor := -1
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c < 'a' || c > 'z' {
			anchor = i
			break
		}
	}
	compared := 0
	for start := 0; start+len(lit) <= len(s); {
		if compared > 4*start+4096 {
			if k := indexASCIIFoldKMP(s[start:], lit); k >= 0 {
				return start + k
			}
			return -1
		}
		var at int
		if anchor >= 0 {
			k := bytes.IndexByte(s[start+anchor:], lit[anchor])
			if k < 0 {
				return -1
			}
			at = start + k
		} else {
			k := indexEitherByte(s[start:], lit[0], lit[0]-'a'+'A')
			if k < 0 {
				return -1
			}
			at = start + k
		}
		if at+len(lit) > len(s) {
			return -1
		}
		if equalASCIIFold(s[at:at+len(lit)], lit) {
			return at
		}
		compared += len(lit)
		start = at + 1
	}
	return -1
}

// indexASCIIFoldKMP is indexASCIIFold by Knuth-Morris-Pratt: at most 2 × len(s) comparisons
// after a table of len(lit).
func indexASCIIFoldKMP(s []byte, lit string) int {
	fail := make([]int, len(lit)) // fail[i]: the longest proper border of lit[:i+1]
	for i, k := 1, 0; i < len(lit); i++ {
		for k > 0 && lit[i] != lit[k] {
			k = fail[k-1]
		}
		if lit[i] == lit[k] {
			k++
		}
		fail[i] = k
	}
	for i, k := 0, 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		for k > 0 && c != lit[k] {
			k = fail[k-1]
		}
		if c == lit[k] {
			k++
		}
		if k == len(lit) {
			return i - len(lit) + 1
		}
	}
	return -1
}

// indexEitherByte is the first index of a or b in s, -1 if neither occurs.
func indexEitherByte(s []byte, a, b byte) int {
	i := bytes.IndexByte(s, a)
	limit := s
	if i >= 0 {
		limit = s[:i]
	}
	if j := bytes.IndexByte(limit, b); j >= 0 {
		return j
	}
	return i
}

func equalASCIIFold(s []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
