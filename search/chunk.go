package search

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/search/indexdriver"
)

// ChunkerOptions size chunks; the zero value gives the defaults. Sizes are in BYTES of UTF-8 text (not characters, not tokens);
// at roughly four bytes per English token the default 1200 bytes is about 300 tokens.
type ChunkerOptions struct {
	// TargetBytes is the largest chunk, in bytes (default 1200, minimum 16). A chunk is cut at
	// the best boundary found in its last half: a blank line, else a line end, else a sentence
	// end, else a space, else the last whole UTF-8 character that fits.
	TargetBytes int
	// OverlapBytes is how many bytes (at most) of the end of one chunk are repeated at the start
	// of the next, so that a phrase on a boundary is found whole (0 means the default 150, a
	// negative value means no overlap; clamped to below TargetBytes/2). The next chunk starts on
	// a word boundary inside that overlap.
	OverlapBytes int
}

// Default chunk sizes.
const (
	DefaultChunkTargetBytes  = 1200
	DefaultChunkOverlapBytes = 150
	minChunkTargetBytes      = 16
)

// Chunker splits file content into [indexdriver.Chunk]s with exact byte offsets. The zero value uses the
// defaults. A Chunker is immutable and safe for concurrent use.
type Chunker struct {
	opts ChunkerOptions
}

// NewChunker returns a Chunker for opts, filling zero fields with defaults and clamping the rest.
func NewChunker(opts ChunkerOptions) Chunker {
	if opts.TargetBytes <= 0 {
		opts.TargetBytes = DefaultChunkTargetBytes
	}
	if opts.TargetBytes < minChunkTargetBytes {
		opts.TargetBytes = minChunkTargetBytes
	}
	switch {
	case opts.OverlapBytes == 0:
		opts.OverlapBytes = DefaultChunkOverlapBytes
	case opts.OverlapBytes < 0:
		opts.OverlapBytes = 0
	}
	if opts.OverlapBytes >= opts.TargetBytes/2 {
		opts.OverlapBytes = opts.TargetBytes/2 - 1
	}
	return Chunker{opts: opts}
}

// Options returns the effective sizes.
func (c Chunker) Options() ChunkerOptions {
	if c.opts.TargetBytes == 0 {
		return ChunkerOptions{TargetBytes: DefaultChunkTargetBytes, OverlapBytes: DefaultChunkOverlapBytes}
	}
	return c.opts
}

// Split cuts content into chunks. Every byte of content lies in at least one chunk, chunks are
// in file order, consecutive chunks overlap by at most OverlapBytes, no offset splits a UTF-8
// character (for valid UTF-8 input), and content[c.StartByte:c.EndByte] == c.Text. Empty
// content yields no chunks.
func (c Chunker) Split(content string) []indexdriver.Chunk {
	opts := c.Options()
	var chunks []indexdriver.Chunk
	start := 0
	for start < len(content) {
		end := len(content)
		if end-start > opts.TargetBytes {
			end = cutPoint(content, start, start+opts.TargetBytes)
		}
		text := content[start:end]
		sum := sha256.Sum256([]byte(text))
		chunks = append(chunks, indexdriver.Chunk{
			Index:       len(chunks),
			StartByte:   int64(start),
			EndByte:     int64(end),
			Text:        text,
			ContentHash: hex.EncodeToString(sum[:]),
		})
		if end == len(content) {
			break
		}
		start = nextStart(content, start, end, opts.OverlapBytes)
	}
	return chunks
}

// cutPoint returns the end of a chunk that starts at start and may not pass limit
// (limit < len(s)). It prefers, in order, a blank line, a line end, a sentence end and a space
// inside the second half of the window; otherwise the last character boundary at or before limit.
func cutPoint(s string, start, limit int) int {
	floor := start + (limit-start)/2
	window := s[floor:limit]
	// Blank line: cut after "\n\n" (any further blank lines start the next chunk).
	if i := strings.LastIndex(window, "\n\n"); i >= 0 {
		return floor + i + 2
	}
	if i := strings.LastIndexByte(window, '\n'); i >= 0 {
		return floor + i + 1
	}
	if i := lastSentenceEnd(window); i >= 0 {
		return floor + i
	}
	if i := strings.LastIndexAny(window, " \t"); i >= 0 {
		return floor + i + 1
	}
	end := limit
	for end > start+1 && !utf8.RuneStart(s[end]) {
		end-- // TargetBytes >= 16 > utf8.UTFMax, so a boundary is always found
	}
	return end
}

// lastSentenceEnd returns the index just after the space that follows the last '.', '!' or '?'
// in w, or -1.
func lastSentenceEnd(w string) int {
	for i := len(w) - 2; i >= 0; i-- {
		switch w[i] {
		case '.', '!', '?':
			if w[i+1] == ' ' {
				return i + 2
			}
		}
	}
	return -1
}

// nextStart returns where the chunk after [start, end) begins: at most overlap bytes before end,
// moved forward to just after a space or line end when one is in the overlap, always on a
// character boundary and always after start.
func nextStart(s string, start, end, overlap int) int {
	if overlap <= 0 {
		return end
	}
	next := end - overlap
	if next <= start {
		next = start + 1
	}
	if i := strings.IndexAny(s[next:end], " \t\n"); i >= 0 {
		next += i + 1
	}
	for next < end && !utf8.RuneStart(s[next]) {
		next++
	}
	return next
}
