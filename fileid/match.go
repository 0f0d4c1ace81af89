package fileid

import (
	"bytes"
	"iter"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// hit is one matching line: its byte range in the file content (without the "\n").
type hit struct{ lineStart, lineEnd int }

// matcher finds matching lines. Queries without regular-expression metacharacters take a
// literal path (bytes.Index, or an ASCII case-folded copy of the file for case-insensitive
// search); other queries run the RE2 expression, prefiltered by a literal every match must
// contain when the expression has one, else by a few literals one of which every match
// contains (literalSet), else by the few bytes a match can start with, else by the bytes and
// minimum length of a match (runFilter). Semantics are the same on every path:
// a line matches when the expression (in multi-line mode, so ^ and $ are line boundaries)
// matches within it.
//
// A matcher is immutable and safe for concurrent use.
type matcher struct {
	literal []byte         // non-nil: literal query (lower-cased when fold)
	fold    bool           // case-insensitive
	re      *regexp.Regexp // always set: the full expression (used for the rare fallbacks too)
	pre     []byte         // literal every match contains (lower-cased when preFold), or nil
	preFold bool
	litFold *foldFinder // finds literal when fold is set
	preFind *foldFinder // finds pre when preFold is set
	pres    *literalSet // literals one of which every match contains; or nil
	first   *[256]bool  // bytes every match starts with, when there are few; or nil
	firsts  []byte      // the same bytes, when there are at most maxScannedFirstBytes
	runs    *runFilter  // otherwise, the bytes and minimum length of a match; or nil
	perLine bool        // the expression has \A or \z: regexLines matches each line alone
}

// maxFirstBytes is the largest start-byte set worth scanning for; larger sets (letters, say)
// occur on nearly every line, and matching each line costs more than running the expression.
const maxFirstBytes = 16

func newMatcher(query string, caseInsensitive bool) (*matcher, error) {
	flags := "(?m)"
	if caseInsensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + query)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re, fold: caseInsensitive}
	// Byte search is exact only for text without newlines and without U+FFFD, which the regexp
	// package also matches against invalid UTF-8.
	if regexp.QuoteMeta(query) == query && !strings.ContainsAny(query, "\n\uFFFD") {
		if !caseInsensitive {
			m.literal = []byte(query)
		} else if isASCII(query) {
			m.literal = lowerASCII(nil, []byte(query))
		}
		if m.literal != nil {
			if caseInsensitive {
				m.litFold = newFoldFinder(m.literal)
			}
			return m, nil
		}
	}
	if parsed, err := syntax.Parse(flags+query, syntax.Perl); err == nil {
		m.perLine = textAnchored(parsed)
		if lits := requiredLiterals(parsed, 1); lits != nil {
			switch lit := lits[0]; {
			case strings.ContainsAny(lit.text, "\n\uFFFD"):
			case !lit.fold:
				m.pre = []byte(lit.text)
			case isASCII(lit.text):
				m.pre, m.preFold = lowerASCII(nil, []byte(lit.text)), true
			}
		}
		if lits := requiredLiterals(parsed, maxPrefilterLiterals); len(lits) > 1 && shortestLiteral(lits) > max(len(m.pre), 1) {
			if m.pres = newLiteralSet(lits); m.pres != nil {
				m.pre, m.preFold = nil, false
			}
		}
		if m.preFold {
			m.preFind = newFoldFinder(m.pre)
		}
		if m.pre == nil {
			var set [256]bool
			if empty, ok := firstBytes(parsed, &set); ok && !empty && countSet(&set) <= maxFirstBytes {
				m.first = &set
				m.runs = newRunFilter(parsed) // checks each candidate start (see byteFilteredLines)
				if countSet(&set) <= maxScannedFirstBytes {
					for b, in := range set {
						if in {
							m.firsts = append(m.firsts, byte(b))
						}
					}
				}
			} else {
				m.runs = newRunFilter(parsed)
			}
		}
	}
	return m, nil
}

// scratch buffers for the copies of files with "\r" line endings, reused across searches.
var foldBuffers = sync.Pool{New: func() any { return new([]byte) }}

// find returns up to max matching lines of content[from:]. from must be a line start. cr
// says content holds "\r"; lines then end at "\n", "\r\n" or a lone "\r".
func (m *matcher) find(content []byte, from, max int, cr bool) []hit {
	if max <= 0 || from >= len(content) {
		return nil
	}
	if cr {
		// Search a copy with every "\r" written "\n" (same offsets), so that every path sees
		// lines as they end; the empty line this makes inside each "\r\n" is not a line of
		// the file and is dropped (see phantomLine).
		buf := foldBuffers.Get().(*[]byte)
		defer foldBuffers.Put(buf)
		norm := append((*buf)[:0], content...)
		for i := bytes.IndexByte(norm, '\r'); i >= 0; {
			norm[i] = '\n'
			j := bytes.IndexByte(norm[i+1:], '\r')
			if j < 0 {
				break
			}
			i += 1 + j
		}
		*buf = norm
		return m.findLines(norm, from, max, content)
	}
	return m.findLines(content, from, max, nil)
}

