package fileio

import (
	"fmt"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles"
)

// charBoundary reports whether off is a UTF-8 character boundary of b (0 and len(b) are).
// b is assumed to be valid UTF-8.
func charBoundary(b []byte, off int64) bool {
	if off <= 0 || off >= int64(len(b)) {
		return true
	}
	return utf8.RuneStart(b[off])
}

// boundaryBefore returns the largest character boundary <= off.
func boundaryBefore(b []byte, off int64) int64 {
	if off >= int64(len(b)) {
		return int64(len(b))
	}
	for off > 0 && !utf8.RuneStart(b[off]) {
		off--
	}
	return off
}

// boundaryAfter returns the smallest character boundary >= off.
func boundaryAfter(b []byte, off int64) int64 {
	for off < int64(len(b)) && !utf8.RuneStart(b[off]) {
		off++
	}
	return off
}

// splitCharError is the INVALID_OFFSET error for an offset inside a multi-byte character.
func splitCharError(what string, b []byte, off int64, path string) *agentfiles.Error {
	return agentfiles.NewError(CodeInvalidOffset, fmt.Sprintf(
		"%s %d is inside a multi-byte UTF-8 character; the nearest valid offsets are %d and %d",
		what, off, boundaryBefore(b, off), boundaryAfter(b, off)), path)
}
