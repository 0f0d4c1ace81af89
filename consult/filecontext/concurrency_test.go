package filecontext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentfiles/agentfiles"
)

func TestFileContextConcurrentReadFiles(t *testing.T) {
	const (
		goroutines = 16
		turns      = 12
		pool       = 40
		budget     = 3000
	)
	files := map[string]string{"/base.md": fcText("/base.md", 1, 200)}
	for i := range pool {
		p := fmt.Sprintf("/src/f%02d.go", i)
		files[p] = fcText(p, 1, 50+10*(i%15))
	}
	src := newFCMemSource(files)
	ctx := context.Background()
	fc, err := New(ctx, []string{"/base.md"}, Options{BudgetTokens: budget, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	prompt := fc.SystemPrompt()

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for turn := range turns {
				paths := []string{
					fmt.Sprintf("/src/f%02d.go", (g*7+turn*3)%pool),
					fmt.Sprintf("/src/f%02d.go", (g+turn*5)%pool),
					"/base.md",
				}
				res, err := fc.ReadFiles(ctx, paths)
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Files) < 2 {
					t.Errorf("goroutine %d turn %d: %d entries", g, turn, len(res.Files))
				}
				// Readers run alongside writers.
				if fc.SystemPrompt() != prompt {
					t.Error("system prompt changed")
				}
				_ = fc.Usage()
				_ = fc.ExportAnthropic()
			}
		})
	}
	wg.Wait()

	msgs := fc.Messages()
	if want := 2 * goroutines * turns; len(msgs) != want {
		t.Fatalf("%d messages, want %d (one call and one result per ReadFiles)", len(msgs), want)
	}
	if fc.Resets() == 0 {
		t.Error("no reset happened: the test does not exercise the budget")
	}
	var firstReads []string
	seen := map[string]bool{"/base.md": true}
	for _, m := range msgs {
		if m.Role != RoleAssistant {
			continue
		}
		var in ReadFilesInput
		if err := json.Unmarshal(m.ToolCalls[0].Input, &in); err != nil {
			t.Fatal(err)
		}
		for _, p := range in.Paths {
			if !seen[p] {
				seen[p] = true
				firstReads = append(firstReads, p)
			}
		}
	}
	fcCheckInvariants(t, -1, fc, budget, nil, firstReads)
}

func TestFileContextConcurrentAnswerSameCall(t *testing.T) {
	ctx := context.Background()
	fc, err := New(ctx, nil, Options{Source: newFCMemSource(map[string]string{"/a": "a"})})
	if err != nil {
		t.Fatal(err)
	}
	call := ToolCall{ID: "c1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a"]}`)}
	if err := fc.Append(Message{Role: RoleAssistant, ToolCalls: []ToolCall{call}}); err != nil {
		t.Fatal(err)
	}
	const n = 8
	results := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := fc.AnswerReadFiles(ctx, call)
			results <- err
		})
	}
	wg.Wait()
	close(results)
	ok := 0
	for err := range results {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, agentfiles.ErrAlreadyExists):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 || len(fc.Messages()) != 2 {
		t.Errorf("%d answers succeeded and %d messages; want 1 and 2", ok, len(fc.Messages()))
	}
}
