package fileid

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// SearchRequest is one search.
type SearchRequest struct {
	// Query is a Go RE2 regular expression (https://pkg.go.dev/regexp/syntax) matched line by
	// line, in multi-line mode so that ^ and $ are line boundaries (so are \A and \z: each
	// line is matched as if alone). A query without metacharacters is searched as a plain string.
	Query string
	// FileID limits the search to one file; empty searches every file.
	FileID string
	// CaseInsensitive folds case (Unicode simple folding, as RE2's (?i)).
	CaseInsensitive bool
	// MaxMatches caps the matches returned (0 = DefaultMatches; clamped to MaxMatches).
	MaxMatches int
	// Cursor continues a truncated search: the NextCursor of the previous result ("fileId:line",
	// the last line searched); only lines after that line of that file, and the files after
	// it, are searched.
	Cursor string
}

// Search finds the lines that match a regular expression, in every file or in one, and
// attributes each to the innermost section containing it: every SectionID it returns is
// accepted by ReadSections and that section contains the line. Front matter is not searched;
// matches on blank lines before the first heading (which belong to no section) are dropped.
//
// Files are searched in parallel; results are deterministic: files in ID order, lines in file
// order, the first MaxMatches kept. An empty or over-long query fails with INVALID_QUERY, a
// bad expression with INVALID_PATTERN, a bad FileID as in [Registry.File], an ended context
// with TIMEOUT or CANCELED.
func (r *Registry) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	res, err := r.search(ctx, req)
	if cerr := agentfiles.ContextError(err); cerr != nil {
		return SearchResult{}, cerr
	}
	return res, err
}

func (r *Registry) search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	switch {
	case req.Query == "":
		return SearchResult{}, agentfiles.NewError(agentfiles.CodeInvalidQuery,
			"the query is empty; pass a word, a phrase or an RE2 regular expression such as `install` or `func \\w+\\(`", "query")
	case len(req.Query) > MaxQueryBytes:
		return SearchResult{}, agentfiles.NewError(agentfiles.CodeInvalidQuery,
			fmt.Sprintf("the query is %d bytes; at most %d are accepted, search for a shorter distinctive part", len(req.Query), MaxQueryBytes), "query")
	}
	m, err := newMatcher(req.Query, req.CaseInsensitive)
	if err != nil {
		return SearchResult{}, agentfiles.WrapError(agentfiles.CodeInvalidPattern,
			"the query is not a valid RE2 regular expression ("+err.Error()+
				"); escape metacharacters such as ( [ . * + ? with a backslash, e.g. `foo\\(` to find \"foo(\"", req.Query, err)
	}
	var notices []string
	limit := clampLimit("max_matches", req.MaxMatches, DefaultMatches, MaxMatches, &notices)

	files := r.files
	if req.FileID != "" {
		f, err := r.lookup(req.FileID)
		if err != nil {
			return SearchResult{}, err
		}
		files = []*file{f}
	}
	// from[0] is where the first file is searched from; the others from their body.
	firstFrom := -1
	if req.Cursor != "" {
		n, line, err := r.parseCursor(req.Cursor)
		if err != nil {
			return SearchResult{}, err
		}
		k := 0
		for k < len(files) && files[k] != r.files[n-1] {
			k++
		}
		if k == len(files) {
			return SearchResult{}, agentfiles.NewError(agentfiles.CodeInvalidArgument,
				"cursor names a file outside this search; pass the next_cursor of a search with the same fileId", req.Cursor)
		}
		files = files[k:]
		firstFrom = max(files[0].bodyStart, lineOffset(files[0].content, line))
	}

	// Search in parallel; stop handing out files once the files searched so far, in order,
	// hold more than limit matches. Which files were searched then does not depend on timing
	// for the part of the result that is returned.
	found := make([][]hit, len(files))
	var (
		mu     sync.Mutex
		done   = make([]bool, len(files))
		prefix int
		total  int
	)
	err = r.parallel(ctx, len(files), func(i int) bool {
		f := files[i]
		from := f.bodyStart
		if i == 0 && firstFrom >= 0 {
			from = firstFrom
		}
		found[i] = m.find(f.content, from, limit+1, f.hasCR)
		mu.Lock()
		defer mu.Unlock()
		done[i] = true
		for prefix < len(files) && done[prefix] {
			total += len(found[prefix])
			prefix++
		}
		return total <= limit
	})
	if err != nil {
		return SearchResult{}, err
	}

	// Only the first prefix files are known to be complete; when the search stopped early,
	// those files alone hold more than limit matches.
	res := SearchResult{Results: []FileMatches{}, Truncated: prefix < len(files)}
	// The cursor: the last line examined (returned, or dropped as outside every section),
	// else the start of the first file not examined.
	cursor := ""
	if prefix < len(files) {
		cursor = files[prefix].info.FileID + ":0"
	}
	for i := 0; i < prefix; i++ {
		if len(found[i]) == 0 {
			continue
		}
		f := files[i]
		o := f.outline()
		fm := FileMatches{FileID: f.info.FileID, Filename: f.info.Filename}
		line, at := 1, 0
		for k, h := range found[i] {
			if res.MatchCount == limit {
				res.Truncated = true
				break
			}
			line += countLines(f.content[at:h.lineStart])
			at = h.lineStart
			cursor = f.info.FileID + ":" + strconv.Itoa(line)
			sec, ok := o.sectionAt(h.lineStart)
			if !ok {
				continue
			}
			fm.Matches = append(fm.Matches, Match{
				SectionID: sec.id,
				Heading:   sec.title,
				Line:      line,
				Text:      m.excerpt(f.content[h.lineStart:h.lineEnd]),
			})
			res.MatchCount++
			if k == len(found[i])-1 && len(found[i]) > limit {
				res.Truncated = true // this file alone had more than we kept
			}
		}
		if len(fm.Matches) > 0 {
			res.Results = append(res.Results, fm)
		}
		if res.MatchCount == limit && len(found[i]) > 0 && res.Truncated {
			break
		}
	}
	if res.Truncated {
		res.NextCursor = cursor
		hint := "narrow the query"
		if req.FileID == "" {
			hint += " or pass fileId to search one file"
		}
		notices = append(notices, fmt.Sprintf("%d matches are shown; call again with cursor %q for the next ones, raise max_matches (up to %d), or %s",
			res.MatchCount, cursor, MaxMatches, hint))
	}
	res.Note = strings.Join(notices, "; ")
	return res, nil
}

