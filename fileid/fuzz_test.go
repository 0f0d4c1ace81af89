package fileid

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// tocSeeds are the edge cases of CommonMark heading detection.
var tocSeeds = []string{
	"", "#", "# A", "# A\n## B\n### C\n", "## A\n## B\n## C\n", "```\n# x\n```\n# y\n", "- a\n\n  ```\n  # x\n  ```\n",
	"    # code\n", "A\n===\nB\n---\n", "---\ntitle: t\n---\n# A\n", "---\n---\n", "---\n", "\xef\xbb\xbf# A\n",
	"> # q\n", "<div>\n# h\n</div>\n", "# A\r\n## B\r\n", "\t# tab\n", "x\n\n# A\n", "#\n#\n#\n", "####### seven\n",
	"# a\n###### f\n## b\n", "[x]: /u\n===\n", "* a\n  # h\n", "1. a\n   ```\n   # c\n   ```\n", "\x00# \xff\n", "é\n===\n",
}

// FuzzTOC: on arbitrary bytes the outline builder never panics, every section is a byte-exact
// slice of the input that starts at a line start, IDs are unique and accepted by ReadSections,
// sections nest, and search attribution lands inside the section it names.
func FuzzTOC(f *testing.F) {
	for _, s := range append(tocSeeds, titleSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		reg, err := New(context.Background(), []Root{{Label: "r", FS: fstest.MapFS{"f.md": {Data: content}}}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		toc, err := reg.TableOfContents("f1", TOCOptions{MaxDepth: MaxTOCDepth, MaxEntries: MaxTOCEntries})
		if err != nil {
			t.Fatal(err)
		}
		f := reg.files[0]
		o := f.outline()
		seen := map[string]bool{}
		var ids []string
		for _, e := range toc.Entries {
			if seen[e.ID] {
				t.Fatalf("duplicate section ID %q", e.ID)
			}
			seen[e.ID] = true
			ids = append(ids, e.ID)
		}
		if len(ids) > MaxSectionsPerRead {
			ids = ids[:MaxSectionsPerRead]
		}
		if len(ids) == 0 {
			if _, err := reg.ReadSections("f1", []string{"1"}, ReadOptions{}); err == nil {
				t.Fatal("file without sections returned one")
			}
			return
		}
		res, err := reg.ReadSections("f1", ids, ReadOptions{MaxBytes: MaxReadBytes})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Errors) > 0 {
			t.Fatalf("TOC IDs rejected by ReadSections: %+v", res.Errors)
		}
		for _, s := range res.Sections {
			h, _ := o.section(s.ID)
			if h.start < f.bodyStart || h.end > len(content) || h.start >= h.end {
				t.Fatalf("section %s range [%d,%d) outside body [%d,%d)", s.ID, h.start, h.end, f.bodyStart, len(content))
			}
			if !s.Truncated && s.Content != string(content[h.start:h.end]) {
				t.Fatalf("section %s is not byte-exact", s.ID)
			}
			lineStart := h.start == 0 || content[h.start-1] == '\n' || content[h.start-1] == '\r' && content[h.start] != '\n'
			if !lineStart && h.start != f.bodyStart {
				t.Fatalf("section %s does not start at a line start", s.ID)
			}
			if want := 1 + countLines(content[:h.start]); s.Line != want {
				t.Fatalf("section %s line %d, want %d", s.ID, s.Line, want)
			}
			if i := strings.LastIndexByte(s.ID, '/'); i > 0 {
				p, ok := o.section(s.ID[:i])
				if !ok || p.start > h.start || p.end < h.end {
					t.Fatalf("section %s is not inside its parent", s.ID)
				}
			}
		}
		sr, err := reg.Search(context.Background(), SearchRequest{Query: "^", MaxMatches: MaxMatches})
		if err != nil {
			t.Fatal(err)
		}
		for _, fm := range sr.Results {
			for _, m := range fm.Matches {
				h, ok := o.section(m.SectionID)
				if !ok {
					t.Fatalf("search returned unknown section %q", m.SectionID)
				}
				first := 1 + countLines(content[:h.start])
				last := 1 + countLines(content[:h.end])
				if m.Line < first || m.Line > last {
					t.Fatalf("match line %d outside section %s lines %d-%d", m.Line, m.SectionID, first, last)
				}
			}
		}
	})
}

// FuzzParseID: ParseID never panics, accepts exactly ^f[1-9][0-9]*$ (up to the digit bound),
// and round-trips through FormatID.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"f1", "f0", "f01", "F1", "f", "", "f12a", "f999999999999", "f9999999999999", "f-1", "f١", " f1", "f1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		n, err := ParseID(id)
		valid := len(id) >= 2 && len(id) <= 1+maxIDDigits && id[0] == 'f' && id[1] >= '1' && id[1] <= '9' &&
			strings.Trim(id[1:], "0123456789") == ""
		if valid != (err == nil) {
			t.Fatalf("ParseID(%q) error %v, valid %v", id, err, valid)
		}
		if err == nil && (n < 1 || FormatID(n) != id) {
			t.Fatalf("ParseID(%q) = %d", id, n)
		}
	})
}

