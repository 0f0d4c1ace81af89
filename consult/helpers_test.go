package consult

import (
	"context"
	"strings"
	"sync/atomic"
)

// entryErr is an EntryError reduced to what tests compare, with the tree root written $R.
type entryErr struct{ Entry, Path, Code string }

// simplify reduces errs to entryErrs, writing root as $R.
func simplify(errs []EntryError, root string) []entryErr {
	var out []entryErr
	for _, e := range errs {
		out = append(out, entryErr{
			Entry: strings.ReplaceAll(e.Entry, root, "$R"),
			Path:  strings.ReplaceAll(e.Path, root, "$R"),
			Code:  e.Err.Code.String(),
		})
	}
	return out
}

// rel writes root as $R in each of files.
func rel(files []string, root string) []string {
	var out []string
	for _, f := range files {
		out = append(out, strings.ReplaceAll(f, root, "$R"))
	}
	return out
}

// wordCounter counts whitespace-separated words: a stand-in tokenizer with exact, known counts.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) Tokens { return Tokens(len(strings.Fields(s))) }

// countingModel answers every prompt and counts the calls; its context window is window (0:
// unknown).
type countingModel struct {
	window Tokens
	calls  atomic.Int32
}

func (*countingModel) Name() string            { return "counting" }
func (m *countingModel) ContextWindow() Tokens { return m.window }
func (m *countingModel) Complete(context.Context, Prompt) (*Completion, error) {
	m.calls.Add(1)
	return &Completion{Text: "ok", FinishReason: "stop"}, nil
}

// includedPaths returns the path of each included file.
func includedPaths(files []IncludedFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}
