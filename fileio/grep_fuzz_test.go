package fileio_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/google/go-cmp/cmp"
)

// referenceLines matches each line of content on its own with Go's regexp: the rule Grep must
// follow (lines split at "\n", none after a final "\n").
func referenceLines(re *regexp.Regexp, content string) []int {
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") || content == "" {
		lines = lines[:len(lines)-1]
	}
	var out []int
	for i, l := range lines {
		if re.MatchString(l) {
			out = append(out, i+1)
		}
	}
	return out
}

// FuzzGrepAnalysis checks the two promises of the pattern analysis on any pattern and content:
// the ContentQuery holds for every content with a matching line (an index that uses it never
// drops a file that matches), and the line matcher reports exactly the lines a per-line
// regexp match finds.
func FuzzGrepAnalysis(f *testing.F) {
	seeds := []struct {
		pattern, content string
		fold             bool
	}{
		{"hello", "say hello\n", false},
		{"KELVIN", "\u212aelvin\n", true},
		{"stra", "ſtraße", true},
		{"(foo|ba[rz])+x", "bazbarx\r\n", false},
		{`^\s*func \w+Error\(`, "\tfunc myError(x)\n", false},
		{"a.*b$", "a\nb\n", false},
		{`(?i)ǅ`, "ǆ", false},
		{"x{2,}y?", "xx\n", false},
		{"", "", false},
		{"^$", "\n\n", false},
		{`\Aab\z`, "ab\nab", false},
		{"[^a]b", "\nb", false},
		{"日本|中", "本日本\n", true},
		{"k", "\u212a", true},
		{`[0-9]{4}-[0-9]{2}`, "- 2024-05 and 1999-1\n-- 12-34\n", false},
		{`.-\x{FFFD}`, "é-\xff\nx-\xc3\xa9\n", false},
		{`(?i)(straße|foo\w+bar|x?baz)`, "FOObar FOOxBAR\nbaz\nstraße\n", false},
		{`[0-9]{4}`, "year 2024\n12 3456\n", false},
		{`(?i)q[0-9]|z\d+x`, "Q1 zx\nZ12X\n", false},
		{`(x|yz)\w+\d`, "xa1\nyzb2\nya3\n", true},
		{`[^a]{2}-[\pL]`, "日本-語\n\xe6\x97-é\n", true},
	}
	for _, s := range seeds {
		f.Add(s.pattern, s.content, s.fold)
	}
	f.Fuzz(func(t *testing.T, pattern, content string, fold bool) {
		if len(pattern) > 200 || len(content) > 4000 {
			return
		}
		src := pattern
		if fold {
			src = "(?i)" + pattern
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return
		}
		q, err := fileio.GrepQuery(pattern, false, fold)
		if err != nil {
			t.Fatalf("GrepQuery(%q) fails where regexp.Compile does not: %v", pattern, err)
		}
		want := referenceLines(re, content)
		if len(want) > 0 && !q.Matches([]byte(content)) {
			t.Fatalf("pattern %q (fold %v) matches lines %v of %q, but its query %s rejects the content", pattern, fold, want, content, q)
		}
		got, err := fileio.MatchingLineNumbers(pattern, false, fold, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("pattern %q (fold %v) on %q: lines (-reference +got):\n%s", pattern, fold, content, diff)
		}
		chunked, err := fileio.MatchingLineNumbersInChunks(pattern, false, fold, []byte(content), 1+len(content)%7)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, chunked); diff != "" {
			t.Fatalf("pattern %q (fold %v) on %q in small chunks: lines (-reference +got):\n%s", pattern, fold, content, diff)
		}
	})
}

func TestGrepQueryShapes(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		want    string
	}{
		{"hello", false, `"hello"`},
		{"hello", true, `i:"hello"`},
		{"foo.*bar", false, `seq("foo" "bar")`},
		{`func \(\w+ \*\w+\) Close\(\) error`, false, `seq("func (" ") Close() error")`},
		{"(?i)abc.*def", false, `seq(i:"abc" i:"def")`},
		{"(abc|xyz).*def", false, `and(or("abc" "xyz") "def")`},
		{"(foo|bar)baz", false, `or("foobaz" "barbaz")`},
		{`\w+Error\(`, false, `"Error("`},
		{"ab", false, "all"},
		{".*", false, "all"},
		{"a[bc]d", false, `or("abd" "acd")`},
		{"x?abc", false, `or("xabc" "abc")`},
		{"(abc)+", false, `"abc"`},
		{"abc*", false, "all"},
		{"Kelvin", true, `i:"elvin"`},
		{"is it", true, `i:" it"`},
		{"[^\\x00-\\x{10FFFF}]", false, "none"},
	}
	for _, tc := range tests {
		q, err := fileio.GrepQuery(tc.pattern, false, tc.fold)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := q.String(); got != tc.want {
			t.Errorf("GrepQuery(%q, fold=%v) = %s, want %s", tc.pattern, tc.fold, got, tc.want)
		}
	}
}

func TestContentQueryMatches(t *testing.T) {
	lit := func(s string, fold bool) driver.ContentQuery {
		return driver.ContentQuery{Op: driver.QueryLiteral, Literal: s, IgnoreCase: fold}
	}
	seq := func(subs ...driver.ContentQuery) driver.ContentQuery {
		return driver.ContentQuery{Op: driver.QuerySequence, Sub: subs}
	}
	tests := []struct {
		q       driver.ContentQuery
		content string
		want    bool
	}{
		{lit("abc", false), "xxabcxx", true},
		{lit("abc", false), "xxABCxx", false},
		{lit("abc", true), "xxABcxx", true},
		{lit("a-1", true), "A-1", true},
		{lit("é", true), "É", false}, // ignore-case literals fold ASCII only; the analysis never puts é in one
		{seq(lit("foo", false), lit("bar", false)), "foo bar", true},
		{seq(lit("foo", false), lit("bar", false)), "bar foo", false},
		{seq(lit("foo", false), lit("oba", false)), "foobar", false}, // "oba" must start after "foo" ends
		{seq(lit("foo", false), lit("bar", false)), "foo foo bar", true},
		{seq(lit("foo", true), lit("bar", true)), "FOO\nBAR", true},
		{driver.ContentQuery{Op: driver.QueryOr, Sub: []driver.ContentQuery{lit("x1", false), lit("y2", false)}}, "y2", true},
		{driver.ContentQuery{Op: driver.QueryAnd, Sub: []driver.ContentQuery{lit("x1", false), lit("y2", false)}}, "y2", false},
		{driver.ContentQuery{Op: driver.QueryNone}, "anything", false},
		{driver.ContentQuery{Op: driver.QueryAll}, "", true},
	}
	for _, tc := range tests {
		if got := tc.q.Matches([]byte(tc.content)); got != tc.want {
			t.Errorf("%s.Matches(%q) = %v, want %v", tc.q, tc.content, got, tc.want)
		}
	}
}
