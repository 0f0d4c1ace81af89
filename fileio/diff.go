package fileio

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines a unified diff shows around each change.
const diffContext = 3

// maxDiffEdits bounds the work of the line diff: when old and new differ in more lines than
// this, the diff is one hunk that replaces every line between the common head and tail.
const maxDiffEdits = 4000

// UnifiedDiff returns the unified diff (as `diff -u` prints it, with three lines of context)
// that turns old into new, with the headers "--- a" + path and "+++ b" + path; "" when they
// are equal. A last line without a newline is marked "\ No newline at end of file".
func UnifiedDiff(path, old, new string) string {
	return unifiedDiff(path, old, new, 0)
}

// unifiedDiff is UnifiedDiff of two excerpts that start after line `skipped` of their files,
// so that the hunk headers carry the files' line numbers.
func unifiedDiff(path, old, new string, skipped int) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	// Trim the common head and tail, then diff the middle.
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := lineDiff(a[head:len(a)-tail], b[head:len(b)-tail])
	// The full script: head equal, middle, tail equal.
	script := make([]diffOp, 0, head+len(ops)+tail)
	for range head {
		script = append(script, opEqual)
	}
	script = append(script, ops...)
	for range tail {
		script = append(script, opEqual)
	}
	var sb strings.Builder
	sb.WriteString("--- a" + path + "\n+++ b" + path + "\n")
	writeHunks(&sb, script, a, b, skipped)
	return sb.String()
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

// lineDiff returns an edit script (Myers' O(ND) algorithm) turning a into b: deletions before
// insertions within a change. Past maxDiffEdits it deletes all of a and inserts all of b.
func lineDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(n, m)
	}
	ids := map[string]int{}
	id := func(s string) int {
		v, ok := ids[s]
		if !ok {
			v = len(ids)
			ids[s] = v
		}
		return v
	}
	ai, bi := make([]int, n), make([]int, m)
	for i, s := range a {
		ai[i] = id(s)
	}
	for i, s := range b {
		bi[i] = id(s)
	}
	maxD := min(n+m, maxDiffEdits)
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[offset-d:offset+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && ai[x] == bi[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return replaceAll(n, m)
	}
	// Walk back through the trace. trace[d] holds v before step d, for k in [-d, d].
	var rev []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d] // v after step d-1, indexed k+d
		get := func(k int) int { return prev[k+d] }
		k := x - y
		var pk int
		if k == -d || (k != d && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		for x > px && y > py {
			rev = append(rev, opEqual)
			x, y = x-1, y-1
		}
		if x == px {
			rev = append(rev, opInsert)
		} else {
			rev = append(rev, opDelete)
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		rev = append(rev, opEqual)
		x, y = x-1, y-1
	}
	out := make([]diffOp, len(rev))
	for i, op := range rev {
		out[len(rev)-1-i] = op
	}
	return out
}

func replaceAll(n, m int) []diffOp {
	out := make([]diffOp, 0, n+m)
	for range n {
		out = append(out, opDelete)
	}
	for range m {
		out = append(out, opInsert)
	}
	return out
}

// writeHunks prints the script as unified-diff hunks.
func writeHunks(sb *strings.Builder, script []diffOp, a, b []string, skipped int) {
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
			switch script[h] {
			case opEqual:
				writeDiffLine(sb, ' ', a[p.i])
			case opDelete:
				writeDiffLine(sb, '-', a[p.i])
			case opInsert:
				writeDiffLine(sb, '+', b[p.j])
			}
		}
		k = end
	}
}

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
		sb.WriteString("\n\\ No newline at end of file\n")
	}
}
