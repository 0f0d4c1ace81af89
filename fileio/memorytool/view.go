package memorytool

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
)

// listDepth lists every level below a directory: its sizes are those of all files below.
const listDepth = fileio.MaxPathBytes / 2

// maxListEntries asks fileio for as many entries as it gives (it clamps to its ListLimitMax).
const maxListEntries = 1 << 20

func (t *Tool) view(ctx context.Context, p string, viewRange []int) (string, error) {
	rel, err := requirePath("path", CommandView, p)
	if err != nil {
		return "", err
	}
	p = MemoryPath(rel)
	isDir := rel == ""
	var content string
	if !isDir {
		// A file is one read; only a directory (IS_DIRECTORY) needs a listing after it.
		content, err = t.readAll(ctx, rel)
		switch {
		case is(err, agentfiles.CodeIsDirectory):
			isDir = true
		case is(err, agentfiles.CodeNotFound):
			return "", agentfiles.WrapError(agentfiles.CodeNotFound, "The path "+p+" does not exist. Please provide a valid path.", "", err)
		case err != nil:
			return "", fail(err, "")
		}
	}
	if isDir {
		if viewRange != nil {
			return "", invalid("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
		}
		return t.viewDir(ctx, p, rel)
	}
	return t.viewFile(p, content, viewRange)
}

// viewFile numbers the lines of content in the range asked for.
func (t *Tool) viewFile(p, content string, viewRange []int) (string, error) {
	n := fileio.LineCount(content)
	if n > MaxLines {
		return "", agentfiles.NewError(agentfiles.CodePayloadTooLarge, "File "+p+" exceeds maximum line limit of 999,999 lines.", "")
	}
	start, end := 1, n
	if viewRange != nil {
		if len(viewRange) != 2 {
			return "", invalid("Error: Invalid `view_range` parameter: it should be a list of two integers [start, end], e.g. [1, 20]; end -1 reads to the end")
		}
		start, end = viewRange[0], viewRange[1]
		shown := "[" + strconv.Itoa(start) + ", " + strconv.Itoa(end) + "]"
		if start < 1 || start > max(n, 1) {
			return "", invalid(fmt.Sprintf("Error: Invalid `view_range` parameter: %s. Its first element `%d` should be within the range of lines of the file: [1, %d]", shown, start, max(n, 1)))
		}
		switch {
		case end == -1:
			end = n
		case end < start:
			return "", invalid(fmt.Sprintf("Error: Invalid `view_range` parameter: %s. Its second element `%d` should be -1 (to the end) or at least its first element `%d`", shown, end, start))
		case end > n:
			end = n
		}
	}
	var sb strings.Builder
	sb.WriteString("Here's the content of ")
	sb.WriteString(p)
	sb.WriteString(" with line numbers:")
	rest := content
	for line := 1; line <= end; line++ {
		text, after, _ := strings.Cut(rest, "\n")
		rest = after
		if line < start {
			continue
		}
		if line > start && sb.Len()+len(text)+8 > t.maxViewBytes {
			fmt.Fprintf(&sb, "\n(The view stops at line %d of %d to stay within %d bytes; use view_range [%d, %d] to see more.)",
				line-1, n, t.maxViewBytes, line, end)
			break
		}
		fmt.Fprintf(&sb, "\n%6d\t%s", line, text)
	}
	return sb.String(), nil
}

// viewDir lists a directory two levels deep with sizes, as the memory tool documents. Two
// listings make it: every level below the directory, for the sizes and the second level, and
// its first level on its own, so that when the first is cut (fileio lists at most ListLimitMax
// entries, in path order) a directory late in the order still shows.
func (t *Tool) viewDir(ctx context.Context, p, rel string) (string, error) {
	deep, err := t.svc.List(ctx, fileio.ListRequest{Project: t.project, Path: rel, Depth: listDepth, Limit: maxListEntries})
	if err == nil && deep.Truncated {
		var top fileio.ListResult
		if top, err = t.svc.List(ctx, fileio.ListRequest{Project: t.project, Path: rel, Depth: 1, Limit: maxListEntries}); err == nil {
			deep.Entries = mergeEntries(deep.Entries, top.Entries)
		}
	}
	if err != nil {
		if is(err, agentfiles.CodeNotFound) {
			return "", agentfiles.WrapError(agentfiles.CodeNotFound, "The path "+p+" does not exist. Please provide a valid path.", "", err)
		}
		return "", fail(err, "")
	}
	list := deep
	prefix := len(rel) + 1 // rel + "/"
	// Sizes: a file's own, a directory's the sum of every file below it (hidden ones too).
	sizes := map[string]int64{}
	var total int64
	for _, e := range list.Entries {
		if e.Type != fileio.TypeFile {
			continue
		}
		total += e.SizeBytes
		for i := prefix; i < len(e.Path); i++ {
			if e.Path[i] == '/' {
				sizes[e.Path[:i]] += e.SizeBytes
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("Here're the files and directories up to 2 levels deep in ")
	sb.WriteString(p)
	sb.WriteString(", excluding hidden items and node_modules:\n")
	sb.WriteString(HumanSize(total))
	sb.WriteByte('\t')
	sb.WriteString(p)
	shown := 0
	for _, e := range list.Entries {
		relToDir := e.Path[prefix:]
		if strings.Count(relToDir, "/") > 1 || hidden(relToDir) {
			continue
		}
		size, suffix := e.SizeBytes, ""
		if e.Type == fileio.TypeDirectory {
			size, suffix = sizes[e.Path], "/"
		}
		sb.WriteByte('\n')
		sb.WriteString(HumanSize(size))
		sb.WriteByte('\t')
		sb.WriteString(MemoryPath(e.Path))
		sb.WriteString(suffix)
		shown++
	}
	if list.Truncated {
		fmt.Fprintf(&sb, "\n(The listing stops after %d entries and its sizes count only those; view a subdirectory to see the rest.)", shown)
	}
	return sb.String(), nil
}

// mergeEntries adds to deep, sorted by path, the entries of top it lacks, keeping the order.
func mergeEntries(deep, top []fileio.FileEntry) []fileio.FileEntry {
	have := make(map[string]bool, len(deep))
	for _, e := range deep {
		have[e.Path] = true
	}
	for _, e := range top {
		if !have[e.Path] {
			deep = append(deep, e)
		}
	}
	slices.SortFunc(deep, func(a, b fileio.FileEntry) int { return strings.Compare(a.Path, b.Path) })
	return deep
}

// hidden reports whether a relative path lies in or is a hidden item (a segment starting with
// ".") or node_modules.
func hidden(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") || seg == "node_modules" {
			return true
		}
	}
	return false
}

// HumanSize renders a byte count as the memory tool's listings do: "512B", "1.5K", "4.0M".
func HumanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	f, unit := float64(n)/1024, "K"
	for _, u := range []string{"M", "G", "T"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + unit
}

// readAll returns the whole content of a file, in as many reads as the Service's maximum read
// size needs (one for any file up to 2 MiB by default). str_replace edits with the sha256 of
// what it read as ExpectedSHA256, so the edit fails with CONFLICT when the file changed since,
// or between two of the reads.
func (t *Tool) readAll(ctx context.Context, rel string) (string, error) {
	var sb strings.Builder
	var offset int64
	for {
		res, err := t.svc.Read(ctx, fileio.ReadRequest{Project: t.project, Path: rel, OffsetBytes: offset, LengthBytes: new(int64(fileio.ReadToEOF))})
		if err != nil {
			return "", err
		}
		if offset == 0 && !res.Truncated {
			return res.Content, nil
		}
		sb.WriteString(res.Content)
		if !res.Truncated || res.ReadBytes == 0 {
			return sb.String(), nil
		}
		offset = res.NextOffsetBytes
	}
}
