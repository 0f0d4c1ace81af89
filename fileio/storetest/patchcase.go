package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/agentfiles/agentfiles/fileio/patch"
)

// PatchCase is a random change of a few files, written as a patch in each dialect, for
// differential tests of patch application: RandomPatchCase makes one, Before holds the files
// to store first, and applying the patch in a dialect (V4A, Unified, Operations) must leave
// exactly After(dialect).
type PatchCase struct {
	Before map[string]string // path ("/d0/f1.txt") → content before
	files  []caseFile
}

// caseFile is one file of a PatchCase.
type caseFile struct {
	op      patch.Op
	path    string   // "d0/f1.txt", as models write paths
	moveTo  string   // an update that also moves the file
	old     []string // logical lines before (no endings)
	new     []string // logical lines after
	edits   []caseEdit
	eol     string
	bom     bool
	noFinal bool // the file does not end with a newline
}

// caseEdit replaces old lines [at, at+del) by ins.
type caseEdit struct {
	at, del int
	ins     []string
}

// caseWords are the texts random lines are made of: punctuation the Unicode pass maps,
// indentation, quotes.
var caseWords = []string{`x := a - b`, `say("hello")`, `it's`, "\tindented", "    spaced", `// a comment — with a dash`, `plain text`, `{`, `}`}

// RandomPatchCase returns a change of one to four files: updates (one to three edits each,
// far enough apart that their context lines do not overlap), and now and then an added, a
// deleted or a moved file. Files use LF or CRLF, sometimes a byte order mark, sometimes no
// final newline; every line is unique, so a chunk matches in one place only.
func RandomPatchCase(rng *rand.Rand) PatchCase {
	c := PatchCase{Before: map[string]string{}}
	n := 1 + rng.IntN(4)
	fresh := 0
	line := func(file int) string {
		fresh++
		return fmt.Sprintf("%s %d.%d", caseWords[rng.IntN(len(caseWords))], file, fresh)
	}
	for i := range n {
		f := caseFile{path: fmt.Sprintf("d%d/f%d.txt", rng.IntN(2), i), eol: "\n"}
		if rng.IntN(3) == 0 {
			f.eol = "\r\n"
		}
		f.bom = rng.IntN(5) == 0
		f.noFinal = rng.IntN(5) == 0
		switch r := rng.IntN(10); {
		case r == 0:
			f.op = patch.OpAdd
			f.eol, f.bom, f.noFinal = "\n", false, false
		case r == 1:
			f.op = patch.OpDelete
		case r == 2:
			f.op, f.moveTo = patch.OpUpdate, fmt.Sprintf("moved/f%d.txt", i)
		default:
			f.op = patch.OpUpdate
		}
		if f.op != patch.OpAdd {
			for range 5 + rng.IntN(30) {
				f.old = append(f.old, line(i))
			}
			c.Before["/"+f.path] = f.render(f.old)
		}
		switch f.op {
		case patch.OpAdd:
			for range 1 + rng.IntN(6) {
				f.new = append(f.new, line(i))
			}
		case patch.OpUpdate:
			pos := rng.IntN(3)
			for range 1 + rng.IntN(3) {
				if pos >= len(f.old) {
					break
				}
				room := len(f.old) - pos
				if f.noFinal {
					room-- // the last line stays, so its missing newline needs no unified marker pair
				}
				e := caseEdit{at: pos, del: rng.IntN(min(4, room+1))}
				for range rng.IntN(4) {
					e.ins = append(e.ins, line(i))
				}
				if e.del == 0 && len(e.ins) == 0 {
					e.ins = []string{line(i)}
				}
				f.edits = append(f.edits, e)
				pos = e.at + e.del + 7 + rng.IntN(8)
			}
			f.new = f.applyEdits()
		}
		c.files = append(c.files, f)
	}
	return c
}

func (f caseFile) applyEdits() []string {
	var out []string
	cur := 0
	for _, e := range f.edits {
		out = append(out, f.old[cur:e.at]...)
		out = append(out, e.ins...)
		cur = e.at + e.del
	}
	return append(out, f.old[cur:]...)
}

// render writes lines with the file's line ending, byte order mark and final newline.
func (f caseFile) render(lines []string) string {
	var sb strings.Builder
	if f.bom {
		sb.WriteString("\uFEFF")
	}
	for i, l := range lines {
		sb.WriteString(l)
		if i < len(lines)-1 || !f.noFinal {
			sb.WriteString(f.eol)
		}
	}
	return sb.String()
}

// After returns every file after the patch in dialect: path → content. The operations
// dialect has no moves: there a moved file is updated in place.
func (c PatchCase) After(d patch.Dialect) map[string]string {
	files := map[string]string{}
	for k, v := range c.Before {
		files[k] = v
	}
	for _, f := range c.files {
		switch {
		case f.op == patch.OpDelete:
			delete(files, "/"+f.path)
		case f.moveTo != "" && d != patch.DialectOperations:
			delete(files, "/"+f.path)
			files["/"+f.moveTo] = f.render(f.new)
		default:
			files["/"+f.path] = f.render(f.new)
		}
	}
	return files
}

// context is how many lines of context chunks carry on each side.
const caseContext = 3

// hunk is one chunk of an update: old lines [from, to) with the edit inside them.
type caseHunk struct {
	from, to int
	e        caseEdit
}

func (f caseFile) hunks() []caseHunk {
	out := make([]caseHunk, len(f.edits))
	for i, e := range f.edits {
		out[i] = caseHunk{from: max(e.at-caseContext, 0), to: min(e.at+e.del+caseContext, len(f.old)), e: e}
	}
	return out
}

