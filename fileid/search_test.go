package fileid

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

// corpusRoots is the checked-in corpus of realistic Markdown under testdata/corpus.
func corpusRoots(t testing.TB) []Root {
	t.Helper()
	root, err := DirRoot("testdata/corpus", filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return []Root{root}
}

// realRoots adds, read-only, the Markdown shipped with the Go toolchain and in the module
// cache, when present: documents nobody wrote for this test.
func realRoots(t testing.TB) []Root {
	t.Helper()
	roots := corpusRoots(t)
	for _, env := range []string{"GOROOT", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", env).Output()
		dir := strings.TrimSpace(string(out))
		if err != nil || dir == "" {
			continue
		}
		if r, err := DirRoot(env, dir); err == nil {
			roots = append(roots, r)
		}
	}
	return roots
}

// referenceLines is the obvious implementation Search must agree with: split the body into
// lines and match each with the expression.
func referenceLines(t testing.TB, reg *Registry, fileID, query string, fold bool) []int {
	t.Helper()
	f, err := reg.lookup(fileID)
	if err != nil {
		t.Fatal(err)
	}
	flags := "(?m)"
	if fold {
		flags = "(?mi)"
	}
	re := regexp.MustCompile(flags + query)
	var lines []int
	// Lines end at "\n", "\r\n" or a lone "\r", as in CommonMark.
	n := 1 + len(splitLines(f.content[:f.bodyStart])) - 1
	body := f.content[f.bodyStart:]
	o := f.outline()
	pos := 0
	for _, line := range splitLines(body) {
		if pos < len(body) && re.Match(line) {
			if _, ok := o.sectionAt(f.bodyStart + pos); ok {
				lines = append(lines, n)
			}
		}
		pos += len(line) + 1
		if pos < len(body) && body[pos-1] == '\r' && body[pos] == '\n' {
			pos++
		}
		n++
	}
	return lines
}

// splitLines splits b at every "\r\n", "\n" and lone "\r", independently of the code under
// test: the text after the last line ending is a last (possibly empty) line.
func splitLines(b []byte) [][]byte {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var out [][]byte
	for _, l := range strings.Split(s, "\n") {
		out = append(out, []byte(l))
	}
	return out
}

func searchLines(t testing.TB, reg *Registry, fileID, query string, fold bool) []int {
	t.Helper()
	res, err := reg.Search(context.Background(), SearchRequest{Query: query, FileID: fileID, CaseInsensitive: fold, MaxMatches: MaxMatches})
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	if res.Truncated {
		t.Fatalf("Search(%q) truncated; use a rarer query", query)
	}
	var lines []int
	for _, fm := range res.Results {
		for _, m := range fm.Matches {
			lines = append(lines, m.Line)
		}
	}
	return lines
}

// searchQuery is a query and whether it is case-insensitive.
type searchQuery struct {
	query string
	fold  bool
}

// checkPath checks that every query takes the search path that takes recognises (named path in
// messages), and that it finds the same lines in body as the line-by-line reference.
func checkPath(t *testing.T, body, path string, takes func(*matcher) bool, queries []searchQuery) {
	t.Helper()
	reg := oneFile(t, body)
	for _, q := range queries {
		m, err := newMatcher(q.query, q.fold)
		if err != nil {
			t.Fatal(err)
		}
		if !takes(m) {
			t.Errorf("%q: does not take the %s path (literal %q, pre %q, set %v, first %v, runs %v)",
				q.query, path, m.literal, m.pre, m.pres != nil, m.first != nil, m.runs != nil)
		}
		want := referenceLines(t, reg, "f1", q.query, q.fold)
		got := searchLines(t, reg, "f1", q.query, q.fold)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q fold %v (-reference +search):\n%s", q.query, q.fold, diff)
		}
	}
}

