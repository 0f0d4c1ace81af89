package fileid

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

// oneFile builds a registry holding a single file f1 with the given body.
func oneFile(t testing.TB, body string) *Registry {
	t.Helper()
	return mustNew(t, []Root{{Label: "r", FS: fstest.MapFS{"doc.md": {Data: []byte(body)}}}}, Options{})
}

// tocIDs renders entries as "id title" (plus "+N" for hidden subsections).
func tocIDs(entries []TOCEntry) []string {
	out := []string{}
	for _, e := range entries {
		s := e.ID + " " + e.Title
		if e.HiddenSubsections > 0 {
			s += " +" + string(rune('0'+e.HiddenSubsections))
		}
		out = append(out, s)
	}
	return out
}

func TestTableOfContents(t *testing.T) {
	tests := []struct {
		name string
		body string
		opts TOCOptions
		want []string
	}{
		{
			name: "nesting and levels",
			body: "# Guide\n## Install\n### Linux\n## Use\n# FAQ\n",
			want: []string{"1 Guide", "1/1 Install", "1/1/1 Linux", "1/2 Use", "2 FAQ"},
		},
		{
			name: "only level two numbers 1,2,3",
			body: "## A\ntext\n## B\n## C\n",
			want: []string{"1 A", "2 B", "3 C"},
		},
		{
			name: "parent is nearest earlier smaller level",
			body: "## A\n# B\n### C\n## D\n#### E\n",
			want: []string{"1 A", "2 B", "2/1 C", "2/2 D", "2/2/1 E"},
		},
		{
			name: "hash in fenced code is not a heading",
			body: "# Real\n```sh\n# comment\n## also comment\n```\n~~~\n# tilde fence\n~~~\n## Sub\n",
			want: []string{"1 Real", "1/1 Sub"},
		},
		{
			name: "fence inside list item",
			body: "# Top\n- step one\n\n  ```bash\n  # install it\n  make install\n  ```\n- step two\n  ```\n  # more\n  ```\n",
			want: []string{"1 Top"},
		},
		{
			name: "indented code and indented fence",
			body: "# Top\n\n    # indented code\n\n   ```\n   # in a fence indented three spaces\n   ```\n\t# tab indented\n",
			want: []string{"1 Top"},
		},
		{
			name: "setext headings count",
			body: "Title\n=====\n\nPart\n----\n\n# ATX\n",
			want: []string{"1 Title", "1/1 Part", "2 ATX"},
		},
		{
			name: "multi-line setext heading",
			body: "Long\ntitle\n===\n",
			want: []string{"1 Long title"},
		},
		{
			name: "front matter is not content",
			body: "---\ntitle: T\n# not a heading\n---\n## Real\n",
			want: []string{"1 Real"},
		},
		{
			name: "thematic break is not setext",
			body: "# A\n\n---\n\ntext\n",
			want: []string{"1 A"},
		},
		{
			name: "preamble is section 0",
			body: "Intro text.\n\n# A\n",
			want: []string{"0 " + PreambleTitle, "1 A"},
		},
		{
			name: "blank preamble is not a section",
			body: "\n   \n\n# A\n",
			want: []string{"1 A"},
		},
		{
			name: "no headings at all",
			body: "just text\n",
			want: []string{"0 " + PreambleTitle},
		},
		{
			name: "empty file",
			body: "",
			want: []string{},
		},
		{
			name: "headings in block quotes and html blocks are content",
			body: "# A\n> # quoted\n\n<details>\n# inside html\n</details>\n",
			want: []string{"1 A"},
		},
		{
			name: "closing hashes and empty heading",
			body: "# A ##\n#\n## B #\n",
			want: []string{"1 A", "2 ", "2/1 B"},
		},
		{
			name: "depth 1 hides subsections",
			body: "# A\n## A1\n### A1a\n## A2\n# B\n",
			opts: TOCOptions{MaxDepth: 1},
			want: []string{"1 A +3", "2 B"},
		},
		{
			name: "default depth 3",
			body: "# A\n## B\n### C\n#### D\n##### E\n",
			want: []string{"1 A", "1/1 B", "1/1/1 C +2"},
		},
		{
			name: "subtree of one section",
			body: "# A\n## A1\n### A1a\n#### deep\n## A2\n# B\n",
			opts: TOCOptions{Section: "1/1", MaxDepth: 2},
			want: []string{"1/1 A1", "1/1/1 A1a +1"},
		},
		{
			name: "subtree of section 0",
			body: "intro\n# A\n",
			opts: TOCOptions{Section: "0"},
			want: []string{"0 " + PreambleTitle},
		},
		{
			name: "section id with stray slashes",
			body: "# A\n## B\n",
			opts: TOCOptions{Section: " /1/1/ "},
			want: []string{"1/1 B"},
		},
		{
			name: "CRLF line endings",
			body: "# A\r\n\r\n```\r\n# no\r\n```\r\n## B\r\n",
			want: []string{"1 A", "1/1 B"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := oneFile(t, tt.body)
			toc, err := reg.TableOfContents("f1", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tocIDs(toc.Entries)); diff != "" {
				t.Errorf("TOC (-want +got):\n%s", diff)
			}
			if toc.FileID != "f1" || toc.Filename != "doc.md" {
				t.Errorf("TOC names %s %s", toc.FileID, toc.Filename)
			}
		})
	}
}

