package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// Bounds of one Grep answer that are not configuration.
const (
	// MaxGrepContextLines caps BeforeContext, AfterContext and Context; larger values are
	// clamped.
	MaxGrepContextLines = 20
	// MaxGrepLineBytes caps each returned line and context line; longer lines are cut at a
	// character boundary and the match says LineTruncated.
	MaxGrepLineBytes = 4096
)

// How Grep reads a project: candidate infos in batches, contents in groups.
const (
	grepCandidateBatch = 256
	grepFetchFiles     = 64
	grepFetchBytes     = 8 << 20
	// grepGrace is how long past its time budget a call may take to end its transaction.
	grepGrace = 2 * time.Second
)

// Grep searches the files of a project for lines that match a pattern, as ripgrep does
// (rg --no-config --hidden -n, with -F for FixedStrings and -i for IgnoreCase): the pattern is
// Go RE2 syntax matched against each line; files that contain a NUL byte are skipped, and a
// UTF-8 byte order mark at the start of a file is not part of its first line. The
// answer is the matching lines with context (GrepContent), the files with a match
// (GrepFilesWithMatches) or the matching lines per file (GrepCount), ordered by path and line.
//
// Every call is bounded: at most the limit of entries and Config.GrepMaxAnswerBytes of answer,
// Config.GrepMaxScanBytes of content read and Config.GrepTimeout of time. When a bound stops
// it, the result has Truncated and a NextCursor that continues exactly where it stopped.
// A store with an index (ContentSearcher) reads only the files that can match a pattern with
// literal text; without one, or for a pattern without literal text, the files below Path are
// read in path order within the budgets (and a search the scan budget stops says first how
// much of the project is left). For a pattern that is literal text alone (a literal, an
// ignore-case literal of ASCII-folding letters, an alternation of literals) in
// GrepFilesWithMatches or GrepCount mode, a store that implements LiteralGrepper finds the
// files and counts their matching lines itself, and no content is read here.
//
// Errors: INVALID_PATTERN for a pattern or glob that does not compile; INVALID_ARGUMENT for a
// bad mode, context, limit or cursor, or a pattern over MaxGrepPatternBytes;
// INVALID_PATH; NOT_FOUND when Path does not exist; TIMEOUT when the time budget ran out
// before one file was searched; and the errors every operation shares.
func (s *Service) Grep(ctx context.Context, req GrepRequest) (GrepResult, error) {
	ctx, cancel := s.callBudget(ctx)
	defer cancel()
	dir := searchDir(NormalizePath(req.Path))
	ac, scope, err := s.begin(ctx, req.Project, dir)
	var run *grepRun
	if err == nil {
		run, err = s.newGrepRun(req, dir)
	}
	if err == nil {
		run.size = answerSizeOf(agentfiles.AnswerEncodingFromContext(ctx))
	}
	if err == nil {
		err = s.runGrep(ctx, scope, run)
	}
	var res GrepResult
	if run != nil {
		res = run.res
	}
	s.logOp(ctx, "grep", ac, req.Project, dir, err, slog.Int("pattern_bytes", len(req.Pattern)),
		slog.String("mode", string(res.OutputMode)), slog.Int("scanned_files", res.ScannedFiles),
		slog.Int64("scanned_bytes", res.ScannedBytes), slog.Bool("truncated", res.Truncated))
	if err != nil {
		return GrepResult{}, err
	}
	return res, nil
}

// grepRun is the state of one Grep call.
type grepRun struct {
	m             *lineMatcher
	glob          *globmatch.Glob // nil: every file
	dir           string
	mode          GrepOutputMode
	before, after int
	limit         int
	fingerprint   string
	start         searchCursor // where the caller's cursor resumes
	bounds        grepBounds
	size          answerSize // how the answer's bytes are counted against bounds.answerBytes
	deadline      time.Time
	indexed       bool // the store filtered the candidates by the query
	// literals is the pattern as literal text, when that is all it asks and the mode reports
	// whole files: a driver.LiteralGrepper answers such a search itself.
	literals *exactLiterals
	// projectBytes is the project's size (ReadTx.ProjectBytes) when a budget stopped a
	// pattern without literal text, else 0.
	projectBytes int64

	res         GrepResult
	entries     int
	answerBytes int64
	done        searchCursor // everything up to here was examined and reported
	stopped     bool
	skipped     []string             // "path:line (n bytes)" of lines too long for the pattern to search
	filtered    driver.CandidateRead // what the store read to filter the last batch of candidates
	cutFirst    bool                 // the first match was cut to fit the answer cap
}