// FuzzSearch: for arbitrary content and queries, Search never panics and agrees with the
// line-by-line reference.
func FuzzSearch(f *testing.F) {
	for i, q := range searchQueries {
		f.Add([]byte(tocSeeds[i%len(tocSeeds)]+"\nWidget k \u212a ſ s\n"), q.query, q.fold)
	}
	f.Add([]byte("# A\nbad \xff\xfe utf8 \xef\xbf\xbd\n"), `\x{FFFD}`, false)
	f.Add([]byte("# A\nbad \xc3 x\n"), `[^a-z ]x`, false)
	f.Fuzz(func(t *testing.T, content []byte, query string, fold bool) {
		reg, err := New(context.Background(), []Root{{Label: "r", FS: fstest.MapFS{"f.md": {Data: content}}}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := reg.Search(context.Background(), SearchRequest{Query: query, CaseInsensitive: fold, MaxMatches: MaxMatches})
		if err != nil {
			return // coded errors are checked elsewhere
		}
		if res.Truncated {
			return
		}
		var got []int
		for _, fm := range res.Results {
			for _, m := range fm.Matches {
				got = append(got, m.Line)
			}
		}
		want := referenceLines(t, reg, "f1", query, fold)
		if len(got) != len(want) {
			t.Fatalf("query %q fold %v: lines %v, reference %v", query, fold, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("query %q fold %v: lines %v, reference %v", query, fold, got, want)
			}
		}
	})
}

// FuzzTitle: the cheap first-H1 paths (leadingATXTitle, the prefix parse) agree with a full
// CommonMark parse of the body.
func FuzzTitle(f *testing.F) {
	for _, s := range append(titleSeeds, "# A ##\n", "#  A  #  #\n", "# #\n", "# a#\n", "\n\n  # x\n", "# é ü\n", "# a\\#\n", "# a\r\n") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o := buildOutline(body, 0)
		want, wantFound := "", o.firstH1 >= 0
		if wantFound {
			want = o.headings[o.firstH1].title
		}
		if title, ok := leadingATXTitle(body); ok && (!wantFound || title != want) {
			t.Fatalf("leadingATXTitle = %q, full parse %q (found %v)", title, want, wantFound)
		}
		if title, found, done := firstH1Title(body); done && (found != wantFound || title != want) {
			t.Fatalf("firstH1Title = %q %v, full parse %q %v", title, found, want, wantFound)
		}
	})
}

// FuzzFrontMatter: whenever the fast path answers, yaml.v3 accepts the block and decodes the
// same title and description; whenever the lenient reader answers and yaml.v3 accepts the
// block, they agree; and parseFrontMatter always gives the reference answer.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"title: A\ndescription: B\n", "title: 123\n", "title: 1e3\n", "title: 0x1F\n", "title: a b c\nother:\n  - x\n",
		"title: x\n  continued\n", "title: 'q'\n", "title: a # c\n", "title:\n", "title: ~\n", "title: yes\n",
		"other: |\n  title: no\ntitle: yes really\n", "title: A\ntitle: B\n", "- a\n", "title: 2024-01-01\n", "title: .5\n",
		"title: +1\n", "title: 0o17\n", "title: 1_000\n", "title: =\n", "title: <x>\n", "Title: x\n", "title: a\t b\n",
	} {
		f.Add([]byte(s))
	}
	rng := rand.New(rand.NewPCG(27, 2))
	for range 200 {
		f.Add(genFrontMatter(rng))
	}
	f.Fuzz(func(t *testing.T, y []byte) {
		checkFastFrontMatter(t, y)
		fast, ok := lenientFrontMatter(y)
		if !ok {
			return
		}
		slow := yamlFrontMatter(y)
		if slow.Err {
			return // yaml.v3 rejects it; the registry keeps the lenient answer
		}
		if fast != slow.FM {
			t.Fatalf("%q: lenient %+v, yaml.v3 %+v", y, fast, slow.FM)
		}
	})
}

// FuzzLineEndings: the same document written with "\n", "\r\n" and lone "\r" line endings has
// the same table of contents (sizes aside) and the same search hits, line by line. As in CommonMark, all three end a line.
func FuzzLineEndings(f *testing.F) {
	for i, s := range append(append([]string{}, tocSeeds...), "# T\nfoo\n", "# H1\n## H2\n", "---\ntitle: t\n---\n# A\n\nx \n\n## B\n") {
		q := searchQueries[i%len(searchQueries)]
		f.Add([]byte(s), q.query, q.fold)
	}
	for _, q := range []string{`foo$`, `\s$`, `^$`, `^\s*$`, `^#`, `o$`, `(?-m)^# T$`, `\Afoo\z`, `x\s*$`} {
		f.Add([]byte("# T\nfoo\n\nfoo \n## S\nx\n"), q, false)
	}
	f.Fuzz(func(t *testing.T, doc []byte, query string, fold bool) {
		lf := bytes.ReplaceAll(doc, []byte{'\r'}, nil)
		files := fstest.MapFS{
			"a.md": {Data: lf},
			"b.md": {Data: bytes.ReplaceAll(lf, nl, []byte("\r\n"))},
			"c.md": {Data: bytes.ReplaceAll(lf, nl, []byte{'\r'})},
		}
		reg, err := New(context.Background(), []Root{{Label: "r", FS: files}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		type shape struct {
			TOC  []TOCEntry
			Hits []Match
		}
		var want shape
		for i, id := range []string{"f1", "f2", "f3"} {
			toc, err := reg.TableOfContents(id, TOCOptions{MaxDepth: MaxTOCDepth, MaxEntries: MaxTOCEntries})
			if err != nil {
				t.Fatal(err)
			}
			for k := range toc.Entries {
				toc.Entries[k].SizeBytes = 0
			}
			got := shape{TOC: toc.Entries}
			if res, err := reg.Search(context.Background(), SearchRequest{Query: query, FileID: id, CaseInsensitive: fold, MaxMatches: MaxMatches}); err == nil {
				for _, fm := range res.Results {
					got.Hits = append(got.Hits, fm.Matches...)
				}
			}
			if i == 0 {
				want = got
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s differs from the \\n version (-\\n +%s), query %q:\n%s", files[reg.files[i].info.Filename].Data, id, query, diff)
			}
		}
	})
}
