package fileio

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExactLiterals: a pattern is literal text alone only when every line that contains one of
// the strings matches it and no other line does, under the folding the strings are compared
// with.
func TestExactLiterals(t *testing.T) {
	tests := []struct {
		pattern      string
		fixed, icase bool
		want         []string // nil: not literal text alone
		fold         bool
	}{
		{pattern: "needle", want: []string{"needle"}},
		{pattern: "a.b", fixed: true, want: []string{"a.b"}},
		{pattern: "Needle", icase: true, want: []string{"needle"}, fold: true},
		{pattern: "(?i)needle|HAY", want: []string{"hay", "needle"}, fold: true},
		{pattern: "foo|bar", want: []string{"bar", "foo"}},
		{pattern: "fooba[rz]", want: []string{"foobar", "foobaz"}},
		{pattern: "colou?r", want: []string{"color", "colour"}},
		{pattern: "(?i)fo[o0]", want: []string{"fo0", "foo"}, fold: true},
		{pattern: "needle", icase: true, want: []string{"needle"}, fold: true},
		{pattern: "(?i:foo)bar"},                                       // part of the pattern folds case, part does not
		{pattern: "(?i:foo)123", want: []string{"foo123"}, fold: true}, // digits have no case
		{pattern: "(?i:foo)[A]"},                                       // a class with one case only
		{pattern: "kubectl", icase: true},                              // "k" also matches the Kelvin sign
		{pattern: "café", icase: true},                                 // "é" folds outside ASCII
		{pattern: "café", want: []string{"café"}},
		{pattern: "^needle"},
		{pattern: `needle\b`},
		{pattern: "need.e"},
		{pattern: "ne+dle"},
		{pattern: "a|"},      // the empty string matches every line
		{pattern: "a\nb"},    // no line holds "\n"
		{pattern: "a\x00b"},  // files with NUL are skipped
		{pattern: "\uFEFFa"}, // a byte order mark is not part of the first line
		{pattern: "[a-z]needle"},
	}
	for _, tc := range tests {
		got := exactLiteralsOf(tc.pattern, tc.fixed, tc.icase)
		var lits []string
		fold := false
		if got != nil {
			lits, fold = slices.Sorted(slices.Values(got.literals)), got.fold
		}
		if diff := cmp.Diff(tc.want, lits); diff != "" || fold != tc.fold {
			t.Errorf("%q (fixed %v, ignore case %v): fold %v, literals (-want +got):\n%s", tc.pattern, tc.fixed, tc.icase, fold, diff)
		}
	}
}
