package fileid

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// seedTree is the example of the design document: three roots, same-named files.
var seedTree = map[string]map[string]string{
	"/primary": {
		"config.md":        "# Configuration\n\nSettings.\n",
		"guide.md":         "---\ntitle: The Guide\ndescription: How to use it\n---\n# Guide heading\n",
		"README.md":        "Main Documentation\n==================\n\nWelcome.\n",
		"subdir/README.md": "## Only a level-two heading\n",
	},
	"/secondary": {
		"README.md": "# Main README\n",
		"utils.md":  "# Utilities\n",
	},
	"/fallback": {
		"index.md": "# Index\n",
	},
}

var seedOrder = []string{"/primary", "/secondary", "/fallback"}

// wantSeed is the listing the design document requires, f1…f7.
var wantSeed = []FileInfo{
	{FileID: "f1", Filename: "config.md", Title: "Configuration", SourceDirectory: "/primary"},
	{FileID: "f2", Filename: "guide.md", Title: "The Guide", Description: "How to use it", SourceDirectory: "/primary"},
	{FileID: "f3", Filename: "README.md", Title: "Main Documentation", SourceDirectory: "/primary"},
	{FileID: "f4", Filename: "subdir/README.md", Title: "README.md", SourceDirectory: "/primary"},
	{FileID: "f5", Filename: "README.md", Title: "Main README", SourceDirectory: "/secondary"},
	{FileID: "f6", Filename: "utils.md", Title: "Utilities", SourceDirectory: "/secondary"},
	{FileID: "f7", Filename: "index.md", Title: "Index", SourceDirectory: "/fallback"},
}

func mapRoots(tree map[string]map[string]string, order []string) []Root {
	var roots []Root
	for _, label := range order {
		m := fstest.MapFS{}
		for name, body := range tree[label] {
			m[name] = &fstest.MapFile{Data: []byte(body)}
		}
		roots = append(roots, Root{Label: label, FS: m})
	}
	return roots
}

// dirRoots writes the tree to real directories and opens them with DirRoot. Labels are the
// original labels, so results compare equal to the MapFS build.
func dirRoots(t testing.TB, tree map[string]map[string]string, order []string) []Root {
	t.Helper()
	base := t.TempDir()
	var roots []Root
	for i, label := range order {
		dir := testfiles.Write(t, filepath.Join(base, fmt.Sprintf("root%d", i)), tree[label])
		root, err := DirRoot(label, dir)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
	}
	return roots
}

