package rarebyte_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/internal/asciifold"
	"github.com/agentfiles/agentfiles/internal/grepbench"
	"github.com/agentfiles/agentfiles/internal/rarebyte"
	"github.com/google/go-cmp/cmp"
)

func TestIndex(t *testing.T) {
	many := strings.Repeat("zzzzzzzzzy", 200) + "zzzzzzzzzx"
	tests := []struct {
		text, lit  string
		ignoreCase bool
		want       int
	}{
		{"", "", false, 0},
		{"abc", "", false, 0},
		{"", "a", false, -1},
		{"abc", "c", false, 2},
		{"abc", "abcd", false, -1},
		{"the quick brown fox", "fox", false, 16},
		{"the quick brown fox", "FOX", false, -1},
		{"the quick brown FoX", "fox", true, 16},
		{"the quick brown FoX", "FOX", true, 16},
		{"xyzq xyzQ", "yzQ", false, 6},
		{"xyzq xyzQ", "yzQ", true, 1},
		{"aaaaaaaaaaaab", "aab", false, 10},
		{"AaAaAaAaAaAab", "aab", true, 10},
		{"é café Café", "café", true, 3},
		{"é café Café", "CAFÉ", true, -1}, // only ASCII letters fold
		{many, "zzzzzzzzzx", false, len(many) - 10},
		{many, "ZZZZZZZZZX", true, len(many) - 10},
		{many, "zzzzzzzzzw", false, -1},
		{"k", "K", true, 0},
		{"\x00\xff\x00", "\xff\x00", false, 1},
	}
	for _, tt := range tests {
		got := rarebyte.New(tt.lit, tt.ignoreCase).Index([]byte(tt.text))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Index(%.40q, %q, ignoreCase %v) (-want +got):\n%s", tt.text, tt.lit, tt.ignoreCase, diff)
		}
	}
}

func TestRank(t *testing.T) {
	got := []bool{
		rarebyte.Rank(' ') > rarebyte.Rank('e'),
		rarebyte.Rank('e') > rarebyte.Rank('q'),
		rarebyte.Rank('q') > rarebyte.Rank(0),
	}
	if diff := cmp.Diff([]bool{true, true, true}, got); diff != "" {
		t.Errorf("rank order (-want +got):\n%s", diff)
	}
}

// FuzzIndex checks Index against bytes.Index and asciifold.Index.
func FuzzIndex(f *testing.F) {
	f.Add([]byte("the quick brown fox"), "fox", false)
	f.Add([]byte("AaAaAaAaAaAab"), "aab", true)
	f.Add([]byte(strings.Repeat("zy", 100)+"zx"), "zx", false)
	f.Add([]byte(strings.Repeat("dodo dadi ", 40)+"dodirira"), "dodirira", false)
	f.Fuzz(func(t *testing.T, text []byte, lit string, ignoreCase bool) {
		got := rarebyte.New(lit, ignoreCase).Index(text)
		want := bytes.Index(text, []byte(lit))
		if ignoreCase {
			want = asciifold.Index(text, string(bytes.Map(func(r rune) rune {
				if r >= 'A' && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, []byte(lit))))
			if !utf8.ValidString(lit) {
				return // bytes.Map rewrote invalid UTF-8: the literals differ
			}
		}
		if got != want {
			t.Fatalf("Index(%q, %q, ignoreCase %v) = %d, want %d", text, lit, ignoreCase, got, want)
		}
	})
}

func ExampleFinder_Index() {
	f := rarebyte.New("Quartz", true)
	fmt.Println(f.Index([]byte("a rose quartz, and another")))
	// Output: 7
}

// BenchmarkIndex compares a Finder with bytes.Index (and asciifold.Index ignoring case) on
// generated Markdown prose, for a word found in about 1% of its files: x_index is the
// Finder's time over theirs.
func BenchmarkIndex(b *testing.B) {
	prose := grepbench.NewProse(300, 3<<20, 1)
	var text []byte
	for _, f := range prose.Files {
		text = append(text, f.Content...)
	}
	for _, bc := range []struct {
		name       string
		lit        string
		ignoreCase bool
	}{
		{"Word", prose.Word(0.01), false},
		{"RareWord", prose.Word(0.006), false},
		{"IgnoreCase", strings.ToUpper(prose.Word(0.01)), true},
		{"Absent", "nowhere to be found", false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := rarebyte.New(bc.lit, bc.ignoreCase)
			lower := f.Literal()
			count := func(index func([]byte) int) int {
				n := 0
				for s := text; ; {
					k := index(s)
					if k < 0 {
						return n
					}
					n++
					s = s[k+1:]
				}
			}
			ref := func(s []byte) int { return bytes.Index(s, []byte(bc.lit)) }
			if bc.ignoreCase {
				ref = func(s []byte) int { return asciifold.Index(s, lower) }
			}
			if got, want := count(f.Index), count(ref); got != want {
				b.Fatalf("the Finder found %d occurrences, the reference %d", got, want)
			}
			var ours, theirs int64
			for i := 0; i < b.N; i++ {
				ours += timed(func() { count(f.Index) })
				theirs += timed(func() { count(ref) })
			}
			b.ReportMetric(float64(ours)/float64(theirs), "x_index")
		})
	}
}

func timed(f func()) int64 {
	start := time.Now()
	f()
	return int64(time.Since(start))
}

// TestEarliest: at every growing position, Earliest gives the first occurrence of any literal
// at or after it, as searching for each literal from that position would.
func TestEarliest(t *testing.T) {
	text := []byte("alpha beta\ngamma alpha\nbeta beta delta\nnothing\nGAMMA")
	lits := []string{"beta", "gamma", "delta", "absent"}
	finders := make([]rarebyte.Finder, len(lits))
	for i, l := range lits {
		finders[i] = rarebyte.New(l, false)
	}
	e := rarebyte.NewEarliest(finders)
	var got, want []int
	for pos := 0; pos <= len(text); pos += 3 {
		got = append(got, e.Index(text, pos))
		first := -1
		for _, l := range lits {
			if k := bytes.Index(text[pos:], []byte(l)); k >= 0 && (first < 0 || pos+k < first) {
				first = pos + k
			}
		}
		want = append(want, first)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-each literal searched +Earliest):\n%s", diff)
	}
}