func (s *Service) newGrepRun(req GrepRequest, dir string) (*grepRun, error) {
	invalid := func(arg, msg string) error { return agentfiles.NewError(agentfiles.CodeInvalidArgument, msg, arg) }
	mode := req.OutputMode
	if mode == "" {
		mode = GrepContent
	}
	if mode != GrepContent && mode != GrepFilesWithMatches && mode != GrepCount {
		return nil, invalid("output_mode", fmt.Sprintf("output_mode %q is not one of content, files_with_matches, count", mode))
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"before_context", req.BeforeContext}, {"after_context", req.AfterContext}, {"context", req.Context}, {"limit", req.Limit}} {
		if c.v < 0 {
			return nil, invalid(c.name, fmt.Sprintf("%s must be >= 0, got %d", c.name, c.v))
		}
	}
	m, err := compileLineMatcher(req.Pattern, req.FixedStrings, req.IgnoreCase)
	if err != nil {
		return nil, err
	}
	r := &grepRun{m: m, dir: dir, mode: mode, bounds: s.cfg.grepLimits()}
	if mode != GrepContent {
		r.literals = exactLiteralsOf(req.Pattern, req.FixedStrings, req.IgnoreCase)
	}
	if req.Glob != "" {
		if r.glob, err = globmatch.Compile(NormalizePath(req.Glob)); err != nil {
			return nil, err
		}
	}
	r.before, r.after = contextLines(req.BeforeContext, req.Context), contextLines(req.AfterContext, req.Context)
	r.limit = req.Limit
	switch {
	case r.limit == 0:
		r.limit = r.bounds.limitDefault
	case r.limit > r.bounds.max:
		r.limit, r.res.LimitClamped = r.bounds.max, true
	}
	r.fingerprint = fingerprint("grep", req.Pattern, strconv.FormatBool(req.FixedStrings), strconv.FormatBool(req.IgnoreCase),
		dir, req.Glob, string(mode), strconv.Itoa(r.before), strconv.Itoa(r.after))
	if r.start, err = decodeCursor(req.Cursor, r.fingerprint); err != nil {
		return nil, err
	}
	r.done = r.start
	r.res = GrepResult{OutputMode: mode, Limit: r.limit, LimitClamped: r.res.LimitClamped}
	return r, nil
}

func contextLines(specific, both int) int {
	if specific == 0 {
		specific = both
	}
	return min(specific, MaxGrepContextLines)
}

// runGrep searches in one read transaction. The time budget (Config.GrepTimeout, or less when
// the call's context ends sooner) ends the search softly (the scan stops between files); the
// context it runs under ends a little later, so that the store can
// finish its transaction, and a store statement that runs past the budget fails with TIMEOUT,
// which ends the search there with what was found.
func (s *Service) runGrep(ctx context.Context, scope driver.Scope, r *grepRun) error {
	r.deadline = time.Now().Add(r.bounds.timeout)
	if end, ok := ctx.Deadline(); ok && end.Before(r.deadline.Add(grepGrace)) {
		// The call's own deadline comes first: stop searching early enough to answer with
		// what was found.
		r.deadline = end.Add(-min(grepGrace, time.Until(end)/4))
	}
	runCtx, cancel := context.WithDeadline(ctx, r.deadline.Add(grepGrace))
	defer cancel()
	// The search holds one of the tenant's call slots (Config.MaxConcurrentCalls) like every
	// other transaction, so one tenant's parallel greps leave CPUs and connections to others,
	// and runs in the store's ViewScan (ScanViewer), which keeps connections for short calls.
	release, err := s.slots.Acquire(runCtx, scope.Tenant)
	if err != nil {
		return ctxError(err)
	}
	defer release()
	err = s.viewScan(runCtx, scope, func(tx driver.ReadTx) error {
		if err := r.search(runCtx, tx); err != nil {
			return err
		}
		if r.stopped && r.m.query.Op == driver.QueryAll && strings.HasPrefix(r.res.Note, "the search read its budget") &&
			time.Until(r.deadline) > grepGrace/4 {
			// The scan budget stopped a pattern no index narrows: say how much is left.
			var err error
			r.projectBytes, err = tx.ProjectBytes(runCtx)
			return err
		}
		return nil
	})
	if err != nil && ctx.Err() == nil && r.done != r.start &&
		(errors.Is(err, context.DeadlineExceeded) || agentfiles.ErrorCode(err) == agentfiles.CodeTimeout) {
		r.stop(fmt.Sprintf("the search used its time budget of %s", r.bounds.timeout))
		err = nil
	}
	if err != nil {
		if ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || agentfiles.ErrorCode(err) == agentfiles.CodeTimeout) {
			return agentfiles.WrapError(agentfiles.CodeTimeout, fmt.Sprintf(
				"the search used its time budget of %s before it finished a file; narrow it: add literal text to the pattern, a path or a glob", r.bounds.timeout), "", err)
		}
		return storeError(err)
	}
	if r.stopped && r.done == r.start {
		// Stopped inside the first file, in a mode that reports whole files only.
		if err := ctx.Err(); err != nil {
			return ctxError(err)
		}
		return agentfiles.NewError(agentfiles.CodeTimeout, fmt.Sprintf(
			"the search used its time budget of %s before it finished a file; narrow it: add literal text to the pattern, a path or a glob, or use output_mode content, which can stop part way through a file", r.bounds.timeout), "")
	}
	r.finish()
	r.noteNoLiteral()
	return nil
}

