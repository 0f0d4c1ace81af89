package filecontext

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles/consult"
	"github.com/google/go-cmp/cmp"
)

// fcStep is one turn of a scripted conversation.
type fcStep struct {
	write   map[string]int // path -> new version written before the turn
	remove  []string       // paths deleted before the turn
	refresh bool           // call RefreshBase before reading
	read    []string       // paths the model asks for; none: no read this turn

	want        map[string]FileStatus // status of each entry of the result (requested and earlier files)
	wantReset   bool
	wantChanged []string // base paths RefreshBase must report
}

type fcScript struct {
	name   string
	budget consult.Tokens
	refill int            // Options.RefillPercent
	sizes  map[string]int // path -> tokens of each version
	base   []string
	steps  []fcStep
}

var fcScripts = []fcScript{
	{
		name:   "dedupe, change, base and errors without a reset",
		budget: 10_000,
		sizes:  map[string]int{"/base.md": 100, "/a.go": 200, "/b.go": 200, "/c.go": 300},
		base:   []string{"/base.md"},
		steps: []fcStep{
			{read: []string{"/a.go", "/b.go"}, want: map[string]FileStatus{"/a.go": FileSent, "/b.go": FileSent}},
			{read: []string{"/b.go", "/a.go", "/c.go"}, want: map[string]FileStatus{"/b.go": FileAlreadyInContext, "/a.go": FileAlreadyInContext, "/c.go": FileSent}},
			{write: map[string]int{"/b.go": 2}, read: []string{"/b.go"}, want: map[string]FileStatus{"/b.go": FileUpdated}},
			{read: []string{"/base.md", "/missing.go"}, want: map[string]FileStatus{"/base.md": FileInSystemPrompt, "/missing.go": FileNotFound}},
			{remove: []string{"/a.go"}, read: []string{"/a.go"}, want: map[string]FileStatus{"/a.go": FileNotFound}},
			{write: map[string]int{"/base.md": 2}, read: []string{"/base.md"}, want: map[string]FileStatus{"/base.md": FileUpdated}},
			{read: []string{"/base.md"}, want: map[string]FileStatus{"/base.md": FileAlreadyInContext}},
			// The refreshed prompt carries v2, so the copy in the messages loses its content.
			{refresh: true, wantChanged: []string{"/base.md"}, wantReset: true},
			{read: []string{"/base.md", "/c.go"}, want: map[string]FileStatus{"/base.md": FileInSystemPrompt, "/c.go": FileAlreadyInContext}},
		},
	},
	{
		name:   "resets keep every path and re-send the most recent files",
		budget: 1000,
		refill: 100,
		sizes:  map[string]int{"/base.md": 100, "/f1": 200, "/f2": 200, "/f3": 200, "/f4": 200, "/f5": 200, "/huge": 600},
		base:   []string{"/base.md"},
		steps: []fcStep{
			{read: []string{"/f1", "/f2"}, want: map[string]FileStatus{"/f1": FileSent, "/f2": FileSent}},
			{read: []string{"/f3", "/f4"}, want: map[string]FileStatus{"/f3": FileSent, "/f4": FileSent}},
			// 100 + 800 + 200 > 1000: f5 first, then f4, f3, f2 by recency; f1 does not fit.
			{read: []string{"/f5"}, wantReset: true, want: map[string]FileStatus{
				"/f5": FileSent, "/f1": FileDropped, "/f2": FileRestored, "/f3": FileRestored, "/f4": FileRestored}},
			// Again: f1 first, then f5 (requested last turn), f4, f3; f2 is dropped.
			{read: []string{"/f1"}, wantReset: true, want: map[string]FileStatus{
				"/f1": FileSent, "/f2": FileDropped, "/f3": FileRestored, "/f4": FileRestored, "/f5": FileRestored}},
			{read: []string{"/f5", "/f3"}, want: map[string]FileStatus{"/f5": FileAlreadyInContext, "/f3": FileAlreadyInContext}},
			// Over the per-file gate (50% of 1000): rejected without a reset.
			{read: []string{"/huge"}, want: map[string]FileStatus{"/huge": FileTooLarge}},
		},
	},
	// A reset refills the context only to Options.RefillPercent of the room the base files
	// leave, so that the next turns append instead of resetting again; the requested files may
	// still use the whole room.
	{
		name:   "a reset leaves headroom",
		budget: 1000, // 100 of base: 900 of room, refilled to at most 450
		refill: 50,
		sizes: map[string]int{"/base.md": 100, "/f1": 200, "/f2": 200, "/f3": 200, "/f4": 200,
			"/f5": 200, "/f6": 200, "/f7": 200, "/f8": 200},
		base: []string{"/base.md"},
		steps: []fcStep{
			{read: []string{"/f1", "/f2"}, want: map[string]FileStatus{"/f1": FileSent, "/f2": FileSent}},
			{read: []string{"/f3", "/f4"}, want: map[string]FileStatus{"/f3": FileSent, "/f4": FileSent}},
			// 100 + 800 + 200 > 1000: f5, then f4 (400 of 450); f3 would pass the refill share.
			{read: []string{"/f5"}, wantReset: true, want: map[string]FileStatus{
				"/f5": FileSent, "/f4": FileRestored, "/f3": FileDropped, "/f2": FileDropped, "/f1": FileDropped}},
			// The headroom: two more turns append.
			{read: []string{"/f6"}, want: map[string]FileStatus{"/f6": FileSent}},
			{read: []string{"/f7"}, want: map[string]FileStatus{"/f7": FileSent}},
			{read: []string{"/f4", "/f5"}, want: map[string]FileStatus{"/f4": FileAlreadyInContext, "/f5": FileAlreadyInContext}},
			// Full again: f8, then f5 (requested last); f4 would pass the share.
			{read: []string{"/f8"}, wantReset: true, want: map[string]FileStatus{
				"/f8": FileSent, "/f5": FileRestored, "/f4": FileDropped, "/f6": FileDropped, "/f7": FileDropped}},
			// Requested files may exceed the refill share (600 > 450): they are all sent, and
			// nothing earlier is restored.
			{read: []string{"/f1", "/f2", "/f3"}, wantReset: true, want: map[string]FileStatus{
				"/f1": FileSent, "/f2": FileSent, "/f3": FileSent, "/f5": FileDropped, "/f8": FileDropped}},
		},
	},
	{
		name:   "empty base and a requested file that can never fit",
		budget: 400,
		refill: 100,
		sizes:  map[string]int{"/a": 150, "/b": 150, "/c": 190},
		steps: []fcStep{
			{read: []string{"/a", "/b"}, want: map[string]FileStatus{"/a": FileSent, "/b": FileSent}},
			// 300 + 190 > 400: reset; c, then b (requested after a) fit; a is dropped.
			{read: []string{"/c"}, wantReset: true, want: map[string]FileStatus{"/c": FileSent, "/b": FileRestored, "/a": FileDropped}},
			{read: []string{"/a", "/b", "/c"}, wantReset: true, want: map[string]FileStatus{"/a": FileSent, "/b": FileSent, "/c": FileOverBudget}},
		},
	},
	{
		name:   "a base file larger than the budget is reported, and refresh is a reported event",
		budget: 1000,
		sizes:  map[string]int{"/big.md": 1500, "/k.md": 300, "/a": 300, "/b": 300},
		base:   []string{"/big.md", "/k.md"},
		steps: []fcStep{
			{read: []string{"/a", "/b"}, want: map[string]FileStatus{"/a": FileSent, "/b": FileSent}},
			{refresh: true, read: []string{"/a"}, want: map[string]FileStatus{"/a": FileAlreadyInContext}},
			// k.md grows to 300 -> still 300 tokens but new content: changed, prompt re-rendered.
			{write: map[string]int{"/k.md": 2}, refresh: true, wantChanged: []string{"/k.md"},
				read: []string{"/k.md"}, want: map[string]FileStatus{"/k.md": FileInSystemPrompt}},
			{remove: []string{"/big.md"}, refresh: true, wantChanged: []string{"/big.md"}},
		},
	},
}

