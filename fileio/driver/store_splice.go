package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// Splicer is an optional interface of a WriteTx that edits a file where it is stored, so that
// Service.Edit of one exact-match replacement moves only the searched text, a window of
// context for the diff, and the replacement (pgstore: position() and overlay() in SQL, the
// content never leaves the database; a 1 MiB file costs what its few changed lines do).
// Service.Edit falls back to Get and Put whenever the window is not enough (ambiguous matches,
// lines longer than the window, several edits, the insert form, replace_all). Both paths give
// the same results; fileio/storetest runs the Edit suite with and without it.
type Splicer interface {
	// Locate reports what an edit that replaces needle in the active file at path depends on:
	// the file's info, its SHA-256 when wantSHA256, the byte offsets of the first two
	// non-overlapping occurrences of needle, and the content from radius bytes before the
	// first occurrence to radius bytes after its end (clamped to the file), with the 1-based
	// line number of the window's first byte. Exists is false when no active file is at path.
	// A store whose search may cost the file's size times the needle's length (PostgreSQL's
	// position() does) does not search when that product exceeds maxScan, and answers with
	// Searched false; the Service then searches the content itself, in linear time.
	Locate(ctx context.Context, path string, needle []byte, radius, maxScan int64, wantSHA256 bool) (Located, error)
	// Splice replaces length bytes at offset of the active file at path by data, as a Put of
	// the resulting content would (with its history and index job), and returns the new info
	// and the content's SHA-256. With dryRun it changes nothing and returns what the file
	// would be: its size and SHA-256 (UpdatedAt zero).
	Splice(ctx context.Context, path string, offset, length int64, data []byte, dryRun bool, opts PutOptions) (FileInfo, string, error)
}

// Located is a Splicer's answer to Locate.
type Located struct {
	Exists      bool
	Searched    bool // false: the store left the search to the caller (see maxScan)
	Info        FileInfo
	SHA256      string  // when asked for
	Matches     []int64 // offsets of the first (at most two) non-overlapping occurrences
	Window      []byte  // content[WindowStart : WindowStart+len(Window)] when there is a match
	WindowStart int64
	WindowLine  int // the 1-based line of the byte at WindowStart
}

// LocateIn answers Splicer.Locate from the content itself. Stores that keep the content in
// memory (memstore) use it.
func LocateIn(info FileInfo, content, needle []byte, radius int64, wantSHA256 bool) Located {
	loc := Located{Exists: true, Searched: true, Info: info}
	if wantSHA256 {
		sum := sha256.Sum256(content)
		loc.SHA256 = hex.EncodeToString(sum[:])
	}
	first := bytes.Index(content, needle)
	if first < 0 || len(needle) == 0 {
		return loc
	}
	loc.Matches = []int64{int64(first)}
	if second := bytes.Index(content[first+len(needle):], needle); second >= 0 {
		loc.Matches = append(loc.Matches, int64(first+len(needle)+second))
	}
	start := max(int64(first)-radius, 0)
	end := min(int64(first+len(needle))+radius, int64(len(content)))
	loc.Window, loc.WindowStart = content[start:end], start
	loc.WindowLine = 1 + bytes.Count(content[:start], []byte{'\n'})
	return loc
}