var searchQueries = []searchQuery{
	{"widget", false}, {"Widget", false}, {"widget", true}, {"WIDGET", true}, {"snapshot", true},
	{"not a heading", false}, {"# ", false}, {"^#+ ", false}, {"^## ", false}, {"`[a-z-]+`", false},
	{`\bGET\b`, false}, {"get /widgets", true}, {"(?i)json", false}, {"x*", false}, {"$", false},
	{"^$", false}, {`\d+\.\d+\.\d+`, false}, {"a.+\n", false}, {"flag", true}, {"Widget|Caddy", false},
	{"k", true}, {"s", true}, {"ſ", true}, {"é", true}, {"[[:upper:]]{3,}", false}, {"^\\s*[-*] ", false},
	{"(sn)+apshot", false}, {"t{2}", false}, {"text\\b", false}, {"title", true},
	{`\b[QWS][a-z]{3,}\b`, false}, {"[0-9]{2}", false}, {`\x{FFFD}`, false}, {"[é-ü]", false}, {"(?:a|b)?c", true},
	{`\bk[a-z]+`, true}, {"[^a-z ]", false}, {"\t", false},
	// byte-run prefilter (search_runs.go): no required literal, no small start-byte set
	{"[a-z]{12,}", false}, {"[a-z]{6,}", true}, {`\w{4}\d`, false}, {`\d{4}-\d{2}`, false}, {".{60,}", false},
	{"[a-z]+ [a-z]+ [a-z]+$", false}, {"(?:[a-z]{3}|[0-9]{5})[A-Z]", false}, {`[^\x00-\x7f]{2}`, false},
	{"[k-m]{2}", true}, {`[\x{FFFD}a-c]{3}`, false}, {`(?s)[a-z].{20}`, false}, {`\b[[:alpha:]]{9}\b`, false},
	// alternation prefilter (search_literals.go): one of a few literals
	{"widget|snapshot", true}, {"(?i:widget)|Caddy", false}, {`\b(?:GET|POST|DELETE) /`, false}, {"(json|yaml)+ file", true},
	{"(?:install|config)(?:ure|ation)", false}, {"kelvin|ſ", true},
	// \A and \z are the ends of each line, as for the reference, on every path
	{`\z`, false}, {`\z{1}`, false}, {`\A`, false}, {`(?:\Aa)|b`, false}, {`\A.*\z`, false}, {"(?-m)widget$", true},
	{`\A[a-z]*\z`, false}, {`(?-m)^$`, false},
	// start bytes checked by the byte run after them; ASCII case-insensitive literals
	{`\b[QXZ][a-z]{6,}\b`, false}, {`[WS][a-z]{2}`, true}, {`[#>]\s*\w{3}`, false}, {"race condition", true},
	{"utf-8", true}, {"thread-?safe", true}, {"Widget Caddy", true}, {"~", true},
}

func TestSearchAgreesWithLineByLineReference(t *testing.T) {
	reg := mustNew(t, corpusRoots(t), Options{})
	for _, q := range searchQueries {
		for _, f := range reg.Files() {
			want := referenceLines(t, reg, f.FileID, q.query, q.fold)
			got := searchLines(t, reg, f.FileID, q.query, q.fold)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("query %q fold %v in %s (-reference +search):\n%s", q.query, q.fold, f.Filename, diff)
			}
		}
	}
}

func TestSearchCaseFoldingMatchesRE2(t *testing.T) {
	// RE2 folds k to the Kelvin sign and s to the long s; the ASCII fast path must not miss them.
	body := "# Units\nTemperature in \u212aelvin\nlong \u017f here\nplain kelvin\n"
	reg := oneFile(t, body)
	for _, q := range []string{"kelvin", "KELVIN", "s here", "Temp"} {
		want := referenceLines(t, reg, "f1", q, true)
		got := searchLines(t, reg, "f1", q, true)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-reference +search):\n%s", q, diff)
		}
	}
	if got := searchLines(t, reg, "f1", "kelvin", true); len(got) != 2 {
		t.Errorf("kelvin case-insensitive found lines %v, want the Kelvin-sign line and the plain line", got)
	}
}