func TestFileContextScripts(t *testing.T) {
	for _, sc := range fcScripts {
		t.Run(sc.name, func(t *testing.T) {
			ctx := context.Background()
			versions := make(map[string]int)
			src := newFCMemSource(nil)
			for p, n := range sc.sizes {
				versions[p] = 1
				src.set(p, fcText(p, 1, n))
			}
			fc, err := New(ctx, sc.base, Options{BudgetTokens: sc.budget, RefillPercent: sc.refill, Source: src, Instructions: "Be brief."})
			if err != nil {
				t.Fatal(err)
			}
			prompt := fc.SystemPrompt()
			var firstReads []string // order in which paths first got an entry
			for i, step := range sc.steps {
				for p, v := range step.write {
					versions[p] = v
					src.set(p, fcText(p, v, sc.sizes[p]))
				}
				for _, p := range step.remove {
					src.remove(p)
				}
				pathsBefore := fcHistoryPaths(fc.Messages(), nil)
				resetsBefore := fc.Resets()
				if step.refresh {
					ref, err := fc.RefreshBase(ctx)
					if err != nil {
						t.Fatal(err)
					}
					var changed []string
					for _, c := range ref.Changed {
						changed = append(changed, c.Path)
					}
					if diff := cmp.Diff(step.wantChanged, changed); diff != "" {
						t.Fatalf("step %d: RefreshBase changes (-want +got):\n%s", i, diff)
					}
					if len(changed) > 0 {
						if fc.SystemPrompt() == prompt {
							t.Fatalf("step %d: base changed but the system prompt did not", i)
						}
						prompt = fc.SystemPrompt()
					}
				}
				if len(step.read) > 0 {
					res, err := fc.ReadFiles(ctx, step.read)
					if err != nil {
						t.Fatal(err)
					}
					got := make(map[string]FileStatus)
					for _, f := range res.Files {
						got[f.Path] = f.Status
						if !slices.Contains(firstReads, f.Path) && !slices.Contains(sc.base, f.Path) {
							firstReads = append(firstReads, f.Path)
						}
					}
					if diff := cmp.Diff(step.want, got); diff != "" {
						t.Errorf("step %d: statuses (-want +got):\n%s", i, diff)
					}
					if res.Reset != step.wantReset {
						t.Errorf("step %d: Reset = %v, want %v", i, res.Reset, step.wantReset)
					}
				}
				if got := fc.Resets() > resetsBefore; got != step.wantReset {
					t.Errorf("step %d: a reset happened = %v, want %v", i, got, step.wantReset)
				}
				if fc.SystemPrompt() != prompt {
					t.Fatalf("step %d: the system prompt changed without a reported base change", i)
				}
				fcCheckInvariants(t, i, fc, sc.budget, pathsBefore, firstReads)
			}
		})
	}
}