// chunkLines writes the body of hunk h: context, removed and added lines, each perturbed by
// perturb when it is context.
func (f caseFile) chunkLines(sb *strings.Builder, h caseHunk, perturb func(string) string) {
	for i := h.from; i < h.e.at; i++ {
		sb.WriteString(" " + perturb(f.old[i]) + "\n")
	}
	for i := h.e.at; i < h.e.at+h.e.del; i++ {
		sb.WriteString("-" + f.old[i] + "\n")
	}
	for _, l := range h.e.ins {
		sb.WriteString("+" + l + "\n")
	}
	for i := h.e.at + h.e.del; i < h.to; i++ {
		sb.WriteString(" " + perturb(f.old[i]) + "\n")
	}
}

// V4A returns the case as a V4A patch. With perturbed, context lines are written as models
// sometimes write them: trailing spaces added, indentation changed, ASCII dashes and quotes
// typed as typographic ones.
func (c PatchCase) V4A(perturbed bool) string {
	perturb := func(s string) string { return s }
	if perturbed {
		perturb = func(s string) string {
			s = strings.NewReplacer(" - ", " – ", `("`, `(“`, `")`, `”)`, "'", "’").Replace(s)
			return strings.TrimLeft(s, " \t") + "  "
		}
	}
	var sb strings.Builder
	sb.WriteString("*** Begin Patch\n")
	for _, f := range c.files {
		switch f.op {
		case patch.OpAdd:
			sb.WriteString("*** Add File: " + f.path + "\n")
			for _, l := range f.new {
				sb.WriteString("+" + l + "\n")
			}
		case patch.OpDelete:
			sb.WriteString("*** Delete File: " + f.path + "\n")
		case patch.OpUpdate:
			sb.WriteString("*** Update File: " + f.path + "\n")
			if f.moveTo != "" {
				sb.WriteString("*** Move to: " + f.moveTo + "\n")
			}
			for _, h := range f.hunks() {
				sb.WriteString("@@\n")
				f.chunkLines(&sb, h, perturb)
				if h.to == len(f.old) {
					sb.WriteString("*** End of File\n")
				}
			}
		}
	}
	sb.WriteString("*** End Patch\n")
	return sb.String()
}

// Unified returns the case as git diff writes it (a/ and b/ prefixes, /dev/null, rename
// from/to, "\ No newline at end of file").
func (c PatchCase) Unified() string {
	var sb strings.Builder
	for _, f := range c.files {
		from, to := f.path, f.path
		if f.moveTo != "" {
			to = f.moveTo
		}
		fmt.Fprintf(&sb, "diff --git a/%s b/%s\n", from, to)
		switch f.op {
		case patch.OpAdd:
			fmt.Fprintf(&sb, "new file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", to, len(f.new))
			for _, l := range f.new {
				sb.WriteString("+" + l + "\n")
			}
		case patch.OpDelete:
			fmt.Fprintf(&sb, "deleted file mode 100644\n--- a/%s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n", from, len(f.old))
			for _, l := range f.old {
				sb.WriteString("-" + l + "\n")
			}
			if f.noFinal {
				sb.WriteString("\\ No newline at end of file\n")
			}
		case patch.OpUpdate:
			if f.moveTo != "" {
				fmt.Fprintf(&sb, "rename from %s\nrename to %s\n", from, to)
			}
			fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", from, to)
			delta := 0
			for _, h := range f.hunks() {
				oldN := h.to - h.from
				newN := oldN - h.e.del + len(h.e.ins)
				fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", h.from+1, oldN, h.from+1+delta, newN)
				delta += newN - oldN
				f.unifiedBody(&sb, h)
			}
		}
	}
	return sb.String()
}

// unifiedBody writes a unified hunk's lines, with "\ No newline at end of file" after the
// last line of either side when it ends a file without a final newline.
func (f caseFile) unifiedBody(sb *strings.Builder, h caseHunk) {
	atEnd := f.noFinal && h.to == len(f.old)
	var body strings.Builder
	f.chunkLines(&body, h, func(s string) string { return s })
	lines := strings.Split(strings.TrimSuffix(body.String(), "\n"), "\n")
	lastOld, lastNew := -1, -1
	for i, l := range lines {
		if l[0] != '+' {
			lastOld = i
		}
		if l[0] != '-' {
			lastNew = i
		}
	}
	for i, l := range lines {
		sb.WriteString(l + "\n")
		if atEnd && (i == lastOld || i == lastNew) {
			sb.WriteString("\\ No newline at end of file\n")
		}
	}
}

// Operations returns the case as the Responses API's apply_patch operations.
func (c PatchCase) Operations() []patch.Operation {
	var ops []patch.Operation
	for _, f := range c.files {
		switch f.op {
		case patch.OpAdd:
			var sb strings.Builder
			for _, l := range f.new {
				sb.WriteString("+" + l + "\n")
			}
			ops = append(ops, patch.Operation{Type: "create_file", Path: f.path, Diff: sb.String()})
		case patch.OpDelete:
			ops = append(ops, patch.Operation{Type: "delete_file", Path: f.path})
		case patch.OpUpdate:
			var sb strings.Builder
			for _, h := range f.hunks() {
				sb.WriteString("@@\n")
				f.chunkLines(&sb, h, func(s string) string { return s })
			}
			ops = append(ops, patch.Operation{Type: "update_file", Path: f.path, Diff: sb.String()})
		}
	}
	return ops
}
