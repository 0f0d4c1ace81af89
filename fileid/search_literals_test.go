package fileid

import (
	"regexp/syntax"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRequiredLiterals(t *testing.T) {
	const many = maxPrefilterLiterals
	for _, tt := range []struct {
		query string
		limit int           // 1, or many
		want  []foldLiteral // nil: none
	}{
		// limit 1: the longest literal every match contains, the first of equally long ones
		{`retry_count=\d{3}\b`, 1, []foldLiteral{{"retry_count=", false}}},
		{"ab(?i:cde)f", 1, []foldLiteral{{"CDE", true}}},
		{"ab[0-9]cd", 1, []foldLiteral{{"ab", false}}},
		{"error|warning", 1, nil}, {"(foo)*", 1, nil},
		// several literals, one of which every match contains
		{"error|warning", many, []foldLiteral{{"error", false}, {"warning", false}}},
		{"(?i)error|Warning", many, []foldLiteral{{"ERROR", true}, {"WARNING", true}}}, // the parser's case
		{"(?i:tab)|Space", many, []foldLiteral{{"TAB", true}, {"Space", false}}},
		{`\b(TODO|FIXME)\b:`, many, []foldLiteral{{"TODO", false}, {"FIXME", false}}}, // longer than ":"
		{"x(foo|bar)+", many, []foldLiteral{{"foo", false}, {"bar", false}}},
		{"fooo(a|b)", many, []foldLiteral{{"fooo", false}}},
		{"(?:ab|cd)(?:efg|hij)", many, []foldLiteral{{"efg", false}, {"hij", false}}},
		{"foo|bar?", many, []foldLiteral{{"foo", false}, {"ba", false}}},
		{"foo|x?", many, nil}, {"foo|[a-z]+", many, nil}, {"(foo|bar)*", many, nil}, {"a|b|c|d|e|f|g|h|i", many, nil},
		{"aa|bb|cc|dd|ee|ff|gg|hh|ii", many, nil}, // more than maxPrefilterLiterals
	} {
		re, err := syntax.Parse(tt.query, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, requiredLiterals(re, tt.limit), cmp.AllowUnexported(foldLiteral{})); diff != "" {
			t.Errorf("%q limit %d (-want +got):\n%s", tt.query, tt.limit, diff)
		}
	}
}

func TestNewLiteralSet(t *testing.T) {
	for _, tt := range []struct {
		lits []foldLiteral
		want *literalSet
	}{
		{[]foldLiteral{{"Foo", false}, {"Bar", false}}, &literalSet{lits: [][]byte{[]byte("Foo"), []byte("Bar")}}},
		{[]foldLiteral{{"Foo", true}, {"Bar", false}}, &literalSet{lits: [][]byte{[]byte("foo"), []byte("bar")}, fold: true}},
		{[]foldLiteral{{"Foo", true}, {"Übel", false}}, &literalSet{lits: [][]byte{[]byte("foo"), []byte("Übel")}, fold: true}},
		{[]foldLiteral{{"foo", false}, {"übel", true}}, nil}, // folded non-ASCII
		{[]foldLiteral{{"foo", false}, {"a\uFFFD", false}}, nil},
		{[]foldLiteral{{"foo", false}, {"a\nb", false}}, nil},
	} {
		got := newLiteralSet(tt.lits)
		if got != nil && got.fold != (len(got.folds) == len(got.lits)) {
			t.Errorf("%v: %d fold finders for %d literals, fold %v", tt.lits, len(got.folds), len(got.lits), got.fold)
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(literalSet{}), cmpopts.IgnoreFields(literalSet{}, "folds")); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.lits, diff)
		}
	}
}

// TestSearchLiteralSetPath: the queries that should take the alternation path do, and agree
// with the line-by-line reference, including where ASCII folding would miss the Kelvin sign.
func TestSearchLiteralSetPath(t *testing.T) {
	body := "# Alternation\n" +
		"an error here\n" +
		"a WARNING there, and an Error too\n" +
		"errors and warnings on one line: error warning\n" +
		"err\nor split over lines\n" +
		"TODO: first\nFIXME: second\nTODO without colon\n" +
		"Temperature in \u212aelvin\n" +
		"bad \xff utf8 error\n" +
		"no newline at the end: warning"
	checkPath(t, body, "alternation", func(m *matcher) bool { return m.pres != nil }, []searchQuery{
		{"error|warning", false}, {"error|warning", true}, {"(?i:ERROR)|warning", false}, {`\b(TODO|FIXME)\b:`, false},
		{"kelvin|temp", true}, {"(error|warning)s", false}, {"(?:an|on) (?:error|warning)", true},
		{"(?:first|second|colon)$", false},
	})
}
