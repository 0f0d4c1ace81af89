package fileid

import (
	"regexp/syntax"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequiredLiterals(t *testing.T) {
	for _, tt := range []struct {
		query string
		want  []foldLiteral // nil: none
	}{
		{"error|warning", []foldLiteral{{"error", false}, {"warning", false}}},
		{"(?i)error|Warning", []foldLiteral{{"ERROR", true}, {"WARNING", true}}}, // the parser's case
		{"(?i:tab)|Space", []foldLiteral{{"TAB", true}, {"Space", false}}},
		{`\b(TODO|FIXME)\b:`, []foldLiteral{{"TODO", false}, {"FIXME", false}}}, // longer than ":"
		{"x(foo|bar)+", []foldLiteral{{"foo", false}, {"bar", false}}},
		{"fooo(a|b)", []foldLiteral{{"fooo", false}}},
		{"(?:ab|cd)(?:efg|hij)", []foldLiteral{{"efg", false}, {"hij", false}}},
		{"foo|bar?", []foldLiteral{{"foo", false}, {"ba", false}}}, {"foo|x?", nil}, {"foo|[a-z]+", nil}, {"(foo|bar)*", nil}, {"a|b|c|d|e|f|g|h|i", nil},
		{"aa|bb|cc|dd|ee|ff|gg|hh|ii", nil}, // more than maxPrefilterLiterals
	} {
		re, err := syntax.Parse(tt.query, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, requiredLiterals(re), cmp.AllowUnexported(foldLiteral{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.query, diff)
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
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(literalSet{})); diff != "" {
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
	reg := oneFile(t, body)
	for _, q := range []struct {
		query string
		fold  bool
	}{
		{"error|warning", false}, {"error|warning", true}, {"(?i:ERROR)|warning", false}, {`\b(TODO|FIXME)\b:`, false},
		{"kelvin|temp", true}, {"(error|warning)s", false}, {"(?:an|on) (?:error|warning)", true},
		{"(?:first|second|colon)$", false},
	} {
		m, err := newMatcher(q.query, q.fold)
		if err != nil {
			t.Fatal(err)
		}
		if m.pres == nil {
			t.Errorf("%q: does not take the alternation path (pre %q)", q.query, m.pre)
		}
		want := referenceLines(t, reg, "f1", q.query, q.fold)
		got := searchLines(t, reg, "f1", q.query, q.fold)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q fold %v (-reference +search):\n%s", q.query, q.fold, diff)
		}
	}
}
