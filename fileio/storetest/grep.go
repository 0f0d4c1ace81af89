package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio"
	"github.com/agentfiles/agentfiles/fileio/driver"
	"github.com/agentfiles/agentfiles/internal/globmatch"
	"github.com/agentfiles/agentfiles/internal/testsize"
	"github.com/google/go-cmp/cmp"
)

// exerciseGrep runs the grep and glob suite on the store, again with driver.LiteralGrepper
// hidden (the Service matches the candidates itself), and again with all its optional read
// interfaces hidden (driver.LiteralGrepper, driver.ContentSearcher, driver.MultiGetter), so
// that the indexed and the portable paths give the same answers. The costly-expression test,
// which spends its whole time budget on a pattern without literal text, runs on the store and
// on the portable path: hiding LiteralGrepper changes nothing for a pattern it is never asked.
func exerciseGrep(t *testing.T, newStore func(t *testing.T) driver.Store) {
	for _, v := range grepViews {
		t.Run(v.name, func(t *testing.T) {
			if v.name == "Store" {
				t.Run("SlowReaderLock", func(t *testing.T) { testSlowReaderLock(t, newStore) })
			}
			wrapped := func(t *testing.T) driver.Store { return v.wrap(newStore(t)) }
			grepSuite(t, wrapped)
			t.Run("HostileGlobs", func(t *testing.T) { testHostileGlobs(t, newEnv(t, wrapped)) })
			t.Run("HostilePatterns", func(t *testing.T) { testHostilePatterns(t, wrapped, v.name != "WithoutLiteralGrep") })
		})
	}
}

// grepViews are the ways exerciseGrep looks at a store: as it is, without
// driver.LiteralGrepper, and without any optional read interface.
var grepViews = []struct {
	name string
	wrap func(driver.Store) driver.Store
}{
	{"Store", func(s driver.Store) driver.Store { return s }},
	{"WithoutLiteralGrep", WithoutLiteralGrep},
	{"WithoutContentSearch", withoutContentSearch},
}

// ExerciseGrepSearch runs the part of ExerciseGrep whose answers depend on how the store
// searches (the grep suite and the hostile literal patterns, through driver.LiteralGrepper
// and through driver.ContentSearcher with LiteralGrepper hidden), for running it again under
// store settings that change only that, such as the state of a content index. What does not
// depend on them (the portable path, globs, the time budget of a costly expression) runs
// once, in ExerciseGrep.
func ExerciseGrepSearch(t *testing.T, newStore func(t *testing.T) driver.Store) {
	for _, v := range grepViews[:2] {
		t.Run(v.name, func(t *testing.T) {
			wrapped := func(t *testing.T) driver.Store { return v.wrap(newStore(t)) }
			grepSuite(t, wrapped)
			t.Run("HostilePatterns", func(t *testing.T) { testHostilePatterns(t, wrapped, false) })
		})
	}
}

// grepSuite runs the grep and glob tests on fresh stores of newStore.
func grepSuite(t *testing.T, newStore func(t *testing.T) driver.Store) {
	t.Run("Cases", func(t *testing.T) { testGrepCases(t, newEnv(t, newStore)) })
	t.Run("Errors", func(t *testing.T) { testGrepErrors(t, newEnv(t, newStore)) })
	t.Run("Budgets", func(t *testing.T) { testGrepBudgets(t, newStore) })
	t.Run("Glob", func(t *testing.T) { testGlob(t, newEnv(t, newStore)) })
	t.Run("Differential", func(t *testing.T) { testGrepDifferential(t, newEnv(t, newStore)) })
	t.Run("CaseAndNUL", func(t *testing.T) { testGrepCaseAndNUL(t, newEnv(t, newStore)) })
	t.Run("ScanConnections", func(t *testing.T) { testScanConnections(t, newEnv(t, newStore)) })
}

// scanTenants is how many tenants testScanConnections has search at once: more than any
// store's connection pool in the tests.
const scanTenants = 24