// parseCursor parses a search cursor "fN:L" into the file number and the line (0 = before
// the first line).
func (r *Registry) parseCursor(c string) (n, line int, err error) {
	bad := func(why string) error {
		return agentfiles.NewError(agentfiles.CodeInvalidArgument,
			"cursor "+why+"; pass next_cursor of a truncated search unchanged, e.g. \"f3:120\"", c)
	}
	id, l, ok := strings.Cut(c, ":")
	if !ok {
		return 0, 0, bad("is not of the form fileId:line")
	}
	line, err = strconv.Atoi(l)
	if err != nil || line < 0 {
		return 0, 0, bad("has no valid line number")
	}
	f, err := r.lookup(id)
	if err != nil {
		return 0, 0, bad("names no file of this server")
	}
	n, _ = ParseID(f.info.FileID)
	return n, line, nil
}

// lineOffset returns the offset of the start of the line after line n (n = 0: 0), or
// len(content) when the file has no more lines.
func lineOffset(content []byte, n int) int {
	pos := 0
	for ; n > 0 && pos < len(content); n-- {
		_, pos = lineAt(content, pos)
	}
	return pos
}

// excerpt returns the line, or for a long line a window of MaxLineBytes around the first
// match, cut at UTF-8 boundaries and marked with "…" where it was cut.
func (m *matcher) excerpt(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= MaxLineBytes {
		return string(line)
	}
	at := m.locate(line)
	start := max(0, at-MaxLineBytes/3)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+MaxLineBytes)
	for end < len(line) && end > start && !utf8.RuneStart(line[end]) {
		end--
	}
	s := string(line[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(line) {
		s += "…"
	}
	return s
}