// TestSearchSectionRoundTrip: every section_id a search returns is accepted by read_sections,
// and the section returned contains the matching line, on the checked-in corpus and on the
// Markdown of the Go toolchain and module cache.
func TestSearchSectionRoundTrip(t *testing.T) {
	roots := corpusRoots(t)
	if !testing.Short() {
		roots = realRoots(t)
	}
	reg := mustNew(t, roots, Options{})
	t.Logf("%d files", reg.Len())
	ctx := context.Background()
	checked := 0
	for _, q := range []struct {
		query string
		fold  bool
	}{{"the", true}, {"^#", false}, {"go", false}, {"[A-Z]{2,}", false}, {"^$", false}, {"```", false}, {"error", true}} {
		for _, f := range reg.Files() {
			res, err := reg.Search(ctx, SearchRequest{Query: q.query, CaseInsensitive: q.fold, FileID: f.FileID, MaxMatches: MaxMatches})
			if err != nil {
				t.Fatal(err)
			}
			for _, fm := range res.Results {
				if fm.FileID != f.FileID || fm.Filename != f.Filename {
					t.Fatalf("result for %s names %s %s", f.FileID, fm.FileID, fm.Filename)
				}
				content := fileContent(t, reg, fm.FileID)
				lines := strings.SplitAfter(string(content), "\n")
				for _, m := range fm.Matches {
					secs, err := reg.ReadSections(fm.FileID, []string{m.SectionID}, ReadOptions{MaxBytes: MaxReadBytes})
					if err != nil {
						t.Fatalf("%s %s: search returned section %q that read_sections rejects: %v", fm.FileID, fm.Filename, m.SectionID, err)
					}
					s := secs.Sections[0]
					if s.Truncated {
						continue // larger than a read; the containment check below needs it whole
					}
					first, last := s.Line, s.Line+strings.Count(s.Content, "\n")
					if !strings.HasSuffix(s.Content, "\n") {
						last++
					}
					if m.Line < first || m.Line >= max(last, first+1) {
						t.Fatalf("%s %s: match on line %d is outside section %s (lines %d–%d)", fm.FileID, fm.Filename, m.Line, m.SectionID, first, last-1)
					}
					line := strings.TrimSuffix(strings.TrimSuffix(lines[m.Line-1], "\n"), "\r")
					if !strings.Contains(s.Content, line) || (len(line) <= MaxLineBytes && m.Text != line) {
						t.Fatalf("%s line %d: text %q, file line %q", fm.Filename, m.Line, m.Text, line)
					}
					if s.Title != m.Heading {
						t.Fatalf("%s: heading %q, section title %q", fm.Filename, m.Heading, s.Title)
					}
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d matches checked", checked)
	}
	t.Logf("%d matches round-tripped", checked)
}

func TestSearchAttribution(t *testing.T) {
	reg := mustNew(t, corpusRoots(t), Options{})
	res, err := reg.Search(context.Background(), SearchRequest{Query: "not a heading"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ File, Section, Heading string }
	var got []row
	for _, fm := range res.Results {
		for _, m := range fm.Matches {
			got = append(got, row{fm.Filename, m.SectionID, m.Heading})
		}
	}
	want := []row{
		{"guides/install.md", "1/1", "From source"},
		{"reference/faq.mdx", "1/4", "Is there a client library?"},
		{"reference/faq.mdx", "0", PreambleTitle},
	}
	// faq.mdx: the import line is the preamble; "not a heading" appears in the callout (section 1)
	// and in the list item (1/4). Sort the expectation as Search does: by file, then line.
	want = []row{want[0], {"reference/faq.mdx", "1", "Frequently asked questions"}, want[1]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attribution (-want +got):\n%s", diff)
	}
}

func TestSearchErrors(t *testing.T) {
	reg := mustNew(t, corpusRoots(t), Options{})
	ctx := context.Background()
	tests := []struct {
		req      SearchRequest
		sentinel error
	}{
		{SearchRequest{Query: ""}, agentfiles.ErrInvalidQuery},
		{SearchRequest{Query: strings.Repeat("a", MaxQueryBytes+1)}, agentfiles.ErrInvalidQuery},
		{SearchRequest{Query: "foo("}, ErrInvalidRegex},
		{SearchRequest{Query: "[z-a]"}, ErrInvalidRegex},
		{SearchRequest{Query: `\p{Nope}`}, ErrInvalidRegex},
		{SearchRequest{Query: "(?<name"}, ErrInvalidRegex},
		{SearchRequest{Query: "a{1001}"}, ErrInvalidRegex},
		{SearchRequest{Query: "x", FileID: "f0"}, ErrInvalidFileID},
		{SearchRequest{Query: "x", FileID: "f99"}, ErrFileIDNotFound},
	}
	for _, tt := range tests {
		_, err := reg.Search(ctx, tt.req)
		if !errors.Is(err, tt.sentinel) {
			t.Errorf("Search(%+v) = %v, want %v", tt.req, err, tt.sentinel)
		}
	}
	_, err := reg.Search(ctx, SearchRequest{Query: "foo("})
	if !strings.Contains(err.Error(), "backslash") {
		t.Errorf("INVALID_REGEX message lacks the fix: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := reg.Search(canceled, SearchRequest{Query: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled search: %v", err)
	}
}

func TestSearchCapsAndDeterminism(t *testing.T) {
	m := fstest.MapFS{}
	for i := range 40 {
		m[fmt.Sprintf("doc%02d.md", i)] = &fstest.MapFile{Data: []byte(strings.Repeat("# h\nhit\n", 10))}
	}
	reg := mustNew(t, []Root{{Label: "r", FS: m}}, Options{Concurrency: 4})
	ctx := context.Background()
	first, err := reg.Search(ctx, SearchRequest{Query: "hit", MaxMatches: 25})
	if err != nil {
		t.Fatal(err)
	}
	if first.MatchCount != 25 || !first.Truncated || len(first.Results) != 3 || !strings.Contains(first.Note, "pass fileId") {
		t.Fatalf("capped search: count %d, truncated %v, files %d, notice %q", first.MatchCount, first.Truncated, len(first.Results), first.Note)
	}
	for range 20 {
		again, err := reg.Search(ctx, SearchRequest{Query: "hit", MaxMatches: 25})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("search is not deterministic:\n%s", diff)
		}
	}
	exact, _ := reg.Search(ctx, SearchRequest{Query: "hit", MaxMatches: 400})
	if exact.MatchCount != 400 || exact.Truncated {
		t.Errorf("exactly all: %d %v", exact.MatchCount, exact.Truncated)
	}
	huge, _ := reg.Search(ctx, SearchRequest{Query: "hit", MaxMatches: 1 << 30})
	if huge.MatchCount != 400 || huge.Truncated || !strings.Contains(huge.Note, "clamped") {
		t.Errorf("clamped: %d %v %q", huge.MatchCount, huge.Truncated, huge.Note)
	}
	one, _ := reg.Search(ctx, SearchRequest{Query: "h", FileID: "f2", MaxMatches: 3})
	if one.MatchCount != 3 || !one.Truncated || strings.Contains(one.Note, "pass fileId") {
		t.Errorf("one file: %+v", one)
	}
	none, _ := reg.Search(ctx, SearchRequest{Query: "absent"})
	if none.MatchCount != 0 || none.Results == nil || none.Truncated {
		t.Errorf("no match: %+v", none)
	}
}

func TestSearchLongLineExcerpt(t *testing.T) {
	long := strings.Repeat("α", 300) + " NEEDLE " + strings.Repeat("ω", 300)
	reg := oneFile(t, "# L\n"+long+"\n")
	for _, q := range []string{"NEEDLE", "NEE+DLE", "needle"} {
		res, err := reg.Search(context.Background(), SearchRequest{Query: q, CaseInsensitive: q == "needle"})
		if err != nil || res.MatchCount != 1 {
			t.Fatalf("%q: %+v %v", q, res, err)
		}
		text := res.Results[0].Matches[0].Text
		if !strings.Contains(text, "NEEDLE") || !strings.HasPrefix(text, "…") || !strings.HasSuffix(text, "…") ||
			len(text) > MaxLineBytes+2*len("…") || !utf8Valid(text) {
			t.Errorf("%q: excerpt %q", q, text)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestRequiredLiteral(t *testing.T) {
	for _, tt := range []struct{ query, lit string }{
		{"foo", "foo"}, {`func\s+Error`, "Error"}, {"(abc)+d", "abc"}, {"a|b", ""}, {"x*yz", "yz"},
		{"(?i)Hello", "hello"}, {"a{2,}bc", "bc"}, {"[ab]c", "c"},
	} {
		m, err := newMatcher(tt.query, false)
		if err != nil {
			t.Fatal(err)
		}
		got := string(m.literal) + string(m.pre)
		if got != tt.lit {
			t.Errorf("%q: literal %q, want %q", tt.query, got, tt.lit)
		}
	}
}

// walkMarkdown lists Markdown files under dir, for the benchmarks' reference side.
func walkMarkdown(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

var _ = os.ReadFile
