package globmatch_test

import (
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/globmatch"
)

// globStepBound is the most steps a match may take: a few per pattern byte per path byte.
func globStepBound(pattern, name string) int {
	return 8 * (len(pattern) + 2) * (len(name) + 2)
}

// TestGlobCostIsBounded matches the hostile patterns of their kind and checks that the matcher
// takes at most globStepBound steps, or that the pattern is refused as INVALID_PATTERN.
func TestGlobCostIsBounded(t *testing.T) {
	deep := strings.Repeat("d/", 59) + "file"
	tests := []struct {
		name, pattern, path string
		refused, want       bool
	}{
		{name: "empty alternatives x300", pattern: strings.Repeat("{,}", 300), path: "a", refused: true},
		{name: "empty alternatives x300 after a dir", pattern: "src/" + strings.Repeat("{,}", 300) + "x", path: "src/x", refused: true},
		{name: "empty alternatives x12", pattern: strings.Repeat("{,}", 12) + "x", path: "x", want: true},
		{name: "globstars x7 then zz", pattern: strings.Repeat("**/*/", 7) + "zz", path: deep},
		{name: "globstars x7 then file", pattern: strings.Repeat("**/*/", 7) + "file", path: deep, want: true},
		{name: "stars in one segment", pattern: strings.Repeat("*a", 100) + "b", path: strings.Repeat("a", 900)},
		{name: "nested braces", pattern: "{a,{b,{c,{d,*}}}}" + strings.Repeat("?", 20), path: strings.Repeat("x", 30), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := globmatch.Compile(tc.pattern)
			if tc.refused {
				if code := agentfiles.ErrorCode(err); code != agentfiles.CodeInvalidPattern {
					t.Fatalf("Compile: error %v (code %q), want INVALID_PATTERN", err, code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, steps := globmatch.MatchSteps(g, tc.path)
			if got != tc.want {
				t.Errorf("Match = %v, want %v", got, tc.want)
			}
			if bound := globStepBound(tc.pattern, tc.path); steps > bound {
				t.Errorf("%d steps, more than the bound %d", steps, bound)
			}
		})
	}
}

// FuzzGlobCost checks that any pattern the compiler accepts matches any path in at most
// globStepBound steps: linear in pattern × path, whatever stars, globstars and braces it holds.
func FuzzGlobCost(f *testing.F) {
	for _, s := range [][2]string{
		{strings.Repeat("{,}", 12), "a"}, {strings.Repeat("**/*/", 7) + "zz", strings.Repeat("d/", 59) + "f"},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"{a,{b,*}}[!x]?", "bcd"}, {"**", "a/b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		g, err := globmatch.Compile(pattern)
		if err != nil {
			return
		}
		if _, steps := globmatch.MatchSteps(g, name); steps > globStepBound(pattern, name) {
			t.Fatalf("Glob(%q) on %q: %d steps, more than %d", pattern, name, steps, globStepBound(pattern, name))
		}
	})
}

// BenchmarkGlobHostile matches the hostile globstar pattern against a 60-segment path; the
// reference is a plain "**/*.md" on the same path.
func BenchmarkGlobHostile(b *testing.B) {
	deep := strings.Repeat("d/", 59) + "file"
	for _, p := range []string{"**/*.md", strings.Repeat("**/*/", 7) + "zz"} {
		g, err := globmatch.Compile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				g.Match(deep)
			}
		})
	}
}
