package memorytool

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/internal/utf8cut"
)

// maxEchoedBytes bounds old_str where an error message repeats it.
const maxEchoedBytes = 256

// snippetLines is how many lines around a change str_replace shows.
const snippetLines = 4

func (t *Tool) create(ctx context.Context, p, text string) (string, error) {
	rel, err := requirePath("path", CommandCreate, p)
	if err != nil {
		return "", err
	}
	p = MemoryPath(rel)
	if rel == "" {
		return "", agentfiles.NewError(agentfiles.CodeIsDirectory, "Error: The path "+Root+" is a directory; create a file below it, such as /memories/notes.md", "")
	}
	_, err = t.svc.Write(ctx, fileio.WriteRequest{Project: t.project, Path: rel, Content: text, Mode: fileio.ModeTruncate, Exclusive: true})
	switch {
	case err == nil:
		return "File created successfully at: " + p, nil
	case is(err, agentfiles.CodeAlreadyExists):
		return "", fail(err, "Error: File "+p+" already exists")
	case is(err, agentfiles.CodeIsDirectory):
		return "", fail(err, "Error: The path "+p+" is a directory; create a file below it, such as "+p+"/notes.md")
	case is(err, fileio.CodeNotDirectory):
		return "", fail(err, "Error: A parent of "+p+" is a file, so it cannot contain "+p+"; choose another path")
	case is(err, agentfiles.CodePayloadTooLarge):
		return "", fail(err, fmt.Sprintf("Error: file_text is %d bytes; one command carries at most %d. Create %s with the first part, "+
			"then add the rest with insert commands (insert_line: the file's last line)", len(text), t.svc.Config().MaxPayloadBytes, p))
	}
	return "", fail(err, "")
}

func (t *Tool) delete(ctx context.Context, p string) (string, error) {
	rel, err := requirePath("path", CommandDelete, p)
	if err != nil {
		return "", err
	}
	p = MemoryPath(rel)
	if rel == "" {
		return "", agentfiles.NewError(agentfiles.CodePermissionDenied, "Error: The "+Root+" directory itself cannot be deleted; delete the files and directories below it", "")
	}
	err = t.svc.Delete(ctx, fileio.DeleteRequest{Project: t.project, Path: rel, Recursive: true})
	switch {
	case err == nil:
		return "Successfully deleted " + p, nil
	case is(err, agentfiles.CodeNotFound):
		return "", fail(err, "Error: The path "+p+" does not exist")
	}
	return "", fail(err, "")
}

func (t *Tool) strReplace(ctx context.Context, p, oldStr, newStr string) (string, error) {
	rel, err := requirePath("path", CommandStrReplace, p)
	if err != nil {
		return "", err
	}
	p = MemoryPath(rel)
	missing := "Error: The path " + p + " does not exist. Please provide a valid path."
	if oldStr == "" {
		return "", invalid("Error: The `old_str` parameter is required for str_replace and must not be empty; copy the exact text to replace from the file")
	}
	if rel == "" {
		return "", agentfiles.NewError(agentfiles.CodeNotFound, missing, "")
	}
	content, err := t.readAll(ctx, rel)
	if err != nil {
		if is(err, agentfiles.CodeNotFound) || is(err, agentfiles.CodeIsDirectory) {
			return "", agentfiles.WrapError(agentfiles.CodeNotFound, missing, "", err)
		}
		return "", fail(err, "")
	}
	echo := utf8cut.Shorten(oldStr, maxEchoedBytes, "…")
	switch lines := matchLines(content, oldStr); {
	case len(lines) == 0:
		return "", agentfiles.NewError(fileio.CodeNoMatch, "No replacement was performed, old_str `"+echo+"` did not appear verbatim in "+p+".", "")
	case len(lines) > 1:
		return "", agentfiles.NewError(fileio.CodeAmbiguousMatch, "No replacement was performed. Multiple occurrences of old_str `"+echo+"` in lines: "+
			joinInts(lines)+". Please ensure it is unique", "")
	}
	sha := fileio.SHA256Hex([]byte(content)) // what was read: Edit refuses (CONFLICT) if the file changed since
	_, err = t.svc.Edit(ctx, fileio.EditRequest{Project: t.project, Path: rel, Edits: []fileio.Edit{{OldStr: oldStr, NewStr: newStr}}, ExpectedSHA256: sha})
	if err != nil {
		return "", t.editError(err, p, missing, CommandStrReplace)
	}
	at := strings.Index(content, oldStr)
	first := strings.Count(content[:at], "\n") + 1 // the line where the change starts
	last := first + strings.Count(newStr, "\n")
	updated := content[:at] + newStr + content[at+len(oldStr):]
	return "The memory file has been edited. Here is a snippet of " + p + " with line numbers:" +
		numbered(updated, first-snippetLines, last+snippetLines), nil
}

