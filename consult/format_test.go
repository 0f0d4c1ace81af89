package consult

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

func TestFormatLayout(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{
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

func TestFormatLimits(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{
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
	if diff := cmp.Diff([]string{"$R/p/a.txt", "$R/p/c.txt"}, rel(includedPaths(b.Files), root)); diff != "" {
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
	root := testfiles.Tree(t, map[string]string{"a.txt": "a"})
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

var headerCount = regexp.MustCompile(`the prompt has ([0-9,]+) tokens( \(estimated\))?[.;]`)

// statedTokens returns the token count a prompt's header states and whether it says it is an
// estimate; it fails unless the text states exactly one count.
func statedTokens(t *testing.T, text string) (Tokens, bool) {
	t.Helper()
	all := headerCount.FindAllStringSubmatch(text, -1)
	if len(all) != 1 {
		t.Fatalf("%d token counts in the prompt, want 1:\n%.400s", len(all), text)
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(all[0][1], ",", ""), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return Tokens(n), all[0][2] != ""
}

// The header of a prompt gives one token count, the one Prepare reports (and the consult dry run
// prints), and says when it is an estimate. With a counter whose counts add up over the parts
// of a text (whitespace words), that count is exactly the count of the whole prompt.
func TestPromptHasOneTokenCount(t *testing.T) {
	files := map[string]string{"p/a.go": "package a\n\nfunc A() {}\n", "p/b.md": "# B\n\nSome words here, no newline at the end"}
	for i := range 40 { // enough files that the count has several digits
		files["p/many/f"+strconv.Itoa(i)+".txt"] = strings.Repeat("word ", 10*i) + "\n"
	}
	root := testfiles.Tree(t, files)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		counter   TokenCounter
		estimated bool
	}{
		{"estimate", nil, true},
		{"words", wordCounter{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConsultant(ConsultantOptions{Counter: tc.counter})
			m := &countingModel{window: 1_000_000}
			for _, entries := range [][]string{
				{root + "/p/a.go"},
				{root + "/p/*.go", root + "/p/*.md", root + "/p/many/*.txt", root + "/p/*.rs"},
			} {
				p, err := c.Prepare(ctx, Request{Files: entries, Query: "What is here?", Model: m})
				if err != nil {
					t.Fatal(err)
				}
				stated, est := statedTokens(t, p.User)
				if stated != p.PromptTokens || p.Bundle.PromptTokens != p.PromptTokens {
					t.Errorf("header says %d tokens, Prepare %d, the bundle %d", stated, p.PromptTokens, p.Bundle.PromptTokens)
				}
				if est != tc.estimated || p.Bundle.Estimated != tc.estimated {
					t.Errorf("header says estimated=%v, bundle %v; want %v", est, p.Bundle.Estimated, tc.estimated)
				}
				if tc.counter != nil {
					// System and User are separate messages: counted apart.
					if whole := tc.counter.CountTokens(p.System) + tc.counter.CountTokens(p.User); whole != p.PromptTokens {
						t.Errorf("the whole prompt has %d tokens; the header says %d", whole, p.PromptTokens)
					}
				} else if whole := (EstimateCounter{}).CountTokens(p.System) + (EstimateCounter{}).CountTokens(p.User); absTokens(whole-p.PromptTokens) > Tokens(len(p.Bundle.Files)+8) {
					// The estimate is summed over parts: each part rounds up on its own.
					t.Errorf("the whole prompt estimates to %d tokens; the header says %d", whole, p.PromptTokens)
				}

				b, err := c.formatter.Format(ctx, includedPaths(p.Bundle.Files), nil)
				if err != nil {
					t.Fatal(err)
				}
				if stated, _ := statedTokens(t, b.Text); stated != b.TotalTokens || b.PromptTokens != b.TotalTokens {
					t.Errorf("Format alone: header says %d, TotalTokens %d, PromptTokens %d", stated, b.TotalTokens, b.PromptTokens)
				}
			}
			if n := m.calls.Load(); n != 0 {
				t.Errorf("Prepare called the model %d times", n)
			}
		})
	}
}

func absTokens(n Tokens) Tokens {
	if n < 0 {
		return -n
	}
	return n
}