// noteNoLiteral puts first in the note of a search that the scan budget stopped, for a pattern
// without literal text (which no index can narrow) in a project larger than the scan budget,
// how much is left to read in calls of that budget, and how to narrow the search instead.
func (r *grepRun) noteNoLiteral() {
	if r.projectBytes <= r.bounds.scanBytes {
		return
	}
	r.res.Note = fmt.Sprintf("the pattern has no literal text to look up, so the search reads the files below the path in order: "+
		"the project holds up to %s and one call reads at most %s, about %d more calls; narrow it with a path, a glob or "+
		"literal text in the pattern (a word every matching line contains). %s",
		byteSize(r.projectBytes), byteSize(r.bounds.scanBytes), max(1, (r.projectBytes-r.res.ScannedBytes)/r.bounds.scanBytes), r.res.Note)
}

// byteSize renders n bytes for a note: "512 bytes", "64 MiB".
func byteSize(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// search runs the whole search in tx.
func (r *grepRun) search(ctx context.Context, tx driver.ReadTx) error {
	if r.dir != "" {
		info, isFile, err := tx.Stat(ctx, r.dir)
		if err != nil {
			return err
		}
		if isFile {
			if r.start.Path == "" || r.start.Line > 0 {
				return r.examine(ctx, tx, []driver.FileInfo{info}, r.start.Line)
			}
			return nil
		}
		if ok, err := hasDescendant(ctx, tx, r.dir); err != nil || !ok {
			if err == nil {
				err = agentfiles.NewError(agentfiles.CodeNotFound, "nothing exists at this path; search \"\" for the whole project, or file_list the parent directory", r.dir)
			}
			return err
		}
	}
	prefix := dirPrefix(r.dir)
	if lg, ok := tx.(driver.LiteralGrepper); ok && r.literals != nil && r.start.Line == 0 {
		if answered, err := r.searchLiterals(ctx, lg, prefix); answered || err != nil {
			return err
		}
	}
	if r.start.Line > 0 {
		info, ok, err := tx.Stat(ctx, r.start.Path)
		if err != nil {
			return err
		}
		if ok && strings.HasPrefix(info.Path, prefix) && r.keeps(info.Path) {
			if err := r.examine(ctx, tx, []driver.FileInfo{info}, r.start.Line); err != nil || r.stopped {
				return err
			}
		}
		r.done = searchCursor{Path: r.start.Path}
	}
	next := r.candidates(tx, prefix)
	after := r.done.Path
	for !r.stopped {
		cands, err := next(ctx, after)
		if err != nil || (len(cands) == 0 && !r.filtered.Stopped) {
			return err
		}
		var kept []driver.FileInfo
		for _, c := range cands {
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.keeps(c.Path) {
				kept = append(kept, c)
			}
		}
		if err := r.examine(ctx, tx, kept, 0); err != nil {
			return err
		}
		if len(cands) > 0 {
			after = cands[len(cands)-1].Path
		}
		after = max(after, r.filtered.Through) // the store read past its last candidate
		if !r.stopped {
			r.done = searchCursor{Path: after}
		}
		if r.filtered.Stopped {
			r.stop(fmt.Sprintf("the search read its budget of %d bytes of file content", r.bounds.scanBytes))
			return nil
		}
		if len(cands) < grepCandidateBatch {
			return nil
		}
	}
	return nil
}

// searchLiterals has the store find the files with a matching line, and count the lines,
// in batches in path order: no content leaves the store. Every file it returns counts as
// scanned, within the scan and time budgets as files read here do. It is false when the store
// declined, and the Service reads the files itself.
func (r *grepRun) searchLiterals(ctx context.Context, lg driver.LiteralGrepper, prefix string) (bool, error) {
	for !r.stopped {
		if r.res.ScannedFiles > 0 && time.Now().After(r.deadline) {
			r.stop(fmt.Sprintf("the search used its time budget of %s", r.bounds.timeout))
			break
		}
		budget := r.bounds.scanBytes - r.res.ScannedBytes
		if budget <= 0 {
			r.stop(fmt.Sprintf("the search read its budget of %d bytes of file content", r.bounds.scanBytes))
			break
		}
		found, ok, err := lg.GrepLiterals(ctx, driver.LiteralGrep{Prefix: prefix, After: r.done.Path, Literals: r.literals.literals,
			IgnoreCase: r.literals.fold, CountLines: r.mode == GrepCount, Limit: grepCandidateBatch, Deadline: r.deadline,
			MaxReadBytes: budget})
		if err != nil || !ok {
			return ok, err
		}
		var read int64
		for _, f := range found {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			r.res.ScannedFiles++
			r.res.ScannedBytes += f.SizeBytes
			read += f.SizeBytes
			if r.keeps(f.Path) && !r.report(f.Path, f.Lines) {
				return true, nil
			}
			r.done = searchCursor{Path: f.Path}
		}
		if len(found) < grepCandidateBatch && read < budget {
			break // the store found no more
		}
	}
	return true, nil
}

// candidates returns the function that lists the next batch of candidate files after a path:
// from the store's index when it has one, else from one listing of the directory.
func (r *grepRun) candidates(tx driver.ReadTx, prefix string) func(context.Context, string) ([]driver.FileInfo, error) {
	if cs, ok := tx.(driver.ContentSearcher); ok {
		r.indexed = true
		return func(ctx context.Context, after string) ([]driver.FileInfo, error) {
			r.filtered = driver.CandidateRead{}
			cands, err := cs.GrepCandidates(ctx, driver.GrepCandidates{Prefix: prefix, After: after, Query: r.m.query,
				Limit: grepCandidateBatch, Deadline: r.deadline, Read: &r.filtered,
				MaxReadBytes: max(1, r.bounds.scanBytes-r.res.ScannedBytes)})
			r.res.ScannedBytes += r.filtered.Bytes
			return cands, err
		}
	}
	return listPages(tx, prefix, r.deadline)
}

// keeps reports whether the glob keeps the file at path.
func (r *grepRun) keeps(path string) bool {
	return r.glob == nil || r.glob.MatchFile(r.dir, path)
}

// examine reads and searches files (sorted by path) in groups, within the budgets; the first
// one from line fromLine on (0: all of it).
func (r *grepRun) examine(ctx context.Context, tx driver.ReadTx, files []driver.FileInfo, fromLine int) error {
	for i := 0; i < len(files) && !r.stopped; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.res.ScannedFiles > 0 && time.Now().After(r.deadline) {
			r.stop(fmt.Sprintf("the search used its time budget of %s", r.bounds.timeout))
			return nil
		}
		j, group := i, int64(0)
		for j < len(files) && j-i < grepFetchFiles && (j == i || group+files[j].SizeBytes <= grepFetchBytes) {
			if r.res.ScannedFiles > 0 || j > i {
				if r.res.ScannedBytes+group+files[j].SizeBytes > r.bounds.scanBytes {
					break
				}
			}
			group += files[j].SizeBytes
			j++
		}
		if j == i {
			r.stop(fmt.Sprintf("the search read its budget of %d bytes of file content", r.bounds.scanBytes))
			return nil
		}
		paths := make([]string, j-i)
		for k := range paths {
			paths[k] = files[i+k].Path
		}
		got, err := driver.GetMany(ctx, tx, paths)
		if err != nil {
			return err
		}
		scans := r.prescan(ctx, got, files[0].Path, fromLine)
		for k, f := range got {
			if r.stopped {
				break
			}
			from := 0
			if f.Path == files[0].Path {
				from = fromLine
			}
			r.file(ctx, f, from, scans[k])
		}
		i = j
	}
	return nil
}

