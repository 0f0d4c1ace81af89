package fileid

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/google/go-cmp/cmp"
)

const sectionsDoc = "---\ntitle: S\n---\nintro line\n\n# A\na text\n```\n# not a heading\n```\n## A1\na1 text\n### A1a\ndeep\n## A2\na2\n# B\nb text\n"

func TestReadSectionsByteExact(t *testing.T) {
	reg := oneFile(t, sectionsDoc)
	tests := []struct {
		id, want string
	}{
		{"0", "intro line\n\n"},
		{"1", "# A\na text\n```\n# not a heading\n```\n## A1\na1 text\n### A1a\ndeep\n## A2\na2\n"},
		{"1/1", "## A1\na1 text\n### A1a\ndeep\n"},
		{"1/1/1", "### A1a\ndeep\n"},
		{"1/2", "## A2\na2\n"},
		{"2", "# B\nb text\n"},
	}
	for _, tt := range tests {
		res, err := reg.ReadSections("f1", []string{tt.id}, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.id, err)
		}
		if len(res.Sections) != 1 || res.Sections[0].Content != tt.want {
			t.Errorf("section %s = %+v, want %q", tt.id, res.Sections, tt.want)
		}
		if res.Truncated || res.FileID != "f1" || res.Filename != "doc.md" {
			t.Errorf("section %s: %+v", tt.id, res)
		}
	}
}

func TestReadSectionsUnknownIDsReportedPerID(t *testing.T) {
	reg := oneFile(t, sectionsDoc)
	res, err := reg.ReadSections("f1", []string{"2", "9", "1/1/1", "2", "abc"}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.ID)
	}
	if diff := cmp.Diff([]string{"2", "1/1/1"}, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if len(res.Errors) != 2 || res.Errors[0].SectionID != "9" || res.Errors[1].SectionID != "abc" {
		t.Fatalf("errors: %+v", res.Errors)
	}
	for _, e := range res.Errors {
		if e.Code != CodeSectionNotFound.String() || !strings.Contains(e.Message, "valid top-level IDs are 0, 1, 2") {
			t.Errorf("error %+v", e)
		}
	}

	_, err = reg.ReadSections("f1", []string{"7", "8"}, ReadOptions{})
	if !errors.Is(err, ErrSectionNotFound) || !strings.Contains(err.Error(), "7, 8") {
		t.Errorf("all unknown: %v", err)
	}
	if _, err := reg.ReadSections("f1", nil, ReadOptions{}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("no IDs: %v", err)
	}
	if _, err := oneFile(t, "").ReadSections("f1", []string{"0"}, ReadOptions{}); !errors.Is(err, ErrSectionNotFound) ||
		!strings.Contains(err.Error(), "no sections") {
		t.Errorf("empty file: %v", err)
	}
}

func TestReadSectionsBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Big\n")
	for range 200 {
		b.WriteString("a line of text that is forty bytes long\n")
	}
	b.WriteString("# Small\nsmall\n# Third\nthird\n")
	reg := oneFile(t, b.String())

	res, err := reg.ReadSections("f1", []string{"1", "2", "3"}, ReadOptions{MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sections) != 1 || !res.Sections[0].Truncated || !res.Truncated {
		t.Fatalf("budget: %+v", res)
	}
	s := res.Sections[0]
	if len(s.Content) > 1000 || !strings.HasSuffix(s.Content, "\n") || s.SizeBytes != 6+200*40 {
		t.Errorf("cut section: %d bytes, size %d", len(s.Content), s.SizeBytes)
	}
	if diff := cmp.Diff([]string{"2", "3"}, res.Omitted); diff != "" {
		t.Errorf("omitted (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Note, `table_of_contents with section "1"`) {
		t.Errorf("notice %q", res.Note)
	}

	res, err = reg.ReadSections("f1", []string{"2", "3"}, ReadOptions{MaxBytes: 10 * MaxReadBytes})
	if err != nil || res.Truncated || len(res.Sections) != 2 || !strings.Contains(res.Note, "clamped") {
		t.Errorf("clamped budget: %+v, %v", res, err)
	}

	many := make([]string, 0, 200)
	for range 100 {
		many = append(many, "2", "3", "1", "x")
	}
	res, err = reg.ReadSections("f1", many, ReadOptions{})
	if err != nil || len(res.Errors) != 1 || len(res.Sections) != 3 {
		t.Errorf("duplicates are read once: %d sections, %d errors, %v", len(res.Sections), len(res.Errors), err)
	}
}

func TestReadSectionsCountCap(t *testing.T) {
	var b strings.Builder
	var ids []string
	for i := range MaxSectionsPerRead + 5 {
		b.WriteString("## h\n")
		ids = append(ids, FormatID(i + 1)[1:])
	}
	reg := oneFile(t, b.String())
	res, err := reg.ReadSections("f1", ids, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sections) != MaxSectionsPerRead || len(res.Omitted) != 5 || !res.Truncated {
		t.Errorf("count cap: %d sections, omitted %v", len(res.Sections), res.Omitted)
	}
}

func TestCutAtKeepsUTF8(t *testing.T) {
	b := []byte(strings.Repeat("é", 100)) // two bytes each, no newline
	for limit := 1; limit < 50; limit++ {
		cut := cutAt(b, limit)
		// A budget smaller than the first character returns that character, so that paging
		// with offset always makes progress.
		if cut > max(limit, 2) || cut == 0 || cut%2 != 0 {
			t.Errorf("cutAt(%d) = %d", limit, cut)
		}
	}
}

// A section larger than MaxReadBytes with no subsections is readable to its end: following
// NextOffset returns every byte exactly once.
func TestReadSectionsPagesThroughACutSection(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Big\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d é ü\n", i)
	}
	b.WriteString("# Next\n")
	reg := oneFile(t, b.String())
	for _, maxBytes := range []int{1, 7, 1000} {
		var got strings.Builder
		opts := ReadOptions{MaxBytes: maxBytes}
		for page := 0; ; page++ {
			if page > 100000 {
				t.Fatalf("maxBytes %d: paging does not end", maxBytes)
			}
			res, err := reg.ReadSections("f1", []string{"1", "2"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			s := res.Sections[0]
			if s.Offset != opts.Offset {
				t.Fatalf("offset %d reported as %d", opts.Offset, s.Offset)
			}
			got.WriteString(s.Content)
			if !s.Truncated {
				break
			}
			if !strings.Contains(res.Note, fmt.Sprintf("offset %d", s.NextOffset)) || s.NextOffset <= opts.Offset {
				t.Fatalf("next offset %d after %d, notice %q", s.NextOffset, opts.Offset, res.Note)
			}
			opts.Offset = s.NextOffset
		}
		want := b.String()[:strings.Index(b.String(), "# Next")]
		if got.String() != want {
			t.Errorf("maxBytes %d: read %d bytes, want %d", maxBytes, got.Len(), len(want))
		}
	}
}