// testScanConnections: a store with driver.ScanViewer (the transactions of Grep and Glob)
// keeps connections for short calls however many tenants search at once. scanTenants tenants
// start searches that keep their transaction until released; while they do, another tenant
// reads a file through the Service; then every search finishes. A store without ScanViewer
// has no connections to run out of, and passes it with a log line (no skip: CI counts skips as failures).
func testScanConnections(t *testing.T, e *env) {
	sv, ok := e.store.(driver.ScanViewer)
	if !ok {
		t.Log("the store does not implement driver.ScanViewer: nothing to check")
		return
	}
	ctx, _ := newTenant(proj)
	e.writeFixture(ctx, proj, map[string]string{"/note.md": "a short note\n"})
	release := make(chan struct{})
	entered := make(chan struct{}, scanTenants)
	errs := make(chan error, scanTenants)
	for range scanTenants {
		_, scope := newTenant(proj)
		go func() {
			errs <- sv.ViewScan(context.Background(), scope, func(tx driver.ReadTx) error {
				if _, err := tx.List(context.Background(), "", 1); err != nil {
					return err
				}
				entered <- struct{}{}
				<-release
				return nil
			})
		}()
	}
	<-entered
	for i := range 5 {
		res, err := e.svc.Read(ctx, fileio.ReadRequest{Project: proj, Path: "/note.md", OffsetBytes: 0, LengthBytes: new(int64(1 << 10))})
		if err != nil || res.Content != "a short note\n" {
			t.Errorf("read %d while %d tenants search: %q, %v", i, scanTenants, res.Content, err)
			break
		}
	}
	close(release)
	for range scanTenants {
		if err := <-errs; err != nil {
			t.Errorf("a search: %v", err)
		}
	}
}

// withoutContentSearch hides the optional read interfaces of s's views.
func withoutContentSearch(s driver.Store) driver.Store { return plainViewStore{s} }

type plainViewStore struct{ driver.Store }

type plainReadTx struct{ driver.ReadTx }

func (p plainViewStore) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	return p.Store.View(ctx, scope, func(tx driver.ReadTx) error { return fn(plainReadTx{tx}) })
}

// WithoutLiteralGrep returns a Store that forwards everything to s, except that its views
// (View; it hides driver.ScanViewer) do not implement driver.LiteralGrepper: a Service over it
// reads and matches the files a literal grep finds itself. The views keep
// driver.ContentSearcher and driver.MultiGetter when they have both. It is safe for
// concurrent use if s is.
func WithoutLiteralGrep(s driver.Store) driver.Store { return searchViewStore{s} }

type searchViewStore struct{ driver.Store }

type searchReadTx struct {
	driver.ReadTx
	driver.ContentSearcher
	driver.MultiGetter
}

func (p searchViewStore) View(ctx context.Context, scope driver.Scope, fn func(driver.ReadTx) error) error {
	return p.Store.View(ctx, scope, func(tx driver.ReadTx) error {
		cs, searches := tx.(driver.ContentSearcher)
		mg, multi := tx.(driver.MultiGetter)
		if !searches || !multi {
			return fn(plainReadTx{tx})
		}
		return fn(searchReadTx{ReadTx: tx, ContentSearcher: cs, MultiGetter: mg})
	})
}

// grepFixture is the project the table tests search.
var grepFixture = map[string]string{
	"/README.md":        "# Demo\nhello world\nSee docs/guide.md.\n",
	"/docs/guide.md":    "Intro\nHello again\nsteps:\n1. install\n2. run\nhello there\n",
	"/docs/api/ref.md":  "func Hello() error\nfunc Bye()\n",
	"/docs/notes.txt":   "crlf line\r\nhello crlf\r\nlast\r\n",
	"/.env":             "HELLO=1\n",
	"/bin/blob.dat":     "hello\x00binary\n",
	"/src/main.go":      "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}",
	"/src/empty.go":     "",
	"/src/nested/x.go":  "// Kelvin: \u212a\nk8s\n",
	"/unicode/jp.txt":   "日本語のテキスト\nこんにちは hello\n",
	"/unicode/fold.txt": "\u212aelvin\nſtraße\n",
	"/unicode/bom.md":   "\uFEFF# Title\nbom line\n",
	"/long/line.txt":    strings.Repeat("x", fileio.MaxGrepLineBytes+500) + "needle\n",
	"/dir.with.dots/ok": "hello",
}

func (e *env) writeFixture(ctx context.Context, project string, files map[string]string) {
	e.t.Helper()
	for p, c := range files {
		if _, err := e.svc.Write(ctx, fileio.WriteRequest{Project: project, Path: p, Content: c, Mode: fileio.ModeTruncate}); err != nil {
			e.t.Fatalf("write %s: %v", p, err)
		}
	}
}