// file searches one file from line fromLine on. Between chunks of lines it looks at the
// call's context and time budget: in content mode it may stop part way through the file, with
// a cursor at the last line searched; in the other modes a file's entry needs all of it, so it
// stops where the file began (the call then fails with TIMEOUT if it had found nothing yet).
// pre is the matcher's report on the file recorded in parallel, or nil.
func (r *grepRun) file(ctx context.Context, f driver.File, fromLine int, pre *fileScan) {
	r.res.ScannedFiles++
	// A byte order mark is no part of the first line, as rg strips it.
	c := bytes.TrimPrefix(f.Content, []byte("\uFEFF"))
	if pre.isBinary(c) || (!r.indexed && !r.m.query.Matches(c)) {
		r.res.ScannedBytes += int64(len(f.Content))
		r.done = searchCursor{Path: f.Path}
		return
	}
	// Resume after line fromLine: skip to where the next line starts.
	from := 0
	for k := 0; k < fromLine && from <= len(c); k++ {
		nl := bytes.IndexByte(c[from:], '\n')
		if nl < 0 {
			from = len(c) + 1
			break
		}
		from += nl + 1
	}
	if from > len(c) {
		r.res.ScannedBytes += int64(len(f.Content))
		r.done = searchCursor{Path: f.Path}
		return
	}
	r.res.ScannedBytes += int64(len(f.Content) - len(c)) // the byte order mark
	count, lineNo, counted, scanned := 0, fromLine+1, from, from
	advance := func(pos int) { // lineNo: the line that holds offset pos
		lineNo += bytes.Count(c[counted:pos], []byte{'\n'})
		counted = pos
	}
	pre.matchingLines(r.m, c, from, lineScan{
		match: func(start, end int) bool {
			advance(start)
			switch r.mode {
			case GrepFilesWithMatches:
				count = 1
				return false
			case GrepCount:
				count++
				return true
			}
			return r.addMatch(f.Path, c, start, end, lineNo)
		},
		pause: func(pos int) bool {
			r.res.ScannedBytes += int64(pos - scanned)
			scanned = pos
			why := ""
			switch {
			case ctx.Err() != nil:
				why = "the call ended"
			case time.Now().After(r.deadline):
				why = fmt.Sprintf("the search used its time budget of %s", r.bounds.timeout)
			case r.mode == GrepContent && r.res.ScannedBytes > r.bounds.scanBytes:
				why = fmt.Sprintf("the search read its budget of %d bytes of file content", r.bounds.scanBytes)
			default:
				return true
			}
			if r.mode == GrepContent {
				advance(pos)
				r.done = searchCursor{Path: f.Path, Line: lineNo - 1}
			}
			r.stop(why)
			return false
		},
		skip: func(start, end int) {
			advance(start)
			r.skipped = append(r.skipped, fmt.Sprintf("%s:%d (%d bytes)", f.Path, lineNo, end-start))
		},
	})
	if r.stopped {
		return
	}
	r.res.ScannedBytes += int64(len(c) - scanned)
	if r.mode != GrepContent && count > 0 && !r.report(f.Path, count) {
		return
	}
	r.done = searchCursor{Path: f.Path}
}

