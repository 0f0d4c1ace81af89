package fileio

import (
	"bytes"
	"context"
	"time"

	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/parallel"
)

// grepParallelBytes: a group of fetched files with less content than this is matched on the
// calling goroutine, where starting workers would cost more than they save. (A variable so
// that a test can force either way.)
var grepParallelBytes = 256 << 10

// fileScan is what the line matcher reported on one file, recorded on a worker goroutine so
// that grepRun.file can replay it in path order: the same calls to the same lineScan, with the
// same answers from it, as if the matcher ran there. A nil *fileScan runs the matcher in
// place.
type fileScan struct {
	binary bool
	events []scanEvent
	// resume is where the recording stopped before the end of the file, at a line start
	// (the time budget ran out, the call ended, or the matches reached the cap); -1 when it
	// ran to the end or to the first match in files_with_matches mode.
	resume int
}

// scanEvent is one call to a lineScan: match (n times, with the range of the last of n
// consecutive matching lines, which is all count mode needs), pause or skip.
type scanEvent struct {
	kind       scanEventKind
	start, end int
	n          int
}

type scanEventKind uint8

const (
	eventMatch scanEventKind = iota
	eventPause
	eventSkip
)

// prescan matches the files of one fetched group on the free CPUs (internal/parallel) and
// returns one fileScan per file (nil for the file the caller's cursor resumes part way
// through, and for all of them when the group is too small to pay).
func (r *grepRun) prescan(ctx context.Context, got []driver.File, resumed string, fromLine int) []*fileScan {
	scans := make([]*fileScan, len(got))
	total := 0
	for _, f := range got {
		total += len(f.Content)
	}
	if total < grepParallelBytes || len(got) < 2 {
		return scans
	}
	// In content mode no more matches than the answer can still take are recorded; the one
	// after them stops the replay.
	maxMatches := r.limit - r.entries + 1
	parallel.For(len(got), func(k int) {
		if got[k].Path == resumed && fromLine > 0 {
			return
		}
		scans[k] = r.m.record(ctx, bytes.TrimPrefix(got[k].Content, []byte("\uFEFF")), r.mode, r.deadline, maxMatches)
	})
	return scans
}

// record runs the line matcher over content (a file without its byte order mark) and
// records what it reports; it stops where the context ends or the deadline passes (at a
// pause), at the first match in files_with_matches mode and at maxMatches in content mode.
func (m *lineMatcher) record(ctx context.Context, content []byte, mode GrepOutputMode, deadline time.Time, maxMatches int) *fileScan {
	s := &fileScan{resume: -1}
	if binary(content) {
		s.binary = true
		return s
	}
	matches := 0
	m.matchingLines(content, 0, lineScan{
		match: func(start, end int) bool {
			matches++
			if last := len(s.events) - 1; mode == GrepCount && last >= 0 && s.events[last].kind == eventMatch {
				s.events[last].start, s.events[last].end = start, end
				s.events[last].n++
				return true
			}
			s.events = append(s.events, scanEvent{kind: eventMatch, start: start, end: end, n: 1})
			switch {
			case mode == GrepFilesWithMatches:
				return false
			case mode == GrepContent && matches >= maxMatches:
				s.resume = end + 1
				return false
			}
			return true
		},
		pause: func(pos int) bool {
			s.events = append(s.events, scanEvent{kind: eventPause, start: pos})
			if ctx.Err() != nil || time.Now().After(deadline) {
				s.resume = pos
				return false
			}
			return true
		},
		skip: func(start, end int) {
			s.events = append(s.events, scanEvent{kind: eventSkip, start: start, end: end})
		},
	})
	return s
}

// isBinary reports whether content (the file's, without byte order mark) holds a NUL byte.
func (s *fileScan) isBinary(content []byte) bool {
	if s == nil {
		return binary(content)
	}
	return s.binary
}

// matchingLines is m.matchingLines(content, from, scan) (from is 0 for a recorded file): it
// replays the recording, and where the recording stopped early while scan still wants more, it
// runs the matcher on from there.
func (s *fileScan) matchingLines(m *lineMatcher, content []byte, from int, scan lineScan) {
	if s == nil {
		m.matchingLines(content, from, scan)
		return
	}
	for _, e := range s.events {
		switch e.kind {
		case eventMatch:
			for range e.n {
				if !scan.match(e.start, e.end) {
					return
				}
			}
		case eventPause:
			if scan.pause != nil && !scan.pause(e.start) {
				return
			}
		case eventSkip:
			if scan.skip != nil {
				scan.skip(e.start, e.end)
			}
		}
	}
	if s.resume >= 0 && s.resume <= len(content) {
		m.matchingLines(content, s.resume, scan)
	}
}