func testGrepCases(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.writeFixture(ctx, proj, grepFixture)
	long := strings.Repeat("x", fileio.MaxGrepLineBytes)
	tests := []struct {
		name string
		req  fileio.GrepRequest
		want fileio.GrepResult
	}{
		{"literal across the project", fileio.GrepRequest{Pattern: "hello"}, fileio.GrepResult{Matches: []fileio.GrepMatch{
			{Path: "/README.md", LineNumber: 2, Line: "hello world"},
			{Path: "/dir.with.dots/ok", LineNumber: 1, Line: "hello"},
			{Path: "/docs/guide.md", LineNumber: 6, Line: "hello there"},
			{Path: "/docs/notes.txt", LineNumber: 2, Line: "hello crlf\r"},
			{Path: "/src/main.go", LineNumber: 4, Line: "\tprintln(\"hello\")"},
			{Path: "/unicode/jp.txt", LineNumber: 2, Line: "こんにちは hello"},
		}}},
		{"ignore case, below a directory, with context", fileio.GrepRequest{Pattern: "hello", IgnoreCase: true, Path: "/docs/", Context: 1},
			fileio.GrepResult{Matches: []fileio.GrepMatch{
				{Path: "/docs/api/ref.md", LineNumber: 1, Line: "func Hello() error", After: []string{"func Bye()"}},
				{Path: "/docs/guide.md", LineNumber: 2, Line: "Hello again", Before: []string{"Intro"}, After: []string{"steps:"}},
				{Path: "/docs/guide.md", LineNumber: 6, Line: "hello there", Before: []string{"2. run"}},
				{Path: "/docs/notes.txt", LineNumber: 2, Line: "hello crlf\r", Before: []string{"crlf line\r"}, After: []string{"last\r"}},
			}}},
		{"a file as the path, before context only", fileio.GrepRequest{Pattern: "^[0-9]\\.", Path: "/docs/guide.md", BeforeContext: 2},
			fileio.GrepResult{Matches: []fileio.GrepMatch{
				{Path: "/docs/guide.md", LineNumber: 4, Line: "1. install", Before: []string{"Hello again", "steps:"}},
				{Path: "/docs/guide.md", LineNumber: 5, Line: "2. run", Before: []string{"steps:", "1. install"}},
			}}},
		{"a file given as the path is searched whatever the glob, as in rg", fileio.GrepRequest{Pattern: "install", Path: "/docs/guide.md", Glob: "*.txt"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/docs/guide.md", LineNumber: 4, Line: "1. install"}}}},
		{"$ does not match before \\r", fileio.GrepRequest{Pattern: "crlf$"}, fileio.GrepResult{}},
		{"\\r is part of the line", fileio.GrepRequest{Pattern: "crlf\\r$", OutputMode: fileio.GrepCount},
			fileio.GrepResult{OutputMode: fileio.GrepCount, Counts: []fileio.GrepFileCount{{Path: "/docs/notes.txt", Count: 1}}}},
		{"fixed strings", fileio.GrepRequest{Pattern: "docs/guide.md.", FixedStrings: true},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/README.md", LineNumber: 3, Line: "See docs/guide.md."}}}},
		{"fixed strings are not a regexp", fileio.GrepRequest{Pattern: "h.llo", FixedStrings: true}, fileio.GrepResult{}},
		{"base-name glob", fileio.GrepRequest{Pattern: "hello", IgnoreCase: true, Glob: "*.md", OutputMode: fileio.GrepFilesWithMatches},
			fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: []string{"/README.md", "/docs/api/ref.md", "/docs/guide.md"}}},
		{"a negated glob excludes", fileio.GrepRequest{Pattern: "hello", IgnoreCase: true, Glob: "!*.md", OutputMode: fileio.GrepFilesWithMatches},
			fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: []string{"/.env", "/dir.with.dots/ok", "/docs/notes.txt", "/src/main.go", "/unicode/jp.txt"}}},
		{"path glob relative to the path", fileio.GrepRequest{Pattern: "func", Path: "/docs", Glob: "api/**", OutputMode: fileio.GrepFilesWithMatches},
			fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: []string{"/docs/api/ref.md"}}},
		{"dot files are searched", fileio.GrepRequest{Pattern: "HELLO=", OutputMode: fileio.GrepFilesWithMatches},
			fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: []string{"/.env"}}},
		{"files with a NUL byte are skipped", fileio.GrepRequest{Pattern: "binary"}, fileio.GrepResult{}},
		{"the last line needs no newline; no line after a final one", fileio.GrepRequest{Pattern: "^", Path: "/src", OutputMode: fileio.GrepCount},
			fileio.GrepResult{OutputMode: fileio.GrepCount, Counts: []fileio.GrepFileCount{{Path: "/src/main.go", Count: 5}, {Path: "/src/nested/x.go", Count: 2}}}},
		{"empty lines match ^$", fileio.GrepRequest{Pattern: "^$", Path: "/src/main.go"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/src/main.go", LineNumber: 2, Line: ""}}}},
		{"ignore case folds k like Go (Kelvin sign)", fileio.GrepRequest{Pattern: "K", IgnoreCase: true, Path: "/src/nested", OutputMode: fileio.GrepCount},
			fileio.GrepResult{OutputMode: fileio.GrepCount, Counts: []fileio.GrepFileCount{{Path: "/src/nested/x.go", Count: 2}}}},
		{"ignore case: the Kelvin sign is a k", fileio.GrepRequest{Pattern: "KELVIN", IgnoreCase: true, Path: "/unicode"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/unicode/fold.txt", LineNumber: 1, Line: "\u212aelvin"}}}},
		{"ignore case: long s is an s", fileio.GrepRequest{Pattern: "strasse|stra", IgnoreCase: true, Path: "/unicode"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/unicode/fold.txt", LineNumber: 2, Line: "ſtraße"}}}},
		{"a byte order mark is not part of the first line", fileio.GrepRequest{Pattern: "^# Title$", Path: "/unicode"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/unicode/bom.md", LineNumber: 1, Line: "# Title"}}}},
		{"UTF-8 literal", fileio.GrepRequest{Pattern: "本語"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/unicode/jp.txt", LineNumber: 1, Line: "日本語のテキスト"}}}},
		{"alternation", fileio.GrepRequest{Pattern: "install|Bye", OutputMode: fileio.GrepFilesWithMatches},
			fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: []string{"/docs/api/ref.md", "/docs/guide.md"}}},
		{"long lines are cut", fileio.GrepRequest{Pattern: "needle"},
			fileio.GrepResult{Matches: []fileio.GrepMatch{{Path: "/long/line.txt", LineNumber: 1, Line: long, LineTruncated: true}}}},
		{"a newline in the pattern never matches", fileio.GrepRequest{Pattern: "world\nSee"}, fileio.GrepResult{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Project = proj
			got, err := e.svc.Grep(ctx, tc.req)
			if err != nil {
				t.Fatalf("Grep: %v", err)
			}
			want := tc.want
			if want.OutputMode == "" {
				want.OutputMode = fileio.GrepContent
			}
			switch want.OutputMode {
			case fileio.GrepContent:
				if want.Matches == nil {
					want.Matches = []fileio.GrepMatch{}
				}
			case fileio.GrepFilesWithMatches:
				if want.Files == nil {
					want.Files = []string{}
				}
			}
			want.Limit = fileio.DefaultGrepLimit
			got.ScannedFiles, got.ScannedBytes = 0, 0
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Grep %+v (-want +got):\n%s", tc.req, diff)
			}
		})
	}
}

// testGrepCaseAndNUL: ignore-case matching does not depend on a database's collation (under
// Turkish rules "I" lower-cases to a dotless "ı", under Lithuanian an "I" before a combining
// accent gains a dot above), and a NUL byte in a pattern's literal is matched as memory does.
// The pgstore tests run it on databases with ICU tr-TR and lt-LT collations, with every file
// in the trigram index.
func testGrepCaseAndNUL(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	fixture := map[string]string{
		"/tr.txt":    "CONFIG FILE LINE\n",
		"/tr2.txt":   "config file line\n",
		"/lt.txt":    "XYZI\u0300 mark\n",
		"/nul.txt":   "abcdef\n",
		"/other.txt": "nothing to see\n",
	}
	e.writeFixture(ctx, proj, fixture)
	files := func(paths ...string) fileio.GrepResult {
		return fileio.GrepResult{OutputMode: fileio.GrepFilesWithMatches, Files: paths}
	}
	tests := []struct {
		name string
		req  fileio.GrepRequest
		want fileio.GrepResult
	}{
		{"ignore_case: I matches i", fileio.GrepRequest{Pattern: "file", IgnoreCase: true}, files("/tr.txt", "/tr2.txt")},
		{"(?i): I matches i", fileio.GrepRequest{Pattern: "(?i)CONFIG file"}, files("/tr.txt", "/tr2.txt")},
		{"fixed_strings and ignore_case", fileio.GrepRequest{Pattern: "fIlE lInE", FixedStrings: true, IgnoreCase: true}, files("/tr.txt", "/tr2.txt")},
		{"ignore_case: upper case pattern", fileio.GrepRequest{Pattern: "CONFIG FILE LINE$", IgnoreCase: true, OutputMode: fileio.GrepCount},
			fileio.GrepResult{OutputMode: fileio.GrepCount, Counts: []fileio.GrepFileCount{{Path: "/tr.txt", Count: 1}, {Path: "/tr2.txt", Count: 1}}}},
		{"case-sensitive: only the upper case line", fileio.GrepRequest{Pattern: "FILE LINE"}, files("/tr.txt")},
		{"case-sensitive: only the lower case line", fileio.GrepRequest{Pattern: "file line"}, files("/tr2.txt")},
		{"ignore_case: I before a combining accent", fileio.GrepRequest{Pattern: "xyzi\u0300", IgnoreCase: true}, files("/lt.txt")},
		{"ignore_case: I before a combining accent, fixed strings", fileio.GrepRequest{Pattern: "xYzI\u0300 MARK", IgnoreCase: true, FixedStrings: true}, files("/lt.txt")},
		{"NUL in one alternative", fileio.GrepRequest{Pattern: "abcdef|zzz\x00zzz"}, files("/nul.txt")},
		{"NUL in one alternative, ignore case", fileio.GrepRequest{Pattern: "ABCDEF|zzz\x00zzz", IgnoreCase: true}, files("/nul.txt")},
		{"NUL in a fixed string", fileio.GrepRequest{Pattern: "abc\x00def", FixedStrings: true}, files()},
		{"NUL required", fileio.GrepRequest{Pattern: "abcdef.*zzz\x00zzz"}, files()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Project = proj
			if tc.req.OutputMode == "" {
				tc.req.OutputMode = fileio.GrepFilesWithMatches
			}
			got, err := e.svc.Grep(ctx, tc.req)
			if err != nil {
				t.Fatalf("Grep: %v", err)
			}
			want := tc.want
			if want.OutputMode == fileio.GrepFilesWithMatches && want.Files == nil {
				want.Files = []string{}
			}
			want.Limit = fileio.DefaultGrepLimit
			got.ScannedFiles, got.ScannedBytes = 0, 0
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Grep %+q (-want +got):\n%s", tc.req.Pattern, diff)
			}
			// The reference scan agrees.
			if diff := cmp.Diff(ReferenceGrep(t, fixture, tc.req).Entries(tc.req.OutputMode), grepAll(t, e.svc, ctx, tc.req)); diff != "" {
				t.Errorf("Grep %+q against the reference (-reference +got):\n%s", tc.req.Pattern, diff)
			}
		})
	}
}

func testGrepErrors(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.writeFixture(ctx, proj, map[string]string{"/a.md": "x\n"})
	tests := []struct {
		name      string
		req       fileio.GrepRequest
		code      agentfiles.Code
		fragments []string
	}{
		{"bad regexp", fileio.GrepRequest{Pattern: "a(b"}, agentfiles.CodeInvalidPattern, []string{"fixed_strings"}},
		{"bad glob", fileio.GrepRequest{Pattern: "x", Glob: "[a"}, agentfiles.CodeInvalidPattern, []string{"glob"}},
		{"bad mode", fileio.GrepRequest{Pattern: "x", OutputMode: "lines"}, agentfiles.CodeInvalidArgument, []string{"files_with_matches"}},
		{"negative limit", fileio.GrepRequest{Pattern: "x", Limit: -1}, agentfiles.CodeInvalidArgument, []string{"limit"}},
		{"negative context", fileio.GrepRequest{Pattern: "x", Context: -1}, agentfiles.CodeInvalidArgument, []string{"context"}},
		{"garbage cursor", fileio.GrepRequest{Pattern: "x", Cursor: "???"}, agentfiles.CodeInvalidArgument, []string{"cursor"}},
		{"cursor of another search", fileio.GrepRequest{Pattern: "y", Cursor: mustCursor(t, e, ctx)}, agentfiles.CodeInvalidArgument, []string{"other arguments"}},
		{"missing path", fileio.GrepRequest{Pattern: "x", Path: "/nope"}, agentfiles.CodeNotFound, []string{"file_list"}},
		{"bad path", fileio.GrepRequest{Pattern: "x", Path: "nope"}, fileio.CodeInvalidPath, nil},
		{"pattern too long", fileio.GrepRequest{Pattern: strings.Repeat("a", fileio.MaxGrepPatternBytes+1)}, agentfiles.CodeInvalidArgument, []string{"maximum"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Project = proj
			_, err := e.svc.Grep(ctx, tc.req)
			wantCode(t, tc.name, err, tc.code)
			if len(tc.fragments) > 0 {
				wantMessage(t, tc.name, err, tc.fragments...)
			}
		})
	}
	_, err := e.svc.Grep(context.Background(), fileio.GrepRequest{Project: proj, Pattern: "x"})
	wantCode(t, "no identity", err, agentfiles.CodePermissionDenied)
}

// mustCursor returns a real cursor of a search for "x" with limit 1.
func mustCursor(t *testing.T, e *env, ctx context.Context) string {
	t.Helper()
	e.writeFixture(ctx, proj, map[string]string{"/b.md": "x\n"})
	res, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: "x", Limit: 1})
	if err != nil || res.NextCursor == "" {
		t.Fatalf("Grep with limit 1 = %+v, %v; want a cursor", res, err)
	}
	return res.NextCursor
}

// testGrepBudgets checks that the scan budget and the answer's byte cap stop a search with a
// cursor that continues it without losing or repeating an entry.
func testGrepBudgets(t *testing.T, newStore func(t *testing.T) driver.Store) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("/f%02d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), 50)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*fileio.Config)
	}{
		{"scan budget", func(c *fileio.Config) { c.GrepMaxScanBytes = 2000 }},
		{"answer cap", func(c *fileio.Config) { c.GrepMaxAnswerBytes = 3000 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, newStore, tc.mutate)
			ctx, _ := newTenant(proj)
			e.writeFixture(ctx, proj, files)
			req := fileio.GrepRequest{Project: proj, Pattern: "of file", Limit: 1000}
			var got []fileio.GrepMatch
			calls := 0
			for {
				res, err := e.svc.Grep(ctx, req)
				if err != nil {
					t.Fatalf("Grep: %v", err)
				}
				calls++
				got = append(got, res.Matches...)
				if !res.Truncated {
					break
				}
				if res.NextCursor == "" || res.Note == "" {
					t.Fatalf("truncated without cursor or note: %+v", res)
				}
				req.Cursor = res.NextCursor
			}
			if calls < 2 {
				t.Errorf("the budget never stopped a call")
			}
			if len(got) != 12*50 {
				t.Errorf("following the cursors gave %d matches, want %d", len(got), 12*50)
			}
			for i := 1; i < len(got); i++ {
				if a, b := got[i-1], got[i]; a.Path > b.Path || (a.Path == b.Path && a.LineNumber >= b.LineNumber) {
					t.Fatalf("matches out of order or repeated at %d: %+v then %+v", i, a, b)
				}
			}
			// A pattern without literal text that the scan budget stops says up front how
			// much is left and how to narrow it; one with literal text does not.
			for _, pattern := range []string{`[0-9]\s[a-z]`, "of file"} {
				res, err := e.svc.Grep(ctx, fileio.GrepRequest{Project: proj, Pattern: pattern, OutputMode: fileio.GrepFilesWithMatches})
				if err != nil {
					t.Fatal(err)
				}
				said := strings.HasPrefix(res.Note, "the pattern has no literal text")
				if want := tc.name == "scan budget" && pattern != "of file"; said != want || (res.Truncated && !strings.Contains(res.Note, "narrow")) {
					t.Errorf("%q: note %q; want the no-literal note %v", pattern, res.Note, want)
				}
			}
		})
	}
}

func testGlob(t *testing.T, e *env) {
	ctx, _ := newTenant(proj)
	e.writeFixture(ctx, proj, grepFixture)
	tests := []struct {
		pattern, path string
		want          []string
	}{
		{"*.md", "", []string{"/README.md"}},
		{"**/*.md", "", []string{"/README.md", "/docs/api/ref.md", "/docs/guide.md", "/unicode/bom.md"}},
		{"docs/*", "", []string{"/docs/guide.md", "/docs/notes.txt"}},
		{"*", "/docs", []string{"/docs/guide.md", "/docs/notes.txt"}},
		{"*", "/docs/", []string{"/docs/guide.md", "/docs/notes.txt"}},
		{"**", "/docs", []string{"/docs/api/ref.md", "/docs/guide.md", "/docs/notes.txt"}},
		{".*", "", []string{"/.env"}},
		{"**/*.{go,txt}", "/src", []string{"/src/empty.go", "/src/main.go", "/src/nested/x.go"}},
		{"src/**/x.go", "", []string{"/src/nested/x.go"}},
		{"**/[a-m]*.go", "", []string{"/src/empty.go", "/src/main.go"}},
		{"/docs/?????.md", "", []string{"/docs/guide.md"}},
		{"nothing/**", "", []string{}},
		{"./docs/*.md", "", []string{"/docs/guide.md"}},
		{"!**/*.md", "/docs", []string{"/docs/notes.txt"}},
		{"!*.{md,go}", "/src", []string{"/src/nested/x.go"}}, // "*" stays in one directory
	}
	for _, tc := range tests {
		got, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Pattern: tc.pattern, Path: tc.path})
		if err != nil {
			t.Errorf("Glob(%q, %q): %v", tc.pattern, tc.path, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got.Paths); diff != "" || got.Truncated {
			t.Errorf("Glob(%q, %q) truncated=%v (-want +got):\n%s", tc.pattern, tc.path, got.Truncated, diff)
		}
	}
	// Paging through cursors yields every path once.
	var all []string
	req := fileio.GlobRequest{Project: proj, Pattern: "**", Limit: 5}
	for {
		res, err := e.svc.Glob(ctx, req)
		if err != nil {
			t.Fatalf("Glob page: %v", err)
		}
		all = append(all, res.Paths...)
		if !res.Truncated {
			break
		}
		req.Cursor = res.NextCursor
	}
	if len(all) != len(grepFixture) {
		t.Errorf("paging through ** gave %d paths, want %d: %v", len(all), len(grepFixture), all)
	}
	_, err := e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Pattern: "a/{b/c}"})
	wantCode(t, "glob with / in braces", err, agentfiles.CodeInvalidPattern)
	_, err = e.svc.Glob(ctx, fileio.GlobRequest{Project: proj, Pattern: "*", Path: "/missing"})
	wantCode(t, "glob below a missing directory", err, agentfiles.CodeNotFound)
}