// report adds the entry of a file with count matching lines in the files_with_matches or
// count mode; false when the answer is full (the search stopped before the file).
func (r *grepRun) report(path string, count int) bool {
	if r.mode == GrepFilesWithMatches {
		if !r.admit(int64(r.size.str(path) + r.size.punct(1))) {
			return false
		}
		r.res.Files = append(r.res.Files, path)
		return true
	}
	if !r.admit(int64(r.size.str(path) + r.size.punct(32))) {
		return false
	}
	r.res.Counts = append(r.res.Counts, GrepFileCount{Path: path, Count: count})
	return true
}

// addMatch reports the line [start, end) of content, number lineNo, with its context; false
// when the answer is full.
func (r *grepRun) addMatch(path string, c []byte, start, end, lineNo int) bool {
	m := GrepMatch{Path: path, LineNumber: lineNo}
	m.Line, m.LineTruncated = cutLine(c[start:end])
	for k, pos := 0, start; k < r.before && pos > 0; k++ {
		ls := bytes.LastIndexByte(c[:pos-1], '\n') + 1
		line, cut := cutLine(c[ls : pos-1])
		m.Before = append([]string{line}, m.Before...)
		m.LineTruncated = m.LineTruncated || cut
		pos = ls
	}
	for k, pos := 0, end; k < r.after && pos+1 < len(c); k++ {
		le := bytes.IndexByte(c[pos+1:], '\n')
		if le < 0 {
			le = len(c)
		} else {
			le += pos + 1
		}
		line, cut := cutLine(c[pos+1 : le])
		m.After = append(m.After, line)
		m.LineTruncated = m.LineTruncated || cut
		pos = le
	}
	// The cap counts the answer as sent, JSON escapes included (twice over MCP); the first
	// match, which must get in for the search to move on, is cut to fit.
	if r.entries == 0 && m.fit(r.size, r.bounds.answerBytes) {
		r.cutFirst = true
	}
	if !r.admit(m.size(r.size)) {
		return false
	}
	r.res.Matches = append(r.res.Matches, m)
	r.done = searchCursor{Path: path, Line: lineNo}
	return true
}