// When a grown base no longer leaves room for the files in messages, RefreshBase keeps the most
// recently requested ones in place up to the refill share too.
func TestRefreshBaseLeavesHeadroom(t *testing.T) {
	ctx := context.Background()
	src := newFCMemSource(map[string]string{"/k": fcText("/k", 1, 100), "/a": fcText("/a", 1, 200),
		"/b": fcText("/b", 1, 200), "/c": fcText("/c", 1, 200)})
	fc, err := New(ctx, []string{"/k"}, Options{BudgetTokens: 1000, Source: src}) // default RefillPercent
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		if _, err := fc.ReadFiles(ctx, []string{p}); err != nil {
			t.Fatal(err)
		}
	}
	// The base grows to 500: 600 tokens of files no longer fit the 500 of room.
	src.set("/k", fcText("/k", 2, 500))
	ref, err := fc.RefreshBase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Room 500, refilled to 250: c (requested last) stays, b and a lose their content.
	if !ref.Reset || ref.Usage != (Usage{BudgetTokens: 1000, BaseTokens: 500, MessageTokens: 200, TotalTokens: 700}) {
		t.Errorf("refresh: %+v", ref)
	}
	var in []string
	for _, f := range fc.Files() {
		if f.InMessages {
			in = append(in, f.Path)
		}
	}
	if diff := cmp.Diff([]string{"/c"}, in); diff != "" {
		t.Errorf("files with content in messages (-want +got):\n%s", diff)
	}
}

