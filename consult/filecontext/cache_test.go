package filecontext

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/agentfiles/agentfiles/consult"
	"github.com/google/go-cmp/cmp"
)

// fcByteCounter counts one token per byte, so that expected counts are lengths.
type fcByteCounter struct{}

func (fcByteCounter) CountTokens(s string) consult.Tokens { return consult.Tokens(len(s)) }

// fcModelTokens is what the cache accounting counts for a message, one token per byte: the
// tool result, or the text and each tool call's name and input.
func fcModelTokens(m Message) consult.Tokens {
	if m.Role == RoleTool {
		return consult.Tokens(len(toolResultText(&m)))
	}
	n := len(m.Text)
	for _, tc := range m.ToolCalls {
		n += len(" " + tc.Name + " " + string(objectOrEmpty(tc.Input)))
	}
	return consult.Tokens(n)
}

func fcSumTokens(msgs []Message) consult.Tokens {
	var n consult.Tokens
	for _, m := range msgs {
		n += fcModelTokens(m)
	}
	return n
}

// Each export is a request; CacheStats splits it into the part that repeats the previous request
// (the system prompt and the leading unchanged messages) and the rest, and keeps running totals
// and a cost at the host's prices.
func TestCacheStatsAccounting(t *testing.T) {
	ctx := context.Background()
	src := newFCMemSource(map[string]string{
		"/k": fcText("/k", 1, 10), "/a": fcText("/a", 1, 100), "/b": fcText("/b", 1, 100), "/c": fcText("/c", 1, 100),
	})
	prices := &CachePrices{CachedPerMTok: 0.30, UncachedPerMTok: 3.75}
	// 40 bytes of base + 400 + 400 fit; a third file does not: a reset.
	fc, err := New(ctx, []string{"/k"}, Options{Source: src, Counter: fcByteCounter{}, BudgetTokens: 1000,
		MaxFileBudgetPercent: 100, Prices: prices, Instructions: "Be brief."})
	if err != nil {
		t.Fatal(err)
	}
	if got := fc.CacheStats(); got != (CacheStats{}) {
		t.Fatalf("CacheStats before any request: %+v", got)
	}
	sys := consult.Tokens(len(fc.SystemPrompt()))
	cost := func(cached, uncached consult.Tokens) float64 {
		return (float64(cached)*prices.CachedPerMTok + float64(uncached)*prices.UncachedPerMTok) / 1e6
	}
	var want CacheStats
	step := func(name string, cached, uncached consult.Tokens, brk bool) {
		t.Helper()
		_ = fc.ExportAnthropic()
		want.add(RequestCache{RequestTokens: cached + uncached, CachedTokens: cached, UncachedTokens: uncached, Break: brk, Cost: cost(cached, uncached)})
		if diff := cmp.Diff(want, fc.CacheStats(), cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
			t.Errorf("%s: CacheStats (-want +got):\n%s", name, diff)
		}
	}

	// 1. The first request: nothing is cached.
	if err := fc.Append(Message{Role: RoleUser, Text: "What is in a?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(ctx, []string{"/a"}); err != nil {
		t.Fatal(err)
	}
	first := fc.Messages()
	step("first request", 0, sys+fcSumTokens(first), false)

	// 2. The next turn extends it: the whole first request is cached, the new messages are not.
	if err := fc.Append(Message{Role: RoleAssistant, Text: "A."}, Message{Role: RoleUser, Text: "And b?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(ctx, []string{"/b"}); err != nil {
		t.Fatal(err)
	}
	second := fc.Messages()
	step("an appended turn", sys+fcSumTokens(first), fcSumTokens(second[len(first):]), false)

	// 3. The same request again (a retry): all cached.
	step("a retry", sys+fcSumTokens(second), 0, false)

	// 4. A reset edits the first result (message 2): the cache holds up to it.
	res, err := fc.ReadFiles(ctx, []string{"/c"})
	if err != nil || !res.Reset {
		t.Fatalf("read c: reset=%v err=%v", res.Reset, err)
	}
	third := fc.Messages()
	step("a reset", sys+fcSumTokens(third[:2]), fcSumTokens(third[2:]), true)

	// 5. A changed base file changes the system prompt: nothing is cached.
	src.set("/k", fcText("/k", 2, 10))
	if ref, err := fc.RefreshBase(ctx); err != nil || len(ref.Changed) != 1 {
		t.Fatalf("refresh: %+v, %v", ref, err)
	}
	step("a new system prompt", 0, consult.Tokens(len(fc.SystemPrompt()))+fcSumTokens(fc.Messages()), true)

	got := fc.CacheStats()
	if share := got.UncachedShare(); math.Abs(share-float64(got.UncachedTokens)/float64(got.RequestTokens)) > 1e-12 || share <= 0 || share >= 1 {
		t.Errorf("UncachedShare = %v", share)
	}
	// The OpenAI export is a request too, accounted the same way.
	_ = fc.ExportOpenAI(OpenAIExportOptions{})
	if last := fc.CacheStats().Last; last.UncachedTokens != 0 || last.Break || fc.CacheStats().Requests != want.Requests+1 {
		t.Errorf("an OpenAI export of the same conversation: %+v", last)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatal(err)
	}
}

// CacheStats totals every request counted into it and keeps the last one.
func TestCacheStatsAdd(t *testing.T) {
	first := RequestCache{RequestTokens: 100, UncachedTokens: 100, Cost: 0.5}
	second := RequestCache{RequestTokens: 120, CachedTokens: 90, UncachedTokens: 30, Break: true, Cost: 0.25}
	var got CacheStats
	got.add(first)
	got.add(second)
	want := CacheStats{Requests: 2, Breaks: 1, RequestTokens: 220, CachedTokens: 90, UncachedTokens: 130, Cost: 0.75, Last: second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CacheStats after two requests (-want +got):\n%s", diff)
	}
}

// A host that owns its history keeps its own CacheMeter: message order, not identity, decides
// what is cached, and a changed message breaks the cache from there on.
func TestCacheMeterHostHistory(t *testing.T) {
	m := NewCacheMeter(Options{Counter: fcByteCounter{}})
	call := ToolCall{ID: "c1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a"]}`)}
	h := []Message{
		{Role: RoleUser, Text: "read a"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{call}},
		{Role: RoleTool, ToolCallID: "c1", Text: `{"type":"read_files","files":[{"path":"/a","content":"aaaa"}]}`},
	}
	if r := m.Record("sys", h); r.CachedTokens != 0 || r.UncachedTokens != 3+fcSumTokens(h) || r.Break {
		t.Errorf("first: %+v", r)
	}
	// The same messages as fresh copies, plus one: the copies are cached.
	again := append(fcCloneHistory(h), Message{Role: RoleUser, Text: "thanks"})
	if r := m.Record("sys", again); r.CachedTokens != 3+fcSumTokens(h) || r.UncachedTokens != 6 || r.Break {
		t.Errorf("extended: %+v", r)
	}
	// The same text under another tool call ID is another message.
	edited := fcCloneHistory(again)
	edited[2].ToolCallID = "c2"
	if r := m.Record("sys", edited); r.CachedTokens != 3+fcSumTokens(h[:2]) || !r.Break {
		t.Errorf("edited: %+v", r)
	}
	// A shorter request breaks the cache too, but what it keeps is cached.
	if r := m.Record("sys", edited[:1]); r.CachedTokens != 3+fcSumTokens(h[:1]) || r.UncachedTokens != 0 || !r.Break {
		t.Errorf("shorter: %+v", r)
	}
	if s := m.Stats(); s.Requests != 4 || s.Breaks != 2 || s.Cost != 0 {
		t.Errorf("stats: %+v", s)
	}
}

func fcCloneHistory(h []Message) []Message {
	out := make([]Message, len(h))
	for i, m := range h {
		out[i] = m.clone()
	}
	return out
}