func TestTOCLinesAndSizes(t *testing.T) {
	body := "---\ntitle: x\n---\nintro\n# A\ntext\n## B\nmore\n# C\n"
	reg := oneFile(t, body)
	toc, err := reg.TableOfContents("f1", TOCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []TOCEntry{
		{ID: "0", Title: PreambleTitle, Level: 0, Line: 4, SizeBytes: len("intro\n")},
		{ID: "1", Title: "A", Level: 1, Line: 5, SizeBytes: len("# A\ntext\n## B\nmore\n")},
		{ID: "1/1", Title: "B", Level: 2, Line: 7, SizeBytes: len("## B\nmore\n")},
		{ID: "2", Title: "C", Level: 1, Line: 9, SizeBytes: len("# C\n")},
	}
	if diff := cmp.Diff(want, toc.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

func TestTOCClampAndTruncate(t *testing.T) {
	var b strings.Builder
	for range 30 {
		b.WriteString("## h\n")
	}
	reg := oneFile(t, b.String())
	toc, err := reg.TableOfContents("f1", TOCOptions{MaxEntries: 10, MaxDepth: 99})
	if err != nil {
		t.Fatal(err)
	}
	if len(toc.Entries) != 10 || !toc.Truncated || toc.MaxDepth != MaxTOCDepth {
		t.Fatalf("got %d entries, truncated %v, depth %d", len(toc.Entries), toc.Truncated, toc.MaxDepth)
	}
	for _, want := range []string{"max_depth 99 was clamped to 6", `cursor "11"`} {
		if !strings.Contains(toc.Note, want) {
			t.Errorf("notice %q lacks %q", toc.Note, want)
		}
	}
	if _, err := reg.TableOfContents("f1", TOCOptions{Cursor: "31"}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("cursor of no entry: %v, want INVALID_ARGUMENT", err)
	}
	toc, err = reg.TableOfContents("f1", TOCOptions{MaxEntries: MaxTOCEntries * 10})
	if err != nil || len(toc.Entries) != 30 || toc.Truncated || !strings.Contains(toc.Note, "clamped") {
		t.Errorf("huge MaxEntries: %d entries, %v, %q, %v", len(toc.Entries), toc.Truncated, toc.Note, err)
	}
}

func TestTOCUnknownSection(t *testing.T) {
	reg := oneFile(t, "intro\n# A\n## B\n# C\n")
	for _, id := range []string{"3", "1/2", "x", "1//1", "-1"} {
		_, err := reg.TableOfContents("f1", TOCOptions{Section: id})
		var fe *agentfiles.Error
		if !errors.As(err, &fe) || fe.Code != CodeSectionNotFound {
			t.Fatalf("section %q: %v", id, err)
		}
		if !strings.Contains(fe.Message, "valid top-level IDs are 0, 1, 2") {
			t.Errorf("section %q: message %q does not list the top-level IDs", id, fe.Message)
		}
	}
}

// A TOC beyond its entry cap is reachable: following NextOffset walks the whole listing, with
// or without a preamble and a section ("# Log" + 320 "## Entry i" once stopped
// at 300 with advice that returned only one entry).
func TestTOCPagesThroughEveryEntry(t *testing.T) {
	var b strings.Builder
	b.WriteString("intro\n# Log\n")
	for i := range 320 {
		fmt.Fprintf(&b, "## Entry %d\n", i)
	}
	reg := oneFile(t, b.String())
	for _, opts := range []TOCOptions{{}, {Section: "1"}, {MaxEntries: 7}, {Section: "1", MaxEntries: 100, MaxDepth: 1}} {
		var ids []string
		for page := 0; ; page++ {
			if page > 400 {
				t.Fatalf("%+v: paging does not end", opts)
			}
			toc, err := reg.TableOfContents("f1", opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range toc.Entries {
				ids = append(ids, e.ID)
			}
			if !toc.Truncated {
				break
			}
			if toc.NextCursor == "" || !strings.Contains(toc.Note, fmt.Sprintf("cursor %q", toc.NextCursor)) {
				t.Fatalf("%+v: next cursor %q, note %q", opts, toc.NextCursor, toc.Note)
			}
			opts.Cursor = toc.NextCursor
		}
		want := []string{"0", "1"}
		if opts.Section != "" {
			want = []string{"1"}
		}
		if opts.MaxDepth != 1 {
			for i := range 320 {
				want = append(want, fmt.Sprintf("1/%d", i+1))
			}
		}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%+v: ids (-want +got):\n%s", opts, diff)
		}
	}
}