// fcCheckInvariants checks what must hold after every turn.
func fcCheckInvariants(t *testing.T, step int, fc *Context, budget consult.Tokens, pathsBefore, firstReads []string) {
	t.Helper()
	msgs := fc.Messages()

	// The budget holds, counted independently from the exported messages.
	var total consult.Tokens
	for _, b := range fc.BaseFiles() {
		if b.Included() {
			total += b.Tokens
		}
	}
	for _, m := range msgs {
		if r, ok := readFilesOf(&m); ok {
			for _, f := range r.Files {
				if f.HasContent() {
					total += consult.EstimateCounter{}.CountTokens(f.Content)
				}
			}
		}
	}
	if total > budget {
		t.Errorf("step %d: %d tokens of files in context, over the %d-token budget", step, total, budget)
	}
	if u := fc.Usage(); u.TotalTokens != total {
		t.Errorf("step %d: Usage().TotalTokens = %d, counted %d", step, u.TotalTokens, total)
	}

	// No file content appears twice, in either export.
	anth, _ := json.Marshal(fc.ExportAnthropic())
	oai, _ := json.Marshal(fc.ExportOpenAI(OpenAIExportOptions{CacheControl: true}))
	for name, exported := range map[string]string{"anthropic": string(anth), "openai": string(oai)} {
		for _, marker := range fcMarkers(exported) {
			if n := strings.Count(exported, marker); n > 1 {
				t.Errorf("step %d: %s export carries %s %d times", step, name, marker, n)
			}
		}
	}

	// A reset keeps every path; the order of first reads is preserved.
	after := fcHistoryPaths(msgs, fcBasePaths(fc))
	for _, p := range pathsBefore {
		if slices.Contains(fcBasePaths(fc), p) {
			continue
		}
		if !slices.Contains(after, p) {
			t.Errorf("step %d: path %s vanished from the history", step, p)
		}
	}
	if !slices.Equal(firstReads, after) {
		t.Errorf("step %d: paths in the history in order %v, want the order of first reads %v", step, after, firstReads)
	}
	var filesOrder []string
	for _, f := range fc.Files() {
		if !slices.Contains(fcBasePaths(fc), f.Path) {
			filesOrder = append(filesOrder, f.Path)
		}
	}
	if !slices.Equal(filesOrder, firstReads) {
		t.Errorf("step %d: Files() order %v, want %v", step, filesOrder, firstReads)
	}

	// Every tool call is answered by the very next message, once.
	for i, m := range msgs {
		if m.Role != RoleAssistant {
			continue
		}
		for j, tc := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != RoleTool || msgs[k].ToolCallID != tc.ID {
				t.Errorf("step %d: tool call %s is not answered right after message %d", step, tc.ID, i)
			}
		}
	}
}

// fcMarkers returns the distinct content markers in s.
func fcMarkers(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "BEGIN[")
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], ']')
		m := s[i : i+j+1]
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
		s = s[i+j+1:]
	}
}

// fcHistoryPaths lists the paths of the read_files results in history, first appearance first,
// leaving out exclude.
func fcHistoryPaths(msgs []Message, exclude []string) []string {
	var out []string
	for _, m := range msgs {
		if r, ok := readFilesOf(&m); ok {
			for _, f := range r.Files {
				if !slices.Contains(out, f.Path) && !slices.Contains(exclude, f.Path) {
					out = append(out, f.Path)
				}
			}
		}
	}
	return out
}

func fcBasePaths(fc *Context) []string {
	var out []string
	for _, b := range fc.BaseFiles() {
		out = append(out, b.Path)
	}
	return out
}
