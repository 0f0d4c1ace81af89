package consult

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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
	root := makeTree(t, files)
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
			for _, entries := range [][]string{
				{root + "/p/a.go"},
				{root + "/p/*.go", root + "/p/*.md", root + "/p/many/*.txt", root + "/p/*.rs"},
			} {
				p, err := c.Prepare(ctx, Request{Files: entries, Query: "What is here?", Model: &fakeCountModel{}})
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

				b, err := c.formatter.Format(ctx, p.Bundle.fileList(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if stated, _ := statedTokens(t, b.Text); stated != b.TotalTokens || b.PromptTokens != b.TotalTokens {
					t.Errorf("Format alone: header says %d, TotalTokens %d, PromptTokens %d", stated, b.TotalTokens, b.PromptTokens)
				}
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

func (b *Bundle) fileList() []string {
	var out []string
	for _, f := range b.Files {
		out = append(out, f.Path)
	}
	return out
}

// fakeCountModel is a Model with a large window that is never called.
type fakeCountModel struct{}

func (*fakeCountModel) Name() string          { return "count" }
func (*fakeCountModel) ContextWindow() Tokens { return 1_000_000 }
func (*fakeCountModel) Complete(context.Context, Prompt) (*Completion, error) {
	panic("not called")
}
