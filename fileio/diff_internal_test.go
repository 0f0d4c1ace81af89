package fileio

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// editDistance is the length of a shortest insert/delete script from a to b, by dynamic
// programming over the LCS: the reference diffLines must match.
func editDistance(a, b []int) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			default:
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}

// apply runs script on a and returns what it produces from b's lines, failing on a script
// that does not turn a into b.
func apply(t *testing.T, script []diffOp, a, b []int) {
	t.Helper()
	i, j := 0, 0
	for _, op := range script {
		switch op {
		case opEqual:
			if i >= len(a) || j >= len(b) || a[i] != b[j] {
				t.Fatalf("equal op at a[%d], b[%d] on different lines", i, j)
			}
			i, j = i+1, j+1
		case opDelete:
			i++
		case opInsert:
			j++
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("script ends at a[%d], b[%d]; want %d, %d", i, j, len(a), len(b))
	}
}

func TestDiffLinesIsShortest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n, alphabet int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = rng.IntN(alphabet)
		}
		return v
	}
	tests := []struct {
		name string
		a, b []int
	}{
		{"equal", []int{1, 2, 3}, []int{1, 2, 3}},
		{"insert", []int{1, 3}, []int{1, 2, 3}},
		{"delete", []int{1, 2, 3}, []int{3}},
		{"replace all", []int{1, 1, 1, 1}, []int{2, 2, 2}},
		{"empty a", nil, []int{1, 2}},
		{"empty b", []int{1, 2}, nil},
	}
	for i := range 300 {
		tests = append(tests, struct {
			name string
			a, b []int
		}{"random", random(rng.IntN(40), 1+i%5), random(rng.IntN(40), 1+i%5)})
	}
	for _, tc := range tests {
		ops, ok := diffLines(tc.a, tc.b, 1<<30)
		if !ok {
			t.Fatalf("%s: out of budget", tc.name)
		}
		apply(t, ops, tc.a, tc.b)
		changes := 0
		for _, op := range ops {
			if op != opEqual {
				changes++
			}
		}
		if want := editDistance(tc.a, tc.b); changes != want {
			t.Errorf("%s %v → %v: %d changes, want %d", tc.name, tc.a, tc.b, changes, want)
		}
	}
}

func TestDiffLinesBudget(t *testing.T) {
	a, b := make([]int, 1000), make([]int, 1000)
	for i := range a {
		a[i], b[i] = i, 1000+i
	}
	if _, ok := diffLines(a, b, 5000); ok {
		t.Error("a 2000-change script fit in 5000 steps")
	}
	if _, ok := diffLines(a, b, 10_000_000); !ok {
		t.Error("it did not fit in 10,000,000 steps")
	}
}

// TestDiffMemoryIsLinear: replacing every one of 2,100 lines (a 4,200-line script) allocates
// a few hundred KiB, not the D² trace snapshots (~70 MB) of the quadratic-space algorithm.
func TestDiffMemoryIsLinear(t *testing.T) {
	old, new := strings.Repeat("x\n", 2100), strings.Repeat("y\n", 2100)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := unifiedDiff("/f", old, new, 0, diffLimits{steps: DefaultMaxDiffCost})
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("the diff allocated %d bytes; want at most 4 MiB", got)
	}
	if d.truncated || strings.Count(d.text, "\n-x") != 2100 || strings.Count(d.text, "\n+y") != 2100 {
		t.Errorf("diff: truncated %v, %d deletions, %d insertions", d.truncated, strings.Count(d.text, "\n-x"), strings.Count(d.text, "\n+y"))
	}
}

func TestUnifiedDiffLimits(t *testing.T) {
	// 300 lines, every tenth one changed: 30 hunks, 60 changes.
	var ob, nb strings.Builder
	for i := range 300 {
		fmt.Fprintf(&ob, "line %d\n", i)
		if i%10 == 0 {
			fmt.Fprintf(&nb, "LINE %d\n", i)
		} else {
			fmt.Fprintf(&nb, "line %d\n", i)
		}
	}
	head := "h1\nh2\nh3\nh4\nh5\n"
	old, new := head+ob.String()+"t1\n", head+nb.String()+"t1\n"
	tests := []struct {
		name              string
		lim               diffLimits
		coarse, truncated bool
		firstHunk         string
	}{
		{"fine", diffLimits{steps: DefaultMaxDiffCost}, false, false, "@@ -3,7 +3,7 @@"},
		{"coarse past the step budget", diffLimits{steps: 100}, true, false, "@@ -3,297 +3,297 @@"},
		{"cut at the byte budget", diffLimits{steps: DefaultMaxDiffCost, bytes: 1024}, false, true, "@@ -3,7 +3,7 @@"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := unifiedDiff("/f", old, new, 0, tc.lim)
			hunk := strings.SplitN(d.text, "\n", 4)[2]
			got := []any{d.coarse, d.truncated, hunk}
			if diff := cmp.Diff([]any{tc.coarse, tc.truncated, tc.firstHunk}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tc.lim.bytes > 0 && int64(len(d.text)) > tc.lim.bytes {
				t.Errorf("%d bytes of diff, over %d", len(d.text), tc.lim.bytes)
			}
			if (d.note() != "") != (d.coarse || d.truncated) {
				t.Errorf("note %q", d.note())
			}
		})
	}
}

// applyUnified applies a unified diff made by unifiedDiff (all hunks, none cut) to old.
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	if diff == "" {
		return old
	}
	a := splitLines(old)
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	next := 0 // the index in a of the first line not yet copied
	for i := 2; i < len(lines) && lines[i] != ""; {
		var from, n, to, m int
		h := lines[i]
		if _, err := fmt.Sscanf(h, "@@ -%d,%d +%d,%d @@", &from, &n, &to, &m); err != nil {
			n, m = 1, 1
			if _, err := fmt.Sscanf(h, "@@ -%d +%d @@", &from, &to); err != nil {
				if _, err := fmt.Sscanf(h, "@@ -%d,%d +%d @@", &from, &n, &to); err != nil {
					if _, err := fmt.Sscanf(h, "@@ -%d +%d,%d @@", &from, &to, &m); err != nil {
						t.Fatalf("bad hunk header %q in\n%s", h, diff)
					}
					n = 1
				} else {
					m = 1
				}
			}
		}
		start := from - 1
		if n == 0 {
			start = from
		}
		out = append(out, a[next:start]...)
		next = start
		i++
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\`) {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				out = append(out, body)
				next++
			case '-':
				next++
			case '+':
				out = append(out, body)
			}
			i++
		}
	}
	out = append(out, a[next:]...)
	return strings.Join(out, "")
}

// FuzzUnifiedDiff: the diff, fine or coarse, turns old into new.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", 100)
	f.Add("a\nb", "a\nb\n", 100)
	f.Add("", "x\n", 5)
	f.Add("same\nsame\nsame\n", "same\nsame\n", 1)
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\nX\n4\n5\n6\n7\n8\nY\n", 3)
	f.Fuzz(func(t *testing.T, old, new string, steps int) {
		if len(old)+len(new) > 1<<12 {
			return
		}
		d := unifiedDiff("/f", old, new, 0, diffLimits{steps: max(steps%1000, 1)})
		if got := applyUnified(t, old, d.text); got != new {
			t.Fatalf("old %q new %q: the diff\n%s\ngives %q", old, new, d.text, got)
		}
	})
}