func (t *Tool) insert(ctx context.Context, p string, line *int, text string) (string, error) {
	rel, err := requirePath("path", CommandInsert, p)
	if err != nil {
		return "", err
	}
	p = MemoryPath(rel)
	missing := "Error: The path " + p + " does not exist"
	if line == nil {
		return "", invalid("Error: The `insert_line` parameter is required for insert: the line after which to insert the text (0 inserts at the top)")
	}
	if rel == "" {
		return "", agentfiles.NewError(agentfiles.CodeNotFound, missing, "")
	}
	// Edit checks the range and inserts in one transaction, so no read is needed first; only an
	// out-of-range line needs the file's line count, for the message.
	_, err = t.svc.Edit(ctx, fileio.EditRequest{Project: t.project, Path: rel, Insert: true, InsertLine: *line, InsertText: text})
	if err == nil {
		return "The file " + p + " has been edited.", nil
	}
	if e, ok := err.(*agentfiles.Error); ok && e.Code == agentfiles.CodeInvalidArgument && e.Arg == "insert_line" {
		content, rerr := t.readAll(ctx, rel)
		if rerr != nil {
			return "", t.editError(rerr, p, missing, CommandInsert)
		}
		return "", agentfiles.WrapError(agentfiles.CodeInvalidArgument, fmt.Sprintf(
			"Error: Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", *line, fileio.LineCount(content)), "", err)
	}
	return "", t.editError(err, p, missing, CommandInsert)
}

// editError turns an error of Edit (or of the read before it) into the memory tool's text.
func (t *Tool) editError(err error, p, missing, command string) error {
	switch {
	case is(err, agentfiles.CodeNotFound), is(err, agentfiles.CodeIsDirectory):
		return agentfiles.WrapError(agentfiles.CodeNotFound, missing, "", err)
	case is(err, fileio.CodeConflict):
		return fail(err, "Error: The file "+p+" changed while it was being edited; view it again and redo the "+command)
	}
	return fail(err, "")
}

func (t *Tool) rename(ctx context.Context, oldPath, newPath string) (string, error) {
	from, err := requirePath("old_path", CommandRename, oldPath)
	if err != nil {
		return "", err
	}
	to, err := requirePath("new_path", CommandRename, newPath)
	if err != nil {
		return "", err
	}
	oldPath, newPath = MemoryPath(from), MemoryPath(to)
	if from == "" || to == "" {
		return "", agentfiles.NewError(agentfiles.CodePermissionDenied, "Error: The "+Root+" directory itself cannot be renamed or replaced; rename the files and directories below it", "")
	}
	exists := "Error: The destination " + newPath + " already exists"
	// The memory tool never overwrites or merges: an Exclusive Rename refuses a file or a
	// directory at new_path in the same step as the move.
	_, err = t.svc.Rename(ctx, fileio.RenameRequest{Project: t.project, From: from, To: to, Exclusive: true})
	switch {
	case err == nil:
		return "Successfully renamed " + oldPath + " to " + newPath, nil
	case is(err, agentfiles.CodeNotFound):
		return "", fail(err, "Error: The path "+oldPath+" does not exist")
	case is(err, agentfiles.CodeAlreadyExists), is(err, agentfiles.CodeIsDirectory):
		return "", agentfiles.WrapError(agentfiles.CodeAlreadyExists, exists, "", err)
	case is(err, fileio.CodeNotDirectory):
		return "", fail(err, "Error: A parent of "+newPath+" is a file, so it cannot contain "+newPath+"; choose another path")
	}
	return "", fail(err, "")
}

// maxListedLines bounds the line numbers an ambiguous str_replace lists.
const maxListedLines = 20

// matchLines returns the 1-based lines where the occurrences of old start (each line once), at
// most maxListedLines+1 of them.
func matchLines(content, old string) []int {
	var lines []int
	line, pos := 1, 0
	for len(lines) <= maxListedLines {
		i := strings.Index(content[pos:], old)
		if i < 0 {
			return lines
		}
		line += strings.Count(content[pos:pos+i], "\n")
		if len(lines) == 0 || lines[len(lines)-1] != line {
			lines = append(lines, line)
		}
		line += strings.Count(old, "\n")
		pos += i + len(old)
	}
	return lines
}

// joinInts lists line numbers, the first maxListedLines of them and "…" for more.
func joinInts(v []int) string {
	s := make([]string, 0, len(v))
	for i, n := range v {
		if i == maxListedLines {
			s = append(s, "…")
			break
		}
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ", ")
}

// numbered renders lines from..to of content (1-based, clamped to the file) as view does, each
// after a newline.
func numbered(content string, from, to int) string {
	n := fileio.LineCount(content)
	from, to = max(from, 1), min(to, n)
	var sb strings.Builder
	rest := content
	for line := 1; line <= to; line++ {
		text, after, _ := strings.Cut(rest, "\n")
		rest = after
		if line >= from {
			fmt.Fprintf(&sb, "\n%6d\t%s", line, text)
		}
	}
	return sb.String()
}