// testGrepDifferential compares Grep with a plain line-by-line scan on random files and
// patterns, in every output mode, following cursors with small limits.
func testGrepDifferential(t *testing.T, e *env) {
	rng := rand.New(rand.NewPCG(26, 2026))
	ctx, _ := newTenant(proj)
	files := RandomGrepFiles(rng, 40)
	e.writeFixture(ctx, proj, files)
	// 60 random searches in each mode with AGENTFILES_FULL=1; the first 40 of them by default
	// (fewer missed a glob that kept files it should not).
	for i := range testsize.Count(t, 60, 40) {
		req := fileio.GrepRequest{Project: proj, Pattern: RandomGrepPattern(rng), IgnoreCase: rng.IntN(3) == 0, FixedStrings: rng.IntN(6) == 0}
		if rng.IntN(4) == 0 {
			req.Glob = []string{"*.md", "**/*.txt", "d1/**", "*"}[rng.IntN(4)]
		}
		if rng.IntN(4) == 0 {
			req.Path = []string{"/d1", "/d2", "/d1/sub"}[rng.IntN(3)]
		}
		want := ReferenceGrep(t, files, req)
		for _, mode := range []fileio.GrepOutputMode{fileio.GrepContent, fileio.GrepFilesWithMatches, fileio.GrepCount} {
			req.OutputMode = mode
			req.Limit = 1 + rng.IntN(7)
			got := grepAll(t, e.svc, ctx, req)
			if diff := cmp.Diff(want.Entries(mode), got); diff != "" {
				t.Errorf("case %d: Grep %+v (-reference +got):\n%s", i, req, diff)
			}
		}
	}
}

