package filecontext

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/consult"
	"github.com/google/go-cmp/cmp"
)

var fcUpdate = flag.Bool("update", false, "rewrite the golden files in testdata")

// fcGolden compares got with testdata/name, rewriting it with -update.
func fcGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *fcUpdate {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestFileContextSystemPromptGolden(t *testing.T) {
	src := newFCMemSource(map[string]string{
		"/docs/guide.md": "# Guide\nUse <b>tags</b> & stay \"safe\".\n",
		"/docs/big.md":   fcText("/docs/big.md", 1, 300),
		"/docs/img.png":  "\x89PNG\x00\x00",
		"/docs/notes.md": "no trailing newline",
	})
	fc, err := New(context.Background(),
		[]string{"/docs/guide.md", "/docs/../docs/guide.md", "/docs/big.md", "/docs/img.png", "/docs/missing.md", "/docs/notes.md", ""},
		Options{BudgetTokens: 200, Source: src, Instructions: "You are a careful reviewer.\n"})
	if err != nil {
		t.Fatal(err)
	}
	fcGolden(t, "system_prompt.golden", fc.SystemPrompt())

	type row struct {
		Path   string
		Status FileStatus
		Tokens consult.Tokens
	}
	var got []row
	for _, b := range fc.BaseFiles() {
		got = append(got, row{b.Path, b.Status, b.Tokens})
	}
	want := []row{
		{"/docs/guide.md", FileInSystemPrompt, 10},
		{"/docs/big.md", FileTooLarge, 300},
		{"/docs/img.png", FileBinary, 0},
		{"/docs/missing.md", FileNotFound, 0},
		{"/docs/notes.md", FileInSystemPrompt, 5},
		{"", FileInvalidPath, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("base report (-want +got):\n%s", diff)
	}
}

func TestFileContextEmptyBase(t *testing.T) {
	fc, err := New(context.Background(), nil, Options{Source: newFCMemSource(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fc.SystemPrompt(), `<base_files count="0" tokens="0">`) {
		t.Errorf("system prompt of an empty base:\n%s", fc.SystemPrompt())
	}
	if got := fc.Usage(); got != (Usage{BudgetTokens: DefaultBudgetTokens}) {
		t.Errorf("Usage() = %+v", got)
	}
	if got := fc.ExportAnthropic().Messages; len(got) != 0 {
		t.Errorf("messages of an empty context: %v", got)
	}
}

func TestFileContextBaseOverBudgetInOrder(t *testing.T) {
	// The first two fit (60+30 of 100); the third does not fit what is left, but is smaller
	// than the budget: over_budget, not too_large. The fourth still fits.
	src := newFCMemSource(map[string]string{
		"/a": fcText("/a", 1, 60), "/b": fcText("/b", 1, 30), "/c": fcText("/c", 1, 20), "/d": fcText("/d", 1, 10),
	})
	fc, err := New(context.Background(), []string{"/a", "/b", "/c", "/d"}, Options{BudgetTokens: 100, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	var got []FileStatus
	for _, b := range fc.BaseFiles() {
		got = append(got, b.Status)
	}
	if diff := cmp.Diff([]FileStatus{FileInSystemPrompt, FileInSystemPrompt, FileOverBudget, FileInSystemPrompt}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !strings.Contains(fc.SystemPrompt(), `<file path="/c" status="over_budget" tokens="20">`) {
		t.Errorf("the prompt does not name the file left out:\n%s", fc.SystemPrompt())
	}
	if got := fc.Usage().BaseTokens; got != 100 {
		t.Errorf("BaseTokens = %d, want 100", got)
	}
}

func TestFileContextReadStatuses(t *testing.T) {
	src := newFCMemSource(map[string]string{
		"/ok.go":     "package ok\n",
		"/empty.txt": "",
		"/nul.bin":   "abc\x00def",
		"/latin1":    "caf\xe9",
		"/gate":      fcText("/gate", 1, 120),
	})
	fc, err := New(context.Background(), nil, Options{BudgetTokens: 1000, MaxFileTokens: 100, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fc.ReadFiles(context.Background(), []string{"/ok.go", "//ok.go", "/empty.txt", "/nul.bin", "/latin1", "/gate", "/nope", "a\x00b"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Path    string
		Status  FileStatus
		Content string
		Code    string
	}
	var got []row
	for _, f := range res.Files {
		code := ""
		var ce *agentfiles.Error
		if errors.As(f.Err(), &ce) {
			code = ce.Code.String()
		}
		got = append(got, row{f.Path, f.Status, f.Content, code})
	}
	want := []row{
		{"/ok.go", FileSent, "package ok\n", ""},
		{"/empty.txt", FileSent, "", ""},
		{"/nul.bin", FileBinary, "", consult.CodeBinaryFile.String()},
		{"/latin1", FileBinary, "", consult.CodeBinaryFile.String()},
		{"/gate", FileTooLarge, "", consult.CodeFileTooLarge.String()},
		{"/nope", FileNotFound, "", agentfiles.CodeNotFound.String()},
		{"a\x00b", FileInvalidPath, "", agentfiles.CodeInvalidArgument.String()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if !errors.Is(res.Files[4].Err(), consult.ErrFileTooLarge) || !strings.Contains(res.Files[4].Message, "per-file limit of 100 tokens") {
		t.Errorf("gate entry: %+v", res.Files[4])
	}
	// The empty file is in context: reading it again does not re-send it.
	res, err = fc.ReadFiles(context.Background(), []string{"/empty.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Files[0].Status; got != FileAlreadyInContext {
		t.Errorf("empty file read twice: %s", got)
	}
}

func TestFileContextPerFileShareGate(t *testing.T) {
	src := newFCMemSource(map[string]string{"/a": fcText("/a", 1, 260), "/b": fcText("/b", 1, 240)})
	fc, err := New(context.Background(), nil, Options{BudgetTokens: 1000, MaxFileBudgetPercent: 25, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fc.ReadFiles(context.Background(), []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Status != FileTooLarge || res.Files[0].Tokens != 260 || res.Files[1].Status != FileSent {
		t.Fatalf("entries: %+v", res.Files)
	}
	if want := "260 tokens is over the per-file limit of 250 tokens (25% of the 1000-token budget)"; !strings.HasPrefix(res.Files[0].Message, want) {
		t.Errorf("message %q, want prefix %q", res.Files[0].Message, want)
	}
}

func TestFileContextMaxReadPathsClamp(t *testing.T) {
	files := map[string]string{}
	var paths []string
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		files[p] = p
		paths = append(paths, p)
	}
	src := newFCMemSource(files)
	fc, err := New(context.Background(), nil, Options{MaxReadPaths: 2, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fc.ReadFiles(context.Background(), append(paths, "/1"))
	if err != nil {
		t.Fatal(err)
	}
	var got []FileStatus
	for _, f := range res.Files {
		got = append(got, f.Status)
	}
	if diff := cmp.Diff([]FileStatus{FileSent, FileSent, FileSkipped, FileSkipped}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if src.reads != 2 {
		t.Errorf("%d files read, want 2: skipped paths must not be read", src.reads)
	}
	if !strings.Contains(res.Files[3].Message, "at most 2 paths") {
		t.Errorf("skip message: %q", res.Files[3].Message)
	}
}

func TestFileContextDeletedBetweenTurns(t *testing.T) {
	src := newFCMemSource(map[string]string{"/a": fcText("/a", 1, 10), "/b": fcText("/b", 1, 10)})
	fc, err := New(context.Background(), nil, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(context.Background(), []string{"/a", "/b"}); err != nil {
		t.Fatal(err)
	}
	src.remove("/a")
	res, err := fc.ReadFiles(context.Background(), []string{"/a", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Status != FileNotFound || !errors.Is(res.Files[0].Err(), agentfiles.ErrNotFound) || res.Files[1].Status != FileAlreadyInContext {
		t.Fatalf("entries: %+v", res.Files)
	}
	// The earlier copy stays: editing it would break the prompt cache.
	if got := fc.Files(); len(got) != 2 || !got[0].InMessages {
		t.Errorf("Files() = %+v", got)
	}
	src.set("/a", fcText("/a", 2, 10))
	res, err = fc.ReadFiles(context.Background(), []string{"/a"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Status != FileUpdated || !strings.HasPrefix(res.Files[0].Content, fcMarker("/a", 2)) {
		t.Errorf("re-created file: %+v", res.Files[0])
	}
}

func TestFileContextRequestErrors(t *testing.T) {
	ctx := context.Background()
	src := newFCMemSource(map[string]string{"/a": "a"})
	fc, err := New(ctx, nil, Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.ReadFiles(ctx, nil); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("ReadFiles(nil) = %v, want INVALID_ARGUMENT", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := fc.ReadFiles(cancelled, []string{"/a"}); !errors.Is(err, agentfiles.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFiles(cancelled) = %v, want CANCELED wrapping context.Canceled", err)
	}
	expired, cancelExpired := context.WithDeadline(ctx, time.Now())
	defer cancelExpired()
	if _, err := fc.ReadFiles(expired, []string{"/a"}); !errors.Is(err, agentfiles.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ReadFiles(expired) = %v, want TIMEOUT wrapping context.DeadlineExceeded", err)
	}
	if _, err := New(cancelled, []string{"/a"}, Options{Source: src}); !errors.Is(err, agentfiles.ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Errorf("New(cancelled) = %v", err)
	}
	if n := len(fc.Messages()); n != 0 {
		t.Errorf("%d messages after failed calls, want 0", n)
	}

	call := ToolCall{ID: "call_1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a"]}`)}
	if _, err := fc.AnswerReadFiles(ctx, call); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("answering a call not in the history: %v", err)
	}
	for _, bad := range []ToolCall{
		{ID: "x", Name: "grep", Input: json.RawMessage(`{}`)},
		{ID: "x", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":[]}`)},
		{ID: "x", Name: ReadFilesToolName, Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "x", Name: ReadFilesToolName, Input: json.RawMessage(`[`)},
	} {
		if _, err := fc.AnswerReadFiles(ctx, bad); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("AnswerReadFiles(%s %s) = %v, want INVALID_ARGUMENT", bad.Name, bad.Input, err)
		}
	}
	for _, bad := range [][]Message{
		{{Role: "system", Text: "x"}},
		{{Role: RoleTool, Text: "x"}},
		{{Role: RoleUser, ToolCalls: []ToolCall{call}}},
		{{Role: RoleUser, Text: "fine"}, {Role: RoleAssistant, ToolCallID: "x"}},
	} {
		if err := fc.Append(bad...); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("Append(%+v) = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	if n := len(fc.Messages()); n != 0 {
		t.Errorf("%d messages after rejected appends, want 0", n)
	}

	if err := fc.Append(Message{Role: RoleUser, Text: "read a"}, Message{Role: RoleAssistant, ToolCalls: []ToolCall{call}}); err != nil {
		t.Fatal(err)
	}
	res, err := fc.AnswerReadFiles(ctx, call)
	if err != nil || res.Files[0].Status != FileSent {
		t.Fatalf("AnswerReadFiles = %+v, %v", res, err)
	}
	if _, err := fc.AnswerReadFiles(ctx, call); !errors.Is(err, agentfiles.ErrAlreadyExists) {
		t.Errorf("answering twice: %v", err)
	}
}

func TestPlanReadFilesHostOwnedJSONHistory(t *testing.T) {
	// A host that stores tool results as JSON text, in the seed's bare {path, content} form.
	history := []Message{
		{Role: RoleUser, Text: "look at a and b"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a","/b"]}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Text: `{"type":"read_files","files":[{"path":"/a","content":` + fcJSONString(fcText("/a", 1, 40)) +
			`},{"path":"/b","content":` + fcJSONString(fcText("/b", 1, 40)) + `}]}`},
		{Role: RoleTool, ToolCallID: "other", Text: `{"type":"grep","files":[{"path":"/z","content":"not a read_files result"}]}`},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c2", Name: ReadFilesToolName, Input: json.RawMessage(`{"paths":["/a","/c"]}`)}}},
	}
	before, _ := json.Marshal(history)
	opts := Options{BudgetTokens: 100}
	reads := []FileRead{{Path: "/a", Content: fcText("/a", 1, 40)}, {Path: "/c", Content: fcText("/c", 1, 30)}}

	plan, err := PlanReadFiles(history, nil, ReadFilesRequest{CallID: "c2", Reads: reads}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// 80 in context + 30 new > 100: reset; c, then a (requested now) fit; b is dropped.
	want := ReadFilesPlan{
		CallID: "c2",
		Reset:  true,
		Result: ReadFilesResult{Type: ReadFilesToolName, Reset: true, Files: []ReadFilesFile{
			{Path: "/a", Content: fcText("/a", 1, 40), Status: FileSent, Tokens: 40},
			{Path: "/c", Content: fcText("/c", 1, 30), Status: FileSent, Tokens: 30},
			{Path: "/b", Truncated: true, Status: FileDropped, Tokens: 40, Message: "removed to stay within the token budget; read it again if you need it"},
		}},
		Edits: []HistoryEdit{{Index: 2, Message: Message{Role: RoleTool, ToolCallID: "c1", ReadFiles: &ReadFilesResult{
			Type: ReadFilesToolName, Files: []ReadFilesFile{{Path: "/a", Truncated: true}, {Path: "/b", Truncated: true}}}}}},
		Usage: Usage{BudgetTokens: 100, MessageTokens: 70, TotalTokens: 70},
	}
	if diff := cmp.Diff(want, plan, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Note" }, cmp.Ignore())); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if after, _ := json.Marshal(history); string(after) != string(before) {
		t.Error("PlanReadFiles modified its history argument")
	}
	next := plan.Apply(history)
	if after, _ := json.Marshal(history); string(after) != string(before) {
		t.Error("Apply modified its history argument")
	}
	if len(next) != len(history)+1 || next[len(next)-1].ToolCallID != "c2" {
		t.Fatalf("applied history: %+v", next)
	}
	// The plan's usage is what the applied history holds.
	if got := parseContext(next, consult.EstimateCounter{}).contentTokens; got != plan.Usage.MessageTokens {
		t.Errorf("applied history holds %d tokens, plan said %d", got, plan.Usage.MessageTokens)
	}

	if _, err := PlanReadFiles(history, nil, ReadFilesRequest{}, opts); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("PlanReadFiles without CallID: %v", err)
	}
}

func TestFileContextRefreshBaseReset(t *testing.T) {
	// The base grows from 100 to 700 tokens; of 300 + 300 tokens in messages only the most
	// recently requested file still fits (refilling to the full room), and stays in place.
	src := newFCMemSource(map[string]string{"/k": fcText("/k", 1, 100), "/a": fcText("/a", 1, 300), "/b": fcText("/b", 1, 300)})
	ctx := context.Background()
	fc, err := New(ctx, []string{"/k"}, Options{BudgetTokens: 1000, RefillPercent: 100, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/b", "/a"} {
		if _, err := fc.ReadFiles(ctx, []string{p}); err != nil {
			t.Fatal(err)
		}
	}
	prompt := fc.SystemPrompt()
	if ref, err := fc.RefreshBase(ctx); err != nil || len(ref.Changed) != 0 || ref.Reset || fc.SystemPrompt() != prompt {
		t.Fatalf("refresh without a change: %+v, %v", ref, err)
	}
	src.set("/k", fcText("/k", 2, 700))
	ref, err := fc.RefreshBase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := BaseRefresh{
		Changed: []BaseFileChange{{Path: "/k", Before: FileInSystemPrompt, After: FileInSystemPrompt, OldTokens: 100, NewTokens: 700}},
		Reset:   true,
		Usage:   Usage{BudgetTokens: 1000, BaseTokens: 700, MessageTokens: 300, TotalTokens: 1000},
	}
	if diff := cmp.Diff(want, ref); diff != "" {
		t.Errorf("refresh (-want +got):\n%s", diff)
	}
	if !strings.Contains(fc.SystemPrompt(), fcMarker("/k", 2)) {
		t.Error("the new base is not in the system prompt")
	}
	got := fc.Files()
	wantFiles := []File{{Path: "/k", InSystemPrompt: true, Tokens: 700}, {Path: "/b"}, {Path: "/a", InMessages: true, Tokens: 300}}
	if diff := cmp.Diff(wantFiles, got); diff != "" {
		t.Errorf("Files() (-want +got):\n%s", diff)
	}
}

func TestFileSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	mapFS := fstest.MapFS{"docs/a.txt": {Data: []byte("hello")}, "docs/big.txt": {Data: []byte(strings.Repeat("x", 100))}}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		src  FileSource
		root string
	}{
		{"os", OSFileSource{}, dir},
		{"fs", FSFileSource{FS: mapFS}, "/docs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Source: tc.src, MaxFileBytes: 50}
			reads := ReadForContext(ctx, []string{tc.root + "/a.txt", tc.root + "/big.txt", tc.root, tc.root + "/none"}, opts)
			var got []string
			for _, r := range reads {
				status := "ok"
				if r.Err != nil {
					s, _ := classifyReadError(r.Err)
					status = string(s)
				}
				got = append(got, status+":"+r.Content)
			}
			if diff := cmp.Diff([]string{"ok:hello", "too_large:", "is_directory:", "not_found:"}, got); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
		})
	}
}

func fcJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestPlanReadFilesSkippedPathIsStillRestored(t *testing.T) {
	history := []Message{
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: ReadFilesToolName}}},
		{Role: RoleTool, ToolCallID: "c1", ReadFiles: &ReadFilesResult{Type: ReadFilesToolName, Files: []ReadFilesFile{
			{Path: "/a", Content: fcText("/a", 1, 30), Status: FileSent, Tokens: 30}}}},
	}
	reads := []FileRead{{Path: "/b", Content: fcText("/b", 1, 40)}, {Path: "/a", Content: fcText("/a", 1, 30)}}
	plan, err := PlanReadFiles(history, nil, ReadFilesRequest{CallID: "c2", Reads: reads},
		Options{BudgetTokens: 60, MaxFileBudgetPercent: 100, MaxReadPaths: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []FileStatus
	for _, f := range plan.Result.Files {
		got = append(got, f.Status)
	}
	// b is sent; a was not read (skipped), but its earlier copy is a candidate like any other.
	if diff := cmp.Diff([]FileStatus{FileSent, FileSkipped, FileDropped}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}
