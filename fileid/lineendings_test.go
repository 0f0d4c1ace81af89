package fileid

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Lines end at "\n", "\r\n" or a lone "\r" (CommonMark): $ matches before "\r\n", and a lone
// "\r" separates headings.
func TestLineEndings(t *testing.T) {
	files := fstest.MapFS{
		"crlf.md":  {Data: []byte("# T\r\nfoo\r\n\r\nbar \r\n")},
		"cr.md":    {Data: []byte("# H1\r## H2\rfoo\r\rbar \r")},
		"mixed.md": {Data: []byte("---\r\ntitle: M\r\n---\r\n# A\rfoo\r\n## B\nfoo\r")},
	}
	reg, err := New(context.Background(), []Root{{Label: "r", FS: files}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, f := range reg.Files() {
		ids[f.Filename] = f.FileID
	}
	for _, tt := range []struct {
		file, query string
		want        []int
	}{
		{"crlf.md", `foo$`, []int{2}},
		{"crlf.md", `\s$`, []int{4}},
		{"crlf.md", `^$`, []int{3}},
		{"crlf.md", `^bar $`, []int{4}},
		{"crlf.md", `T$`, []int{1}},
		{"cr.md", `foo$`, []int{3}},
		{"cr.md", `^#`, []int{1, 2}},
		{"cr.md", `\s$`, []int{5}},
		{"cr.md", `^$`, []int{4}},
		{"mixed.md", `foo$`, []int{5, 7}},
		{"mixed.md", `FOO`, nil},
	} {
		if got := searchLines(t, reg, ids[tt.file], tt.query, false); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: %q matched lines %v, want %v", tt.file, tt.query, got, tt.want)
		}
	}
	if got := searchLines(t, reg, ids["mixed.md"], "FOO", true); !cmp.Equal(got, []int{5, 7}) {
		t.Errorf("mixed.md: case-insensitive FOO matched lines %v", got)
	}

	type entry struct {
		ID, Title string
		Line      int
	}
	for file, want := range map[string][]entry{
		"crlf.md":  {{"1", "T", 1}},
		"cr.md":    {{"1", "H1", 1}, {"1/1", "H2", 2}},
		"mixed.md": {{"1", "A", 4}, {"1/1", "B", 6}},
	} {
		toc, err := reg.TableOfContents(ids[file], TOCOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []entry
		for _, e := range toc.Entries {
			got = append(got, entry{e.ID, e.Title, e.Line})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s TOC (-want +got):\n%s", file, diff)
		}
	}
	f, _ := reg.File(ids["cr.md"])
	if f.Title != "H1" {
		t.Errorf("cr.md title %q, want H1", f.Title)
	}
	m, _ := reg.File(ids["mixed.md"])
	if m.Title != "M" {
		t.Errorf("mixed.md title %q, want M (front matter)", m.Title)
	}
	sec, err := reg.ReadSections(ids["cr.md"], []string{"1/1"}, ReadOptions{})
	if err != nil || len(sec.Sections) != 1 || sec.Sections[0].Content != "## H2\rfoo\r\rbar \r" {
		t.Errorf("cr.md section 1/1: %+v, %v", sec, err)
	}
}