// grepAll follows cursors to the end and returns every entry as "path:line" (content),
// "path" (files) or "path:count" (count).
func grepAll(t *testing.T, svc *fileio.Service, ctx context.Context, req fileio.GrepRequest) []string {
	t.Helper()
	out := []string{}
	for pages := 0; ; pages++ {
		res, err := svc.Grep(ctx, req)
		if err != nil {
			t.Fatalf("Grep %+v: %v", req, err)
		}
		for _, m := range res.Matches {
			out = append(out, fmt.Sprintf("%s:%d:%s", m.Path, m.LineNumber, m.Line))
		}
		out = append(out, res.Files...)
		for _, c := range res.Counts {
			out = append(out, fmt.Sprintf("%s:%d", c.Path, c.Count))
		}
		if !res.Truncated {
			return out
		}
		if pages > 10000 {
			t.Fatalf("Grep %+v: cursors never end", req)
		}
		req.Cursor = res.NextCursor
	}
}

// GrepLines is what a reference scan found: the matching lines of each file, by path.
type GrepLines struct {
	paths []string // sorted
	lines map[string][]grepLine
}

type grepLine struct {
	number int
	text   string
}

// Entries renders the lines as grepAll does for mode: "path:line:text" (text cut at
// fileio.MaxGrepLineBytes), "path", or "path:count".
func (g GrepLines) Entries(mode fileio.GrepOutputMode) []string {
	out := []string{}
	for _, p := range g.paths {
		ls := g.lines[p]
		switch mode {
		case fileio.GrepFilesWithMatches:
			out = append(out, p)
		case fileio.GrepCount:
			out = append(out, fmt.Sprintf("%s:%d", p, len(ls)))
		default:
			for _, l := range ls {
				text := l.text
				if len(text) > fileio.MaxGrepLineBytes {
					text = cutReference(text)
				}
				out = append(out, fmt.Sprintf("%s:%d:%s", p, l.number, text))
			}
		}
	}
	return out
}