// admit counts one more entry of size bytes, or stops the search when the answer is full: the
// entry is then left for the next call.
func (r *grepRun) admit(size int64) bool {
	switch {
	case r.entries >= r.limit:
		r.stop(fmt.Sprintf("only the first %d entries are shown", r.limit))
		return false
	case r.entries > 0 && r.answerBytes+size > r.bounds.answerBytes:
		r.stop(fmt.Sprintf("the answer reached its size cap of %d bytes", r.bounds.answerBytes))
		return false
	}
	r.entries++
	r.answerBytes += size
	return true
}

// stop ends the search with a cursor at the progress so far.
func (r *grepRun) stop(why string) {
	if r.stopped {
		return
	}
	r.stopped = true
	r.res.Truncated = true
	r.res.NextCursor = r.done.encode(r.fingerprint)
	r.res.Note = why + "; continue with cursor=next_cursor, or narrow the search with a path, a glob or more literal text in the pattern"
	r.noteSkipped()
}

// noteSkipped adds to the note what the answer leaves out besides its cursor: a first match
// cut to fit the answer cap, and lines too long for the pattern (they were not searched).
func (r *grepRun) noteSkipped() {
	if r.cutFirst {
		cut := fmt.Sprintf("the first match was cut to fit the answer cap of %d bytes (JSON as sent): read its lines with file_read", r.bounds.answerBytes)
		if r.res.Note != "" {
			cut = r.res.Note + ". " + cut
		}
		r.res.Note = cut
	}
	if len(r.skipped) == 0 {
		return
	}
	shown := r.skipped[:min(len(r.skipped), 5)]
	note := fmt.Sprintf("%d lines were not searched, too long for this pattern (at most %d bytes): %s",
		len(r.skipped), r.m.maxLine, strings.Join(shown, ", "))
	if len(shown) < len(r.skipped) {
		note += ", …"
	}
	note += "; search them with fixed_strings or a pattern with more literal text"
	if r.res.Note != "" {
		note = r.res.Note + ". " + note
	}
	r.res.Note = note
}

// finish gives the mode's entries their empty value when nothing matched.
func (r *grepRun) finish() {
	if !r.stopped {
		r.noteSkipped()
	}
	switch r.mode {
	case GrepFilesWithMatches:
		if r.res.Files == nil {
			r.res.Files = []string{}
		}
	case GrepCount:
		if r.res.Counts == nil {
			r.res.Counts = []GrepFileCount{}
		}
	default:
		if r.res.Matches == nil {
			r.res.Matches = []GrepMatch{}
		}
	}
}

// cutLine returns line as a string, cut at MaxGrepLineBytes on a character boundary.
func cutLine(line []byte) (string, bool) {
	if len(line) <= MaxGrepLineBytes {
		return string(line), false
	}
	return utf8cut.Cut(string(line[:min(len(line), MaxGrepLineBytes+utf8.UTFMax)]), MaxGrepLineBytes)
}