// findLines is find over content whose lines end at "\n". orig, when set, is the file as
// written, whose "\r\n" line endings content holds as "\n\n".
func (m *matcher) findLines(content []byte, from, max int, orig []byte) []hit {
	switch {
	case m.literal != nil:
		return m.literalLines(content, from, max, m.literal, m.litFold, nil, orig)
	case m.pre != nil:
		return m.literalLines(content, from, max, m.pre, m.preFind, m.re, orig)
	case m.pres != nil:
		return m.literalSetLines(content, from, max, orig)
	default:
		return m.byteFilteredLines(content, from, max, orig)
	}
}

// phantomLine reports whether the empty line content[ls:le] is the one find's copy makes
// between the "\r" and "\n" of a "\r\n" in orig.
func phantomLine(orig []byte, ls, le int) bool {
	return orig != nil && ls == le && ls > 0 && ls < len(orig) && orig[ls-1] == '\r' && orig[ls] == '\n'
}

// literalLines finds the lines of content[from:] that contain lit (ASCII case-insensitively
// with fold, which finds lit) and, with verify set, that verify matches. Where ASCII folding
// could disagree with RE2's (see foldHazard) it runs the expression instead.
func (m *matcher) literalLines(content []byte, from, max int, lit []byte, fold *foldFinder, verify *regexp.Regexp, orig []byte) []hit {
	switch {
	case fold == nil:
		return candidateLines(content, content, from, max, verify, func(pos int) int { return indexFrom(content, pos, lit) }, orig)
	case foldHazard(lit, content[from:]):
		return m.regexLines(content, from, max, orig)
	default:
		return candidateLines(content, content, from, max, verify, fold.nextIn(content), orig)
	}
}

// candidateLines is the scan every prefilter shares. next(pos) returns the offset of the next
// byte at or after pos that makes its line a candidate, or -1; pos only grows from one call to
// the next. A candidate line counts when verify is nil or matches it, and the scan goes on
// after that line. haystack is content or its lower-cased copy: the offsets are the same.
func candidateLines(content, haystack []byte, from, max int, verify *regexp.Regexp, next func(pos int) int, orig []byte) []hit {
	var hits []hit
	for pos := from; pos < len(haystack) && len(hits) < max; {
		at := next(pos)
		if at < 0 {
			break
		}
		ls := pos + bytes.LastIndexByte(haystack[pos:at], '\n') + 1
		le := lineEndAt(haystack, at)
		if (verify == nil || verify.Match(content[ls:le])) && !phantomLine(orig, ls, le) {
			hits = append(hits, hit{ls, le})
		}
		pos = le + 1
	}
	return hits
}

// byteFilteredLines finds matching lines with the filters that need no literal.
func (m *matcher) byteFilteredLines(content []byte, from, max int, orig []byte) []hit {
	switch {
	case m.first != nil:
		next := func(pos int) int { return m.nextFirstByte(content, pos) }
		if m.firsts != nil {
			next = nextAnyByte(content, m.firsts)
		}
		if runs := m.runs; runs != nil {
			// A match starts at a start byte and is a run of at least minBytes bytes of the
			// run set: candidates without such a run after them are skipped, not matched.
			first := next
			next = func(pos int) int {
				for {
					at := first(pos)
					if at < 0 || runs.runAt(content, at) {
						return at
					}
					pos = at + 1
				}
			}
		}
		return candidateLines(content, content, from, max, m.re, next, orig)
	case m.runs != nil:
		return candidateLines(content, content, from, max, m.re, func(pos int) int { return m.runs.next(content, pos) }, orig)
	default:
		return m.regexLines(content, from, max, orig)
	}
}

// maxScannedFirstBytes is the largest start-byte set searched with one vectorized
// bytes.IndexByte pass per byte (nextAnyByte) rather than a loop over every byte.
const maxScannedFirstBytes = 6

// nextAnyByte returns the candidate function of candidateLines for the bytes set: the offset
// of the first of them at or after pos, or -1. Each byte costs one pass over b (see earliest).
func nextAnyByte(b []byte, set []byte) func(pos int) int {
	return earliest(len(set), func(i, pos int) int {
		if pos < len(b) {
			if j := bytes.IndexByte(b[pos:], set[i]); j >= 0 {
				return pos + j
			}
		}
		return -1
	})
}

// earliest returns the candidate function of candidateLines over n searches: the smallest
// find(i, pos), the offset of search i's first occurrence at or after pos, or -1 when none has
// one. pos only grows between calls, so each search's next occurrence is kept and find is called
// again only once the scan has passed it; a search that found nothing is not called again.
func earliest(n int, find func(i, pos int) int) func(pos int) int {
	next := make([]int, n)
	for i := range next {
		next[i] = -2 // not searched yet
	}
	return func(pos int) int {
		at := -1
		for i, n := range next {
			if n != -1 && n < pos {
				n = find(i, pos)
				next[i] = n
			}
			if n >= 0 && (at < 0 || n < at) {
				at = n
			}
		}
		return at
	}
}

