package fileio

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines a unified diff shows around each change.
const diffContext = 3

// UnifiedDiff returns the unified diff (as `diff -u` prints it, with three lines of context)
// that turns old into new, with the headers "--- a" + path and "+++ b" + path; "" when they
// are equal. A last line without a newline is marked "\ No newline at end of file". Its work
// is bounded by DefaultMaxDiffCost: past it the diff is one hunk that replaces every line
// between the common head and tail. Its memory is linear in the lines.
func UnifiedDiff(path, old, new string) string {
	return unifiedDiff(path, old, new, 0, diffLimits{steps: DefaultMaxDiffCost}).text
}

// diffLimits bound one diff: steps of the line diff (Config.MaxDiffCost) and bytes of text
// (Config.MaxDiffBytes; 0: no cap).
type diffLimits struct {
	steps int
	bytes int64
}

// diffText is a diff with what its limits did to it.
type diffText struct {
	text      string
	coarse    bool // the line diff ran out of steps: one hunk replaces the middle
	truncated bool // the text was cut at a line, before its end
}

// note says what the limits did, for EditResult.DiffNote.
func (d diffText) note() string {
	var parts []string
	if d.coarse {
		parts = append(parts, "the change is too large for a line-by-line diff: it is shown as one hunk replacing every line between the first and last changed ones")
	}
	if d.truncated {
		parts = append(parts, "the diff is cut at the maximum diff size; read the file (file_read) to see the rest")
	}
	return strings.Join(parts, "; ")
}

// maxDiffLines is the most lines the line diff compares (old and new middles together);
// more take the coarse diff, so a diff's memory stays a few MiB.
const maxDiffLines = 1 << 17

// unifiedDiff is UnifiedDiff of two excerpts that start after line `skipped` of their files,
// so that the hunk headers carry the files' line numbers, within lim. The common head and
// tail are found on the bytes, and only the lines between them (with their context) are
// split and compared, so a small change to a large file costs what the change does.
func unifiedDiff(path, old, new string, skipped int, lim diffLimits) diffText {
	if old == new {
		return diffText{}
	}
	hd := commonLinePrefix(old, new)
	tl := commonLineSuffix(old[hd:], new[hd:])
	before := lastLines(old[:hd], diffContext)
	after := firstLines(old[len(old)-tl:], diffContext)
	skipped += strings.Count(old[:hd-len(before)], "\n")
	oldMid, newMid := old[hd:len(old)-tl], new[hd:len(new)-tl]
	var sb strings.Builder
	sb.WriteString("--- a" + path + "\n+++ b" + path + "\n")
	if LineCount(oldMid)+LineCount(newMid) <= min(lim.steps, maxDiffLines) {
		ctxBefore, ctxAfter := splitLines(before), splitLines(after)
		a := append(append(append([]string(nil), ctxBefore...), splitLines(oldMid)...), ctxAfter...)
		b := append(append(append([]string(nil), ctxBefore...), splitLines(newMid)...), ctxAfter...)
		if ops, ok := lineDiff(a, b, lim.steps); ok {
			truncated := writeHunks(&sb, ops, a, b, skipped, lim.bytes)
			return diffText{text: sb.String(), truncated: truncated}
		}
	}
	truncated := writeCoarse(&sb, before, oldMid, newMid, after, skipped, lim.bytes)
	return diffText{text: sb.String(), coarse: true, truncated: truncated}
}

// commonLinePrefix is the length of the longest common prefix of a and b that ends after a
// newline (or is empty).
func commonLinePrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return strings.LastIndexByte(a[:n], '\n') + 1
}

// commonLineSuffix is the length of the longest common suffix of a and b that starts a line
// in both.
func commonLineSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	lineStart := func(s string, i int) bool { return i == 0 || s[i-1] == '\n' }
	if n > 0 && !(lineStart(a, len(a)-n) && lineStart(b, len(b)-n)) {
		i := strings.IndexByte(a[len(a)-n:], '\n')
		if i < 0 {
			return 0
		}
		n -= i + 1
	}
	return n
}

// lastLines is the end of s (which ends with a newline or is empty) holding its last k lines.
func lastLines(s string, k int) string {
	i := len(s) - 1
	for ; k > 0 && i >= 0; k-- {
		i = strings.LastIndexByte(s[:i], '\n')
	}
	if i < 0 {
		return s
	}
	return s[i+1:]
}

