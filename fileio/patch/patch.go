package patch

import (
	"strings"

	"github.com/agentfiles/agentfiles"
)

// Codes of this package. NO_MATCH is the code fileio's Edit gives a text it cannot find.
var (
	// CodeInvalidPatch: the text is not a patch of a known dialect, or a header or line of it
	// is malformed; the message names the line of the patch.
	CodeInvalidPatch = agentfiles.NewCode("INVALID_PATCH", agentfiles.KindInvalid)
	// CodeNoMatch: a chunk's lines (or its @@ anchor) are not in the file.
	CodeNoMatch = agentfiles.NewCode("NO_MATCH", agentfiles.KindUnprocessable)
)

// Codes lists the codes this package returns.
func Codes() []agentfiles.Code {
	return []agentfiles.Code{CodeInvalidPatch, CodeNoMatch, agentfiles.CodeInvalidArgument, agentfiles.CodeTimeout, agentfiles.CodeCanceled}
}

// Dialect names the form a patch was written in.
type Dialect string

// The dialects.
const (
	DialectV4A        Dialect = "v4a"
	DialectUnified    Dialect = "unified"
	DialectOperations Dialect = "operations"
)

// Op is what a FilePatch does to its file.
type Op string

// The operations.
const (
	OpAdd    Op = "add"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
)

// Patch is a parsed patch: the files it changes, in the order it names them.
type Patch struct {
	Dialect Dialect
	Files   []FilePatch
}

// FilePatch is the change of one file.
type FilePatch struct {
	Op     Op
	Path   string // as the patch writes it, e.g. "src/a.go" (see CleanPath)
	MoveTo string // OpUpdate: the new path, "" when the file stays
	// Content is the whole content of an added file (OpAdd).
	Content string
	// Chunks are the changes of an updated file, in file order (OpUpdate); for a unified
	// OpDelete, the lines the file must hold (checked before it goes), else none.
	Chunks []Chunk
	Line   int // the patch line of the file's header (1-based)
}

// Kind is the role of one line of a chunk.
type Kind byte

// The line kinds, written as in the patch.
const (
	Context Kind = ' '
	Removed Kind = '-'
	Added   Kind = '+'
)

// Line is one line of a chunk, without its line ending.
type Line struct {
	Kind Kind
	Text string
}

// Chunk is one @@ section of an updated file.
type Chunk struct {
	// Anchor is the text after "@@ " in V4A: a line (such as a function's signature) found
	// before the chunk's lines, which are then searched below it. "" for none.
	Anchor string
	Lines  []Line
	// EndOfFile: the old lines end the file (V4A *** End of File, or a unified hunk whose
	// old side has no final newline).
	EndOfFile bool
	// OldStart is a unified hunk's 1-based old line number (a hint; 0 for none).
	OldStart int
	// OldNoNewline and NewNoNewline: "\ No newline at end of file" followed the last old
	// line, or the last new line (unified only).
	OldNoNewline, NewNoNewline bool
	// PatchLine is the patch line where the chunk starts (1-based).
	PatchLine int
}

// Old returns the lines the chunk expects in the file: its context and removed lines.
func (c Chunk) Old() []string { return c.side(Added) }

// New returns the lines the chunk leaves: its context and added lines.
func (c Chunk) New() []string { return c.side(Removed) }

func (c Chunk) side(skip Kind) []string {
	out := make([]string, 0, len(c.Lines))
	for _, l := range c.Lines {
		if l.Kind != skip {
			out = append(out, l.Text)
		}
	}
	return out
}

// CleanPath turns a path as models write it into the form of fileio's paths: "src/a.go",
// "./src/a.go" and "/src/a.go" all become "/src/a.go". It does not resolve "." or ".."
// segments: fileio.ValidatePath refuses them, so a path that would leave the project is an
// error rather than another file.
func CleanPath(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "./")
	if p == "" || strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

// Paths returns the paths a patch reads or writes, cleaned (CleanPath), each once, in the
// order of the patch.
func (p Patch) Paths() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range p.Files {
		for _, q := range []string{f.Path, f.MoveTo} {
			if q = CleanPath(q); q != "" && !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}