// nextFirstByte returns the offset of the first byte in b[from:] that a match can start with,
// or -1.
func (m *matcher) nextFirstByte(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if m.first[b[i]] {
			return i
		}
	}
	return -1
}

// firstBytes adds to set every byte a non-empty match of re can start with, and reports
// whether re can match the empty string. ok is false when any byte could start a match.
func firstBytes(re *syntax.Regexp, set *[256]bool) (empty, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		addRune(set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= min(hi, utf8.RuneSelf-1); r++ {
				set[r] = true
			}
			if hi >= utf8.RuneSelf {
				addNonASCII(set)
			}
		}
		return false, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true, true
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		_, ok := firstBytes(re.Sub[0], set)
		return true, ok
	case syntax.OpRepeat:
		empty, ok := firstBytes(re.Sub[0], set)
		return empty || re.Min == 0, ok
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			empty, ok := firstBytes(sub, set)
			if !ok {
				return false, false
			}
			if !empty {
				return false, true
			}
		}
		return true, true
	case syntax.OpAlternate:
		anyEmpty := false
		for _, sub := range re.Sub {
			empty, ok := firstBytes(sub, set)
			if !ok {
				return false, false
			}
			anyEmpty = anyEmpty || empty
		}
		return anyEmpty, true
	}
	return false, false
}

// addRune adds the first UTF-8 byte of r (and of every case variant when fold is set).
func addRune(set *[256]bool, r rune, fold bool) {
	var buf [utf8.UTFMax]byte
	for v := range variants(r, fold) {
		if v == utf8.RuneError {
			addNonASCII(set)
		}
		utf8.EncodeRune(buf[:], v)
		set[buf[0]] = true
	}
}

// variants yields r and, when fold is set, its case variants: every other rune
// unicode.SimpleFold reaches from it.
func variants(r rune, fold bool) iter.Seq[rune] {
	return func(yield func(rune) bool) {
		for v := r; yield(v) && fold; {
			if v = unicode.SimpleFold(v); v == r {
				return
			}
		}
	}
}

// addNonASCII adds every byte ≥ 0x80: lead bytes of multi-byte characters, and the stray
// bytes of invalid UTF-8, which the regexp package reads as U+FFFD.
func addNonASCII(set *[256]bool) {
	for b := utf8.RuneSelf; b < len(set); b++ {
		set[b] = true
	}
}

func countSet(set *[256]bool) int {
	n := 0
	for _, in := range set {
		if in {
			n++
		}
	}
	return n
}

// textAnchored reports whether re holds \A or \z (or ^ or $ in (?-m) mode). Matched against
// one line they are the line's ends, against the whole content only the file's.
func textAnchored(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if textAnchored(sub) {
			return true
		}
	}
	return false
}

// regexLines runs the expression over the rest of the content and keeps only matches that lie
// within one line; a match that runs past its line's end counts only if the line alone matches.
// An expression anchored to the text's ends is matched against each line alone instead.
func (m *matcher) regexLines(content []byte, from, max int, orig []byte) []hit {
	if m.perLine || orig != nil {
		// Each line alone: also for "\r\n" files, whose copy holds an empty line inside each
		// line ending that an expression over the whole content could match across.
		return candidateLines(content, content, from, max, m.re, func(pos int) int { return pos }, orig)
	}
	var hits []hit
	for pos := from; pos < len(content) && len(hits) < max; {
		loc := m.re.FindIndex(content[pos:])
		if loc == nil {
			break
		}
		s, e := pos+loc[0], pos+loc[1]
		ls := pos + bytes.LastIndexByte(content[pos:s], '\n') + 1
		if ls >= len(content) {
			break // an empty match after the final newline is not a line
		}
		le := lineEndAt(content, s)
		if e <= le || m.re.Match(content[ls:le]) {
			hits = append(hits, hit{ls, le})
		}
		pos = le + 1
	}
	return hits
}

// locate returns the offset of the first match within a line, for cutting long lines.
func (m *matcher) locate(line []byte) int {
	if m.literal != nil && !m.fold {
		return max(bytes.Index(line, m.literal), 0)
	}
	if loc := m.re.FindIndex(line); loc != nil {
		return loc[0]
	}
	return 0
}

// foldHazard reports whether ASCII case folding could disagree with Unicode folding here: RE2
// folds k to the Kelvin sign (U+212A) and s to the long s (U+017F). Files containing those
// characters take the regular-expression path for lit.
func foldHazard(lit, content []byte) bool {
	if bytes.IndexByte(lit, 'k') >= 0 && bytes.Contains(content, []byte("\u212a")) {
		return true
	}
	return bytes.IndexByte(lit, 's') >= 0 && bytes.Contains(content, []byte("\u017f"))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// lowerASCII appends src with A-Z mapped to a-z; every other byte, and so every offset, is kept.
func lowerASCII(dst, src []byte) []byte {
	dst = append(dst, src...)
	for i, c := range dst {
		if 'A' <= c && c <= 'Z' {
			dst[i] = c + ('a' - 'A')
		}
	}
	return dst
}