// firstLines is the start of s holding its first k lines.
func firstLines(s string, k int) string {
	n := 0
	for ; k > 0 && n < len(s); k-- {
		i := strings.IndexByte(s[n:], '\n')
		if i < 0 {
			return s
		}
		n += i + 1
	}
	return s[:n]
}

// writeCoarse prints one hunk that replaces the lines of oldMid by those of newMid, with the
// context lines before and after, and reports whether it stopped at maxBytes (0: no cap). It
// walks the text without splitting it.
func writeCoarse(sb *strings.Builder, before, oldMid, newMid, after string, skipped int, maxBytes int64) (truncated bool) {
	bl, al := LineCount(before), LineCount(after)
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(skipped, bl+LineCount(oldMid)+al), hunkRange(skipped, bl+LineCount(newMid)+al))
	for _, part := range []struct {
		mark byte
		text string
	}{{' ', before}, {'-', oldMid}, {'+', newMid}, {' ', after}} {
		for rest := part.text; rest != ""; {
			line := rest
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				line = rest[:i+1]
			}
			rest = rest[len(line):]
			if maxBytes > 0 && int64(sb.Len()+len(line)+len(noNewline)+2) > maxBytes {
				return true
			}
			writeDiffLine(sb, part.mark, line)
		}
	}
	return false
}

type diffOp byte

const (
	opEqual diffOp = iota
	opDelete
	opInsert
)

// splitLines splits s after each "\n"; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineDiff returns an edit script turning a into b (see diffLines), or ok false when that
// takes more than maxSteps.
func lineDiff(a, b []string, maxSteps int) (ops []diffOp, ok bool) {
	ids := make(map[string]int, len(a)+len(b))
	id := func(s string) int {
		v, ok := ids[s]
		if !ok {
			v = len(ids)
			ids[s] = v
		}
		return v
	}
	ai, bi := make([]int, len(a)), make([]int, len(b))
	for i, s := range a {
		ai[i] = id(s)
	}
	for i, s := range b {
		bi[i] = id(s)
	}
	return diffLines(ai, bi, maxSteps)
}

// writeHunks prints the script as unified-diff hunks and reports whether it stopped early:
// it prints no line that would take sb past maxBytes (0: no cap), and no hunk after that.
func writeHunks(sb *strings.Builder, script []diffOp, a, b []string, skipped int, maxBytes int64) (truncated bool) {
	// Positions in a and b before each op.
	type pos struct{ i, j int }
	at := make([]pos, len(script)+1)
	for k, op := range script {
		p := at[k]
		switch op {
		case opEqual:
			p.i, p.j = p.i+1, p.j+1
		case opDelete:
			p.i++
		case opInsert:
			p.j++
		}
		at[k+1] = p
	}
	k := 0
	for k < len(script) {
		if script[k] == opEqual {
			k++
			continue
		}
		// A hunk from up to diffContext equal ops before the change to the last change
		// followed by fewer than 2*diffContext+1 equal ops, plus diffContext after.
		start := k
		for c := 0; c < diffContext && start > 0 && script[start-1] == opEqual; c++ {
			start--
		}
		end := k
		for {
			for end < len(script) && script[end] != opEqual {
				end++
			}
			run := end
			for run < len(script) && script[run] == opEqual {
				run++
			}
			if run < len(script) && run-end <= 2*diffContext {
				end = run
				continue
			}
			end = min(end+diffContext, run)
			break
		}
		from, to := at[start], at[end]
		fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(skipped+from.i, to.i-from.i), hunkRange(skipped+from.j, to.j-from.j))
		for h := start; h < end; h++ {
			p := at[h]
			mark, line := byte(' '), ""
			switch script[h] {
			case opEqual:
				line = a[p.i]
			case opDelete:
				mark, line = '-', a[p.i]
			case opInsert:
				mark, line = '+', b[p.j]
			}
			if maxBytes > 0 && int64(sb.Len()+len(line)+len(noNewline)+2) > maxBytes {
				return true
			}
			writeDiffLine(sb, mark, line)
		}
		k = end
	}
	return false
}

// noNewline marks a last line without a newline.
const noNewline = "\\ No newline at end of file\n"

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeDiffLine(sb *strings.Builder, mark byte, line string) {
	sb.WriteByte(mark)
	sb.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		sb.WriteString("\n" + noNewline)
	}
}
