package consult

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormatLayout(t *testing.T) {
	root := makeTree(t, map[string]string{
		"p/b.go":     "package b\n",
		"p/a.md":     "Has ``` a fence\n````\n",
		"p/sub/c.go": "package c", // no trailing newline
	})
	files, errs := Expand([]string{root + "/p/*.go", root + "/p/a.md", root + "/p/sub/*.go", root + "/p/*.rs"})
	b, err := NewFormatter(FormatterOptions{}).Format(context.Background(), files, errs)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Files

3 files, 40 bytes; the prompt has $N tokens (estimated); 1 problem listed at the end.

## Listing

$R/p/
  a.md (21 bytes)
  b.go (10 bytes)

$R/p/sub/
  c.go (9 bytes)

## Contents

File: $R/p/a.md
` + "`````" + `
Has ` + "```" + ` a fence
` + "````" + `
` + "`````" + `

File: $R/p/b.go
` + "```" + `
package b
` + "```" + `

File: $R/p/sub/c.go
` + "```" + `
package c
` + "```" + `

## Problems (not included)

- $R/p/*.rs: NOT_FOUND: the pattern matched no files in $R/p; check the directory and the extension (*.rs)
`
	// The count includes the paths, so it depends on the temporary directory: it is the bundle's.
	got := strings.Replace(b.Text, "has "+formatInt(int64(b.TotalTokens))+" tokens", "has $N tokens", 1)
	if diff := cmp.Diff(want, strings.ReplaceAll(got, root, "$R")); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
	if b.TotalBytes != 40 || !b.Estimated || len(b.Files) != 3 {
		t.Errorf("accounting: %d bytes, estimated %v, %d files", b.TotalBytes, b.Estimated, len(b.Files))
	}
	if b.TotalTokens <= b.FileTokens {
		t.Errorf("total tokens %d not above file tokens %d", b.TotalTokens, b.FileTokens)
	}
}

// wordCounter counts whitespace-separated words: a stand-in tokenizer with exact, known counts.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) Tokens { return Tokens(len(strings.Fields(s))) }

func TestFormatLimits(t *testing.T) {
	root := makeTree(t, map[string]string{
		"p/bin.dat":    "abc\x00def",
		"p/latin1.txt": "caf\xe9\n",
		"p/big.txt":    strings.Repeat("x", 2000),
		"p/words.txt":  strings.Repeat("w ", 50),
		"p/a.txt":      "one two three\n",
		"p/b.txt":      "four five six seven\n",
		"p/c.txt":      "eight nine\n",
	})
	files, errs := Expand([]string{root + "/p/*.txt", root + "/p/bin.dat"})
	f := NewFormatter(FormatterOptions{
		Limits:  Limits{MaxFileBytes: 1000, MaxFileTokens: 40, MaxTotalTokens: 6},
		Counter: wordCounter{},
	})
	b, err := f.Format(context.Background(), files, errs)
	if err != nil {
		t.Fatal(err)
	}
	// The budget is greedy in path order: b.txt does not fit after a.txt, c.txt still does.
	var included []string
	for _, fi := range b.Files {
		included = append(included, strings.TrimPrefix(fi.Path, root))
	}
	if diff := cmp.Diff([]string{"/p/a.txt", "/p/c.txt"}, included); diff != "" {
		t.Errorf("included (-want +got):\n%s", diff)
	}
	got := map[string]string{}
	for _, e := range b.Errors {
		got[strings.TrimPrefix(e.Path, root)] = e.Err.Code.String() + " " + e.Err.Message
	}
	want := map[string]string{
		"/p/b.txt":      CodeBudgetExceeded.String() + " left out: the file has 4 tokens and only 3 of the 6 total tokens remain; consult fewer files or split the question",
		"/p/big.txt":    CodeFileTooLarge.String() + " left out: the file has 2,000 bytes, over the per-file limit of 1,000 bytes; files are never cut, so ask about a smaller file",
		"/p/words.txt":  CodeFileTooLarge.String() + " left out: the file has 50 tokens, over the per-file limit of 40; ask about a smaller file",
		"/p/latin1.txt": CodeBinaryFile.String() + " not UTF-8 text (5 bytes); only UTF-8 text files are sent, convert it first",
		"/p/bin.dat":    CodeBinaryFile.String() + " binary file (7 bytes, contains NUL bytes); only text files are sent",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if b.Estimated {
		t.Error("Estimated is true for a custom counter")
	}
	if strings.Contains(b.Text, "xxxxxxxx") || strings.Contains(b.Text, "abc") {
		t.Error("a left-out file's content is in the prompt")
	}
}

func TestFormatCancelled(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewFormatter(FormatterOptions{}).Format(ctx, []string{root + "/a.txt"}, nil); err != context.Canceled {
		t.Errorf("Format on a cancelled context = %v", err)
	}
}

func TestFormatInt(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := formatInt(n); got != want {
			t.Errorf("formatInt(%d) = %q, want %q", n, got, want)
		}
	}
}