func cutReference(s string) string {
	end := fileio.MaxGrepLineBytes
	for end > 0 && s[end]&0xC0 == 0x80 {
		end--
	}
	return s[:end]
}

// ReferenceGrep is the plain scan Grep must agree with: split each file at "\n" (no line
// after a final one, no byte order mark in the first), skip files with a NUL byte, and match each line on its own with Go's
// regexp. The glob is applied with the matcher of Service.Glob (tested on its own).
func ReferenceGrep(t testing.TB, files map[string]string, req fileio.GrepRequest) GrepLines {
	t.Helper()
	src := req.Pattern
	if req.FixedStrings {
		src = regexp.QuoteMeta(src)
	}
	if req.IgnoreCase {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	var g *globmatch.Glob
	if req.Glob != "" {
		if g, err = globmatch.Compile(req.Glob); err != nil {
			t.Fatalf("reference glob: %v", err)
		}
	}
	out := GrepLines{lines: map[string][]grepLine{}}
	for path, content := range files {
		if req.Path != "" && path != req.Path && !strings.HasPrefix(path, req.Path+"/") {
			continue
		}
		if strings.Contains(content, "\x00") || (g != nil && !g.MatchFile(req.Path, path)) {
			continue
		}
		content = strings.TrimPrefix(content, "\uFEFF")
		lines := strings.Split(content, "\n")
		if strings.HasSuffix(content, "\n") || content == "" {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if re.MatchString(l) {
				out.lines[path] = append(out.lines[path], grepLine{i + 1, l})
			}
		}
		if len(out.lines[path]) > 0 {
			out.paths = append(out.paths, path)
		}
	}
	slices.Sort(out.paths)
	return out
}

// grepFragments are the pieces random files and patterns are made of: ASCII, UTF-8 letters
// with and without simple case folds (the Kelvin sign folds to k, ſ to s), CRLF, and
// regular-expression syntax.
var grepFragments = []string{"foo", "Foo", "FOO", "bar", "baz", "a", "b", "ab", " ", "\t", "\n", "\n", "\r\n", "é", "É",
	"日本", "k", "K", "\u212a", "s", "S", "ſ", "\u212afoo", "ſbar", "x1", "_", ".", "(", ")", "[", "*", "?", "|", "$", "^"}

// RandomGrepFiles returns n files below /d1, /d1/sub, /d2 and the root with random content:
// short and long lines, CRLF, UTF-8, empty files, and now and then a NUL byte.
func RandomGrepFiles(rng *rand.Rand, n int) map[string]string {
	dirs := []string{"", "/d1", "/d1/sub", "/d2", "/.hidden"}
	exts := []string{".md", ".txt", ".go", ""}
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(grepFragments[rng.IntN(len(grepFragments))])
		}
		switch rng.IntN(12) {
		case 0:
			b.WriteString("\x00")
		case 1:
			b.WriteString(strings.Repeat("foo bar ", fileio.MaxGrepLineBytes/6)) // a line longer than MaxGrepLineBytes
		case 2:
			b.Reset()
		case 3:
			withBOM := "\uFEFF" + b.String()
			b.Reset()
			b.WriteString(withBOM)
		}
		files[fmt.Sprintf("%s/f%d%s", dirs[rng.IntN(len(dirs))], i, exts[rng.IntN(len(exts))])] = b.String()
	}
	return files
}

// RandomGrepPattern returns a valid Go regular expression built from literals, classes,
// anchors, repetition and alternation.
func RandomGrepPattern(rng *rand.Rand) string {
	atoms := []string{"foo", "Foo", "bar", "ba[rz]", "a+b", "é", "日本", "k", "ſ", "x1", `\.`, `\(`, ".", "[^a]", `\s`,
		"(foo|bar)", "(?i:foo)", "kfoo", "(?i)kfoo", "sbar", "Sbar", "o*", "^", "$", `\bfoo\b`, "fo{2}", "[A-Z]", `\r`, `\r$`, `[\n]`, "", "foo bar", "ab|ba"}
	var b strings.Builder
	for range 1 + rng.IntN(3) {
		b.WriteString(atoms[rng.IntN(len(atoms))])
	}
	return b.String()
}
