package filecontext

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A reset refills the context only to Options.RefillPercent of the room the base files leave, so
// that the next turns append instead of resetting again; the requested files may still use the
// whole room.
func init() {
	fcScripts = append(fcScripts, fcScript{
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
	})
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