func mustNew(t testing.TB, roots []Root, opts Options) *Registry {
	t.Helper()
	reg, err := New(context.Background(), roots, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return reg
}

// fileContent returns the bytes the registry holds for a file ID.
func fileContent(t testing.TB, reg *Registry, id string) []byte {
	t.Helper()
	f, err := reg.lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return f.content
}

// withoutSizes clears the size fields, which are checked separately.
func withoutSizes(files []FileInfo) []FileInfo {
	out := append([]FileInfo(nil), files...)
	for i := range out {
		out[i].Size, out[i].SizeBytes = "", 0
	}
	return out
}

func TestSeedExampleIDs(t *testing.T) {
	builds := map[string]func(t *testing.T) []Root{
		"MapFS":   func(t *testing.T) []Root { return mapRoots(seedTree, seedOrder) },
		"DirRoot": func(t *testing.T) []Root { return dirRoots(t, seedTree, seedOrder) },
	}
	for name, roots := range builds {
		t.Run(name, func(t *testing.T) {
			for run := range 3 { // same tree, same IDs, every run
				reg := mustNew(t, roots(t), Options{})
				if diff := cmp.Diff(wantSeed, withoutSizes(reg.Files())); diff != "" {
					t.Fatalf("run %d: listing mismatch (-want +got):\n%s", run, diff)
				}
				for _, f := range reg.Files() {
					content := fileContent(t, reg, f.FileID)
					want := seedTree[f.SourceDirectory][f.Filename]
					if string(content) != want {
						t.Errorf("%s: content %q, want %q", f.FileID, content, want)
					}
					if f.SizeBytes != int64(len(want)) || f.Size != HumanSize(int64(len(want))) {
						t.Errorf("%s: size %q/%d, want %d bytes", f.FileID, f.Size, f.SizeBytes, len(want))
					}
				}
			}
		})
	}
}

func TestSameNamedFilesAllReachable(t *testing.T) {
	reg := mustNew(t, mapRoots(seedTree, seedOrder), Options{})
	readmes := map[string]string{}
	for _, f := range reg.Files() {
		if strings.EqualFold(filepath.Base(f.Filename), "README.md") {
			toc, err := reg.TableOfContents(f.FileID, TOCOptions{})
			if err != nil {
				t.Fatal(err)
			}
			readmes[f.FileID] = toc.Entries[0].Title
		}
	}
	want := map[string]string{"f3": "Main Documentation", "f4": "Only a level-two heading", "f5": "Main README"}
	if diff := cmp.Diff(want, readmes); diff != "" {
		t.Errorf("README tables of contents (-want +got):\n%s", diff)
	}
}

func TestOrderingCaseInsensitiveTiesBytewise(t *testing.T) {
	m := fstest.MapFS{}
	for _, name := range []string{"b.md", "B.md", "a-b.md", "a.md", "a/b.md", "A/a.md", "Zeta.md", "alpha.md", "_x.md"} {
		m[name] = &fstest.MapFile{Data: []byte("# " + name + "\n")}
	}
	reg := mustNew(t, []Root{{Label: "r", FS: m}}, Options{})
	var got []string
	for _, f := range reg.Files() {
		got = append(got, f.FileID+"="+f.Filename)
	}
	// Lower-cased paths compare bytewise: '_' < 'a', and '-' < '.' < '/'.
	want := []string{"f1=_x.md", "f2=a-b.md", "f3=a.md", "f4=A/a.md", "f5=a/b.md", "f6=alpha.md", "f7=B.md", "f8=b.md", "f9=Zeta.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestScanSkipsDotFilesAndFiltersPatterns(t *testing.T) {
	m := fstest.MapFS{
		"a.md":             {Data: []byte("a")},
		"b.MDX":            {Data: []byte("b")},
		"c.markdown":       {Data: []byte("c")},
		"d.txt":            {Data: []byte("d")},
		".hidden.md":       {Data: []byte("h")},
		".git/x.md":        {Data: []byte("x")},
		"sub/.draft/y.md":  {Data: []byte("y")},
		"sub/deep/z.md":    {Data: []byte("z")},
		"guides/intro.txt": {Data: []byte("i")},
	}
	names := func(reg *Registry) []string {
		var out []string
		for _, f := range reg.Files() {
			out = append(out, f.Filename)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a.md", "b.MDX", "c.markdown", "sub/deep/z.md"}, names(mustNew(t, []Root{{Label: "r", FS: m}}, Options{}))); diff != "" {
		t.Errorf("default include (-want +got):\n%s", diff)
	}
	reg := mustNew(t, []Root{{Label: "r", FS: m}}, Options{Include: []string{"*.txt"}})
	if diff := cmp.Diff([]string{"d.txt", "guides/intro.txt"}, names(reg)); diff != "" {
		t.Errorf("*.txt (-want +got):\n%s", diff)
	}
	reg = mustNew(t, []Root{{Label: "r", FS: m}}, Options{Include: []string{"guides/*.txt", "a.md"}})
	if diff := cmp.Diff([]string{"a.md", "guides/intro.txt"}, names(reg)); diff != "" {
		t.Errorf("path pattern (-want +got):\n%s", diff)
	}
}

func TestSkippedLargeFilesAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "small.md"), "# Small\n")
	write(filepath.Join(dir, "big.md"), strings.Repeat("x", 200))
	write(filepath.Join(outside, "secret.md"), "# Secret\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("small.md", filepath.Join(dir, "alias.md")); err != nil {
		t.Fatal(err)
	}
	root, err := DirRoot("", dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := mustNew(t, []Root{root}, Options{MaxFileBytes: 100})
	var got []string
	for _, f := range reg.Files() {
		got = append(got, f.Filename+":"+f.Title)
	}
	if diff := cmp.Diff([]string{"alias.md:Small", "small.md:Small"}, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, s := range reg.Skipped() {
		if s.Root != dir {
			t.Errorf("skipped root label %q, want %q", s.Root, dir)
		}
		skipped = append(skipped, s.Path+":"+strings.SplitN(s.Reason, ":", 2)[0])
	}
	if diff := cmp.Diff([]string{"big.md:larger than MaxFileBytes", "escape.md:unreadable"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestBuildErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := DirRoot("x", filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrInvalidRoot) {
		t.Errorf("DirRoot(missing) = %v, want INVALID_ROOT", err)
	}
	if _, err := DirRoot("x", ""); !errors.Is(err, ErrInvalidRoot) {
		t.Errorf("DirRoot(\"\") = %v, want INVALID_ROOT", err)
	}
	if _, err := New(ctx, []Root{{Label: "nil"}}, Options{}); !errors.Is(err, ErrInvalidRoot) {
		t.Errorf("New(nil FS) = %v, want INVALID_ROOT", err)
	}
	if _, err := New(ctx, nil, Options{Include: []string{"[a-"}}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("New(bad pattern) = %v, want INVALID_ARGUMENT", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(canceled, mapRoots(seedTree, seedOrder), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("New(canceled) = %v, want context.Canceled", err)
	}
	reg, err := New(ctx, nil, Options{})
	if err != nil || reg.Len() != 0 {
		t.Fatalf("New(no roots) = %v, %v; want an empty registry", reg, err)
	}
	if _, err := reg.File("f1"); !errors.Is(err, ErrFileIDNotFound) || !strings.Contains(err.Error(), "registry is empty") {
		t.Errorf("File on empty registry = %v", err)
	}
}

func TestParseID(t *testing.T) {
	for id, want := range map[string]int{"f1": 1, "f7": 7, "f10": 10, "f999999999999": 999999999999} {
		got, err := ParseID(id)
		if got != want || err != nil {
			t.Errorf("ParseID(%q) = %d, %v; want %d", id, got, err, want)
		}
		if FormatID(got) != id {
			t.Errorf("FormatID(%d) = %q, want %q", got, FormatID(got), id)
		}
	}
	for _, id := range []string{
		"", "f", "f0", "f01", "F1", "1", "f-1", "f1 ", " f1", "f1a", "README.md", "f1234567890123",
		"f١", // Arabic-Indic digit one
	} {
		got, err := ParseID(id)
		var fe *agentfiles.Error
		if got != 0 || !errors.As(err, &fe) || fe.Code != CodeInvalidFileID {
			t.Errorf("ParseID(%q) = %d, %v; want 0 and INVALID_FILE_ID", id, got, err)
			continue
		}
		if !strings.Contains(fe.Message, "list_documentation_files") || fe.Arg != id {
			t.Errorf("ParseID(%q) error %q lacks the hint or the argument", id, err)
		}
	}
}

func TestLookupErrors(t *testing.T) {
	reg := mustNew(t, mapRoots(seedTree, seedOrder), Options{})
	for _, tt := range []struct {
		id       string
		sentinel error
	}{
		{"f8", ErrFileIDNotFound},
		{"f999999", ErrFileIDNotFound},
		{"f0", ErrInvalidFileID},
		{"guide.md", ErrInvalidFileID},
	} {
		_, err := reg.File(tt.id)
		if !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), "list_documentation_files") {
			t.Errorf("File(%q) = %v, want %v with a hint", tt.id, err, tt.sentinel)
		}
		if _, err := reg.TableOfContents(tt.id, TOCOptions{}); !errors.Is(err, tt.sentinel) {
			t.Errorf("TableOfContents(%q) = %v", tt.id, err)
		}
		if _, err := reg.ReadSections(tt.id, []string{"1"}, ReadOptions{}); !errors.Is(err, tt.sentinel) {
			t.Errorf("ReadSections(%q) = %v", tt.id, err)
		}
		if _, err := reg.Search(context.Background(), SearchRequest{Query: "x", FileID: tt.id}); !errors.Is(err, tt.sentinel) {
			t.Errorf("Search(%q) = %v", tt.id, err)
		}
	}
	_, err := reg.File("f8")
	if !strings.Contains(err.Error(), "f1 to f7") {
		t.Errorf("FILE_ID_NOT_FOUND should name the valid range: %v", err)
	}
}

func TestListPaging(t *testing.T) {
	reg := mustNew(t, mapRoots(seedTree, seedOrder), Options{})
	var ids []string
	cursor := ""
	for page := 0; ; page++ {
		l, err := reg.List(ListOptions{Cursor: cursor, MaxFiles: 3})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 7 {
			t.Fatalf("total %d", l.Total)
		}
		for _, f := range l.Files {
			ids = append(ids, f.FileID)
		}
		if !l.Truncated {
			if l.NextCursor != "" || l.Note != "" {
				t.Errorf("last page: %+v", l)
			}
			break
		}
		if !strings.Contains(l.Note, fmt.Sprintf("cursor %q", l.NextCursor)) {
			t.Errorf("note %q does not say how to continue", l.Note)
		}
		cursor = l.NextCursor
	}
	if diff := cmp.Diff([]string{"f1", "f2", "f3", "f4", "f5", "f6", "f7"}, ids); diff != "" {
		t.Errorf("paged IDs (-want +got):\n%s", diff)
	}
	clamped, err := reg.List(ListOptions{MaxFiles: MaxListFiles + 1})
	if err != nil || len(clamped.Files) != 7 || !strings.Contains(clamped.Note, "clamped") {
		t.Errorf("clamped listing: %+v, %v", clamped, err)
	}
	for _, c := range []string{"f8", "f0", "3", "x"} {
		if _, err := reg.List(ListOptions{Cursor: c}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("cursor %q: %v, want INVALID_ARGUMENT", c, err)
		}
	}
}

func TestTitles(t *testing.T) {
	tests := []struct {
		name, body, title, description string
	}{
		{"fm.md", "---\ntitle: \"Quoted: yes\"\ndescription: >\n  folded\n  text\n---\n# H1\n", "Quoted: yes", "folded text"},
		{"fm-no-title.md", "---\ndescription: d\n---\n# From H1\n", "From H1", "d"},
		{"bad-yaml.md", "---\ntitle: [unclosed\n---\n# Fallback\n", "Fallback", ""},
		{"h1-markup.md", "# The *quick* `fox` [jumps](http://x) <b>over</b>\n", "The quick fox jumps over", ""},
		{"setext.md", "Intro para\n\nSetext Title\n============\n", "Setext Title", ""},
		{"h2-then-h1.md", "## Two\n\n# One\n", "One", ""},
		{"fenced-first.md", "```sh\n# not a title\n```\n\n# Real title\n", "Real title", ""},
		{"list-fence.md", "- item\n\n  ```\n  # not a title\n  ```\n", "list-fence.md", ""},
		{"indented.md", "Para.\n\n    # code\n\nText\n", "indented.md", ""},
		{"no-heading.md", "just text = 1\n", "no-heading.md", ""},
		{"bom.md", "\xef\xbb\xbf---\ntitle: BOM\n---\nx\n", "BOM", ""},
		{"unclosed-fm.md", "---\ntitle: x\n# Heading\n", "Heading", ""},
		{"empty.md", "", "empty.md", ""},
		{"hash-only.md", "#\n", "hash-only.md", ""},
		{"equals-para.md", "a\n= b\n", "equals-para.md", ""},
	}
	m := fstest.MapFS{}
	for _, tt := range tests {
		m[tt.name] = &fstest.MapFile{Data: []byte(tt.body)}
	}
	reg := mustNew(t, []Root{{Label: "r", FS: m}}, Options{})
	got := map[string][2]string{}
	for _, f := range reg.Files() {
		got[f.Filename] = [2]string{f.Title, f.Description}
	}
	for _, tt := range tests {
		if g := got[tt.name]; g != [2]string{tt.title, tt.description} {
			t.Errorf("%s: title, description = %q, want %q, %q", tt.name, g, tt.title, tt.description)
		}
	}
}

// TestTitleShortcutAgreesWithFullParse checks the cheap first-H1 path against the outline.
func TestTitleShortcutAgreesWithFullParse(t *testing.T) {
	for _, body := range titleSeeds {
		o := buildOutline([]byte(body), 0)
		want := ""
		if o.firstH1 >= 0 {
			want = o.headings[o.firstH1].title
		}
		title, found, done := firstH1Title([]byte(body))
		if done && title != want || done && found != (o.firstH1 >= 0) {
			t.Errorf("%q: shortcut says %q (found %v), full parse %q", body, title, found, want)
		}
	}
}

var titleSeeds = []string{
	"# A\n", "x\n===\n", "  # A\n", "    # code\n# B\n", "```\n# x\n```\n# y\n", "> # quoted\n# real\n",
	"- # in list\n", "a\n= b\n===\n", "<div>\n# html\n</div>\n\n# after\n", "#no-space\n# yes\n", "#\tTab\n",
	"===\n", "para\n    ===\n", "[ref]: /url\n===\n", "- a\n# b\n", "## two\n=\n", "~~~\n# a\n",
}

func TestRebuildSeesChanges(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("# B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := DirRoot("docs", dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := mustNew(t, []Root{root}, Options{})
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if reg.Len() != 1 {
		t.Fatalf("registry changed after build: %d files", reg.Len())
	}
	next, err := reg.Rebuild(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range next.Files() {
		got = append(got, f.FileID+"="+f.Filename)
	}
	if diff := cmp.Diff([]string{"f1=a.md", "f2=b.md"}, got); diff != "" {
		t.Errorf("rebuilt (-want +got):\n%s", diff)
	}
	if f, _ := reg.File("f1"); f.Filename != "b.md" {
		t.Errorf("old registry changed: f1 = %s", f.Filename)
	}
}

// TestConcurrentQueries hammers one registry from many goroutines; run with -race.
func TestConcurrentQueries(t *testing.T) {
	reg := mustNew(t, corpusRoots(t), Options{})
	ctx := context.Background()
	want, err := reg.Search(ctx, SearchRequest{Query: "the", CaseInsensitive: true, MaxMatches: 200})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 32 {
		wg.Go(func() {
			id := FormatID(g%reg.Len() + 1)
			if _, err := reg.TableOfContents(id, TOCOptions{MaxDepth: 6}); err != nil {
				errs <- err
				return
			}
			if _, err := reg.ReadSections(id, []string{"1", "0", "1/1"}, ReadOptions{}); err != nil && !errors.Is(err, ErrSectionNotFound) {
				errs <- err
				return
			}
			got, err := reg.Search(ctx, SearchRequest{Query: "the", CaseInsensitive: true, MaxMatches: 200})
			if err != nil {
				errs <- err
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				errs <- fmt.Errorf("concurrent search differs:\n%s", diff)
			}
			if g%8 == 0 {
				if err := reg.Warm(ctx); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestHumanSize(t *testing.T) {
	for _, tt := range []struct {
		in   int64
		want string
	}{{0, "0b"}, {1023, "1023b"}, {1024, "1kb"}, {2560, "2.5kb"}, {1843, "1.8kb"}, {1 << 20, "1mb"}, {5 << 30, "5gb"}} {
		if got := HumanSize(tt.in); got != tt.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
