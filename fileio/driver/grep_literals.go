package driver

import (
	"context"
	"time"
)

// LiteralGrep is a grep whose whole condition is literal text: a line matches when it
// contains at least one of Literals. Service.Grep asks it of a LiteralGrepper for the
// files_with_matches and count modes of a pattern that is exactly such a condition (a literal,
// an ignore-case literal, an alternation of literals), so that the store answers without
// sending contents. Lines are as ripgrep has them: the text between two "\n" (a "\r" before
// the "\n" is part of the line), and files that hold a NUL byte are skipped.
type LiteralGrep struct {
	// Prefix is the string prefix of the paths to consider ("/docs/"; "/" for all).
	Prefix string
	// After, when not empty, keeps only paths that sort after it (bytewise).
	After string
	// Literals are at least one non-empty string, each valid UTF-8 without "\n", NUL or
	// U+FEFF (so a byte order mark never decides a match).
	Literals []string
	// IgnoreCase compares ASCII letters case-insensitively (Literals are then lower case) and
	// every other character exactly, as ContentQuery's ignore-case literals do.
	IgnoreCase bool
	// CountLines asks for the number of matching lines of each file; without it Lines is
	// any number >= 1.
	CountLines bool
	// Limit is the most files to return (> 0).
	Limit int
	// Deadline, when not zero, bounds the store's work as in GrepCandidates.
	Deadline time.Time
	// MaxReadBytes, when > 0, bounds the files returned: a store adds files in path order
	// while the ones before hold fewer than MaxReadBytes bytes together (at least one file).
	MaxReadBytes int64
}

// LiteralFile is a file with at least one matching line, and how many it has (see
// LiteralGrep.CountLines).
type LiteralFile struct {
	FileInfo
	Lines int
}

// LiteralGrepper is an optional interface of a ReadTx that answers a LiteralGrep where the
// files are stored (pgstore: the trigram index finds the files and LIKE in SQL, which is exact
// for literal text, checks and counts their lines). Without it, Service.Grep reads the
// candidates and matches them itself; both give identical answers.
type LiteralGrepper interface {
	// GrepLiterals returns the active files whose path starts with g.Prefix and sorts after
	// g.After that hold a matching line, in path order, at most g.Limit of them and within
	// g.MaxReadBytes. Fewer than g.Limit files within g.MaxReadBytes means there are no more.
	// It may decline (false, and no files) when it cannot answer cheaper than reading the
	// files would (pgstore: no literal has a trigram for its index); whether it declines
	// depends on g.Literals and g.IgnoreCase alone.
	GrepLiterals(ctx context.Context, g LiteralGrep) ([]LiteralFile, bool, error)
}
