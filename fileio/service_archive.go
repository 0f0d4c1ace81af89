package fileio

import (
	"io"

	"github.com/agentfiles/agentfiles/fileio/archive"
)

// ImportMode says what Import does with the files already below its directory.
type ImportMode string

// The import modes.
const (
	// ImportMerge (the default) writes the archive's files and leaves the others.
	ImportMerge ImportMode = "merge"
	// ImportReplace makes the directory equal to the archive: files below it that the
	// archive does not hold are deleted (into history, as file_delete does).
	ImportReplace ImportMode = "replace"
)

// ImportRequest is a Service.Import call (file_import, PUT /archive/{project}).
type ImportRequest struct {
	Project string
	// Path is the directory the archive's entries go below ("" or "/" for the project root):
	// entry "docs/a.md" imported at "/site" is "/site/docs/a.md".
	Path string
	Mode ImportMode // "" is ImportMerge
	// Strict refuses the whole archive when a file is not UTF-8 text or an entry is a link;
	// without it such entries are skipped and listed in ImportResult.Skipped.
	Strict bool
	// IndexNow indexes the new files for grep in the import itself, so that the import
	// answers once a grep can read them from the store's index (pgstore: their trigrams, about
	// 90% of such an import's time, 10 times slower; it also refreshes the planner's
	// statistics after a large import). By default the store's background indexer indexes them,
	// as after writes; grep answers are the same either way, and pgstore's grep cache holds
	// what the import wrote, so a grep right after it on the same process reads memory. Set it
	// when greps of the project go to the trigram index: a project larger than
	// pgstore.Options.GrepCacheBytes, or a Store without the cache.
	IndexNow bool
	// Archive is the tar, tar.gz or zip stream (detected from its first bytes), read once.
	Archive io.Reader
}

// ImportResult is what an Import did.
type ImportResult struct {
	Format   string `json:"format"`  // tar, tar.gz or zip
	Path     string `json:"path"`    // the directory imported into ("" for the root)
	Files    int    `json:"files"`   // files written
	Created  int    `json:"created"` // of Files, new paths
	Replaced int    `json:"replaced"`
	Deleted  int    `json:"deleted"` // files deleted by ImportReplace
	Bytes    int64  `json:"bytes"`   // bytes written
	// Skipped lists the entries left out, the first MaxSkippedListed of them; SkippedTotal
	// counts them all.
	Skipped      []SkippedImport `json:"skipped,omitempty"`
	SkippedTotal int             `json:"skipped_total,omitempty"`
}

// MaxSkippedListed bounds ImportResult.Skipped, so that an archive of many links or binary
// files does not make a large answer.
const MaxSkippedListed = 100

// SkippedImport is an archive entry Import left out, and why.
type SkippedImport struct {
	Entry  string `json:"entry"` // the name as the archive spells it
	Path   string `json:"path"`  // the path it would have had
	Reason string `json:"reason"`
}

// ExportRequest is a Service.Export call (file_export, GET /archive/{project}).
type ExportRequest struct {
	Project string
	// Path is the directory to export ("" for the whole project), or one file. Entry names
	// are relative to it, so importing the archive at the same Path gives the same paths.
	Path string
	// Glob keeps only the files whose path matches (see Glob, as in file_grep); "" keeps all.
	Glob   string
	Format archive.Format // "" is tar
}

// ExportResult is what an Export wrote.
type ExportResult struct {
	Format string `json:"format"`
	Files  int    `json:"files"`
	Bytes  int64  `json:"bytes"` // the files' bytes, before compression
}
