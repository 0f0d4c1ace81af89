package consult

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// symlink makes link -> target, failing the test on error.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestIgnoreAppliesToResolvedPath: a name that is not on the ignore list but links to one that
// is (env-link.md -> .env), or a path through a link to an ignored directory (gitlink -> .git),
// is ignored as the target is, whether named explicitly or matched by a pattern.
func TestIgnoreAppliesToResolvedPath(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{
		"d/ok.md":          "# ok\n",
		"d/.env":           "API_KEY=sk-LEAK\n",
		"d/.git/config.md": "[remote]\n",
		"d/.git/HEAD":      "ref\n",
		"other/.venv/x.md": "venv\n",
	})
	d := filepath.Join(root, "d")
	symlink(t, ".env", filepath.Join(d, "env-link.md"))                                    // relative target
	symlink(t, filepath.Join(d, ".git"), filepath.Join(d, "gitlink"))                      // absolute target
	symlink(t, "../other/.venv/x.md", filepath.Join(d, "venv-link.md"))                    // through a directory
	symlink(t, filepath.Join(root, "other", ".venv"), filepath.Join(root, "other", "env")) // a link named like nothing ignored
	tests := []struct {
		name    string
		entries []string
		want    []string
		errs    []entryErr
	}{
		{"explicit link to .env", []string{"$R/d/env-link.md"}, nil,
			[]entryErr{{Entry: "$R/d/env-link.md", Code: "IGNORED"}}},
		{"explicit file through a link to .git", []string{"$R/d/gitlink/config.md"}, nil,
			[]entryErr{{Entry: "$R/d/gitlink/config.md", Code: "IGNORED"}}},
		{"explicit link into .venv", []string{"$R/d/venv-link.md"}, nil,
			[]entryErr{{Entry: "$R/d/venv-link.md", Code: "IGNORED"}}},
		{"pattern skips links to ignored files", []string{"$R/d/*.md"}, []string{"$R/d/ok.md"}, nil},
		{"pattern in a linked ignored directory", []string{"$R/d/gitlink/*.md"}, nil,
			[]entryErr{{Entry: "$R/d/gitlink/*.md", Code: "IGNORED"}}},
		{"pattern in a directory linked under another name", []string{"$R/other/env/*.md"}, nil,
			[]entryErr{{Entry: "$R/other/env/*.md", Code: "IGNORED"}}},
		{"only links, all ignored", []string{"$R/d/*-link.md"}, nil,
			[]entryErr{{Entry: "$R/d/*-link.md", Code: "NOT_FOUND"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var entries []string
			for _, e := range tc.entries {
				entries = append(entries, strings.ReplaceAll(e, "$R", root))
			}
			files, errs := Expand(entries)
			if diff := cmp.Diff(tc.want, rel(files, root)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, simplify(errs, root)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	// The explicit case says it was the link's target that is ignored.
	_, errs := Expand([]string{filepath.Join(d, "env-link.md")})
	if len(errs) != 1 || !strings.Contains(errs[0].Err.Message, "symbolic link") || !strings.Contains(errs[0].Err.Message, `".env"`) {
		t.Errorf("error = %v, want one naming the link and the item .env", errs)
	}
	// A pattern that found nothing says why.
	_, errs = Expand([]string{filepath.Join(d, "*-link.md")})
	if len(errs) != 1 || !strings.Contains(errs[0].Err.Message, "2 matching names are on the ignore list or link to a path on it") {
		t.Errorf("error = %v", errs)
	}
	// Nothing of the ignored files reaches a prompt.
	files, errs := Expand([]string{filepath.Join(d, "*.md"), filepath.Join(d, "env-link.md"), filepath.Join(d, "gitlink/config.md")})
	b, err := NewFormatter(FormatterOptions{}).Format(context.Background(), files, errs)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Text, "sk-LEAK") || strings.Contains(b.Text, "[remote]") {
		t.Errorf("an ignored file reached the prompt:\n%s", b.Text)
	}
}

// rootsTree is a root with files and links, and a directory outside it with a secret.
//
//	$R/root/inside.txt, sub/a.txt
//	$R/root/link.txt -> $R/outside/secret.txt      a file link leading out
//	$R/root/linkdir  -> $R/outside                 a directory link leading out
//	$R/root/dangling.txt -> $R/outside/missing.txt
//	$R/root/innerlink.txt -> sub/a.txt             a link that stays inside
//	$R/rootlink -> $R/root                         the root under another name
//	$R/root2/x.txt                                 shares the root's name as a prefix
func rootsTree(t *testing.T) string {
	t.Helper()
	base := testfiles.Tree(t, map[string]string{
		"root/inside.txt":    "inside\n",
		"root/sub/a.txt":     "a\n",
		"outside/secret.txt": "TOP SECRET\n",
		"root2/x.txt":        "x\n",
	})
	// Resolve the temp dir itself (a link on some systems), so that messages and results compare.
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(base, "outside/secret.txt"), filepath.Join(base, "root/link.txt"))
	symlink(t, filepath.Join(base, "outside"), filepath.Join(base, "root/linkdir"))
	symlink(t, filepath.Join(base, "outside/missing.txt"), filepath.Join(base, "root/dangling.txt"))
	symlink(t, "sub/a.txt", filepath.Join(base, "root/innerlink.txt"))
	symlink(t, filepath.Join(base, "root"), filepath.Join(base, "rootlink"))
	return base
}

func TestRootsConfineExpansion(t *testing.T) {
	base := rootsTree(t)
	x, err := NewExpander(ExpanderOptions{Roots: []string{filepath.Join(base, "root") + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(base, "root")}, x.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
	tests := []struct {
		name  string
		entry string
		want  []string
		errs  []entryErr
	}{
		{"file inside", "$R/root/inside.txt", []string{"$R/root/inside.txt"}, nil},
		{"link that stays inside", "$R/root/innerlink.txt", []string{"$R/root/innerlink.txt"}, nil},
		{"file outside", "$R/outside/secret.txt", nil, []entryErr{{Entry: "$R/outside/secret.txt", Code: "OUTSIDE_ROOTS"}}},
		{"/etc/shadow", "/etc/shadow", nil, []entryErr{{Entry: "/etc/shadow", Code: "OUTSIDE_ROOTS"}}},
		{"/etc/passwd pattern", "/etc/*.conf", nil, []entryErr{{Entry: "/etc/*.conf", Code: "OUTSIDE_ROOTS"}}},
		{"file link leading out", "$R/root/link.txt", nil, []entryErr{{Entry: "$R/root/link.txt", Code: "OUTSIDE_ROOTS"}}},
		{"through a directory link", "$R/root/linkdir/secret.txt", nil, []entryErr{{Entry: "$R/root/linkdir/secret.txt", Code: "OUTSIDE_ROOTS"}}},
		{"missing file behind a link", "$R/root/linkdir/nothere.txt", nil, []entryErr{{Entry: "$R/root/linkdir/nothere.txt", Code: "OUTSIDE_ROOTS"}}},
		{"dangling link leading out", "$R/root/dangling.txt", nil, []entryErr{{Entry: "$R/root/dangling.txt", Code: "OUTSIDE_ROOTS"}}},
		{"missing file outside", "/nonexistent-agentfiles-dir/x.txt", nil, []entryErr{{Entry: "/nonexistent-agentfiles-dir/x.txt", Code: "OUTSIDE_ROOTS"}}},
		{"missing file inside", "$R/root/nothere.txt", nil, []entryErr{{Entry: "$R/root/nothere.txt", Code: "NOT_FOUND"}}},
		{"pattern in a directory link", "$R/root/linkdir/*.txt", nil, []entryErr{{Entry: "$R/root/linkdir/*.txt", Code: "OUTSIDE_ROOTS"}}},
		{"pattern in a missing directory behind a link", "$R/root/linkdir/no/*.txt", nil, []entryErr{{Entry: "$R/root/linkdir/no/*.txt", Code: "OUTSIDE_ROOTS"}}},
		{"pattern: links leading out are reported", "$R/root/*.txt", []string{"$R/root/innerlink.txt", "$R/root/inside.txt"}, []entryErr{
			{Entry: "$R/root/*.txt", Path: "$R/root/dangling.txt", Code: "NOT_REGULAR"},
			{Entry: "$R/root/*.txt", Path: "$R/root/link.txt", Code: "OUTSIDE_ROOTS"},
		}},
		{".. out of the root", "$R/root/../outside/secret.txt", nil, []entryErr{{Entry: "$R/root/../outside/secret.txt", Code: "OUTSIDE_ROOTS"}}},
		{".. twice", "$R/root/sub/../../outside/secret.txt", nil, []entryErr{{Entry: "$R/root/sub/../../outside/secret.txt", Code: "OUTSIDE_ROOTS"}}},
		{".. in a pattern", "$R/root/sub/../../outside/*.txt", nil, []entryErr{{Entry: "$R/root/sub/../../outside/*.txt", Code: "OUTSIDE_ROOTS"}}},
		// ".." is resolved on the path as written, so this names root/inside.txt, which is what is read.
		{".. after a directory link", "$R/root/linkdir/../inside.txt", []string{"$R/root/inside.txt"}, nil},
		{"the root under another name", "$R/rootlink/inside.txt", []string{"$R/rootlink/inside.txt"}, nil},
		{"a sibling sharing the root's name as a prefix", "$R/root2/x.txt", nil, []entryErr{{Entry: "$R/root2/x.txt", Code: "OUTSIDE_ROOTS"}}},
		{"the root itself", "$R/root", nil, []entryErr{{Entry: "$R/root", Code: "IS_DIRECTORY"}}},
		{"the parent of the root", "$R", nil, []entryErr{{Entry: "$R", Code: "OUTSIDE_ROOTS"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, errs := x.Expand([]string{strings.ReplaceAll(tc.entry, "$R", base)})
			if diff := cmp.Diff(tc.want, rel(files, base)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, simplify(errs, base)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, e := range errs {
				if e.Err.Code != CodeOutsideRoots {
					continue
				}
				if !strings.Contains(e.Err.Message, filepath.Join(base, "root")) {
					t.Errorf("message does not name the allowed root: %s", e.Err.Message)
				}
				if strings.Contains(e.Err.Message, "outside/") || strings.Contains(e.Err.Message, "secret") {
					t.Errorf("message says where a link points: %s", e.Err.Message)
				}
				if !errors.Is(e, ErrOutsideRoots) || agentfiles.ErrorCode(e).Kind() != agentfiles.KindPermission {
					t.Errorf("%v: want OUTSIDE_ROOTS of kind permission", e)
				}
			}
		})
	}
	_, errs := x.Expand([]string{filepath.Join(base, "root/link.txt")})
	if len(errs) != 1 || !strings.Contains(errs[0].Err.Message, "symbolic link") {
		t.Errorf("a link leading out: %v, want a message saying a link led out", errs)
	}
	if !slices.Contains(Codes(), CodeOutsideRoots) {
		t.Error("Codes() lacks OUTSIDE_ROOTS")
	}
}

// TestRootsAreNotAPrefixMatch covers a root given through a link, several roots, and "/".
func TestRootsMany(t *testing.T) {
	base := rootsTree(t)
	x, err := NewExpander(ExpanderOptions{Roots: []string{filepath.Join(base, "rootlink"), filepath.Join(base, "root2")}})
	if err != nil {
		t.Fatal(err)
	}
	files, errs := x.Expand([]string{
		filepath.Join(base, "root/inside.txt"), filepath.Join(base, "rootlink/sub/*.txt"),
		filepath.Join(base, "root2/x.txt"), filepath.Join(base, "outside/secret.txt"),
	})
	if diff := cmp.Diff([]string{"$R/root/inside.txt", "$R/root2/x.txt", "$R/rootlink/sub/a.txt"}, rel(files, base)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || errs[0].Err.Code != CodeOutsideRoots ||
		!strings.Contains(errs[0].Err.Message, filepath.Join(base, "rootlink")+", "+filepath.Join(base, "root2")) {
		t.Errorf("errors = %v, want one OUTSIDE_ROOTS naming both roots as given", errs)
	}

	// A link to a FIFO outside: reported as outside, not as what it is.
	if err := syscallMkfifo(filepath.Join(base, "outside/pipe")); err != nil {
		t.Skip("mkfifo:", err)
	}
	symlink(t, filepath.Join(base, "outside/pipe"), filepath.Join(base, "root/p.fifo"))
	_, errs = x.Expand([]string{filepath.Join(base, "root/*.fifo"), filepath.Join(base, "root/p.fifo")})
	if diff := cmp.Diff([]entryErr{
		{Entry: "$R/root/*.fifo", Path: "$R/root/p.fifo", Code: "OUTSIDE_ROOTS"},
		{Entry: "$R/root/p.fifo", Code: "OUTSIDE_ROOTS"},
	}, simplify(errs, base)); diff != "" {
		t.Errorf("links to a FIFO outside (-want +got):\n%s", diff)
	}

	all, err := NewExpander(ExpanderOptions{Roots: []string{"/"}})
	if err != nil {
		t.Fatal(err)
	}
	if files, errs := all.Expand([]string{filepath.Join(base, "root/link.txt")}); len(files) != 1 || errs != nil {
		t.Errorf("root / : files %v, errors %v", files, errs)
	}
	// Without roots the library reads what the process can, as before.
	if files, errs := Expand([]string{filepath.Join(base, "outside/secret.txt")}); len(files) != 1 || errs != nil {
		t.Errorf("no roots: files %v, errors %v", files, errs)
	}
	if NewConsultant(ConsultantOptions{}).Roots() != nil {
		t.Error("the default Consultant has roots")
	}
}

func TestRootsValidated(t *testing.T) {
	base := rootsTree(t)
	for _, root := range []string{"relative/dir", "", filepath.Join(base, "nothere"), filepath.Join(base, "root/inside.txt"), filepath.Join(base, "root/dangling.txt")} {
		_, err := NewExpander(ExpanderOptions{Roots: []string{root}})
		if !errors.Is(err, agentfiles.ErrInvalidArgument) {
			t.Errorf("root %q: err = %v, want INVALID_ARGUMENT", root, err)
		}
	}
}

// TestConsultantRoots: a Consultant confined by its Expander sends nothing from outside the
// roots and writes no output file outside them.
func TestConsultantRoots(t *testing.T) {
	base := rootsTree(t)
	root := filepath.Join(base, "root")
	x, err := NewExpander(ExpanderOptions{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	c := NewConsultant(ConsultantOptions{Expander: x, AllowOutputFiles: true})
	if diff := cmp.Diff([]string{root}, c.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
	m := &countingModel{}
	ctx := context.Background()

	_, err = c.Consult(ctx, Request{Files: []string{"/etc/shadow", filepath.Join(root, "link.txt")}, Query: "q", Model: m})
	if !errors.Is(err, agentfiles.ErrNotFound) || !strings.Contains(err.Error(), "OUTSIDE_ROOTS") {
		t.Errorf("only outside files: err = %v, want NOT_FOUND listing OUTSIDE_ROOTS", err)
	}

	resp, err := c.Consult(ctx, Request{Files: []string{filepath.Join(root, "*.txt"), filepath.Join(base, "outside/*.txt")}, Query: "q", Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"$R/root/innerlink.txt", "$R/root/inside.txt"}, rel(includedPaths(resp.Files), base)); diff != "" {
		t.Errorf("files sent (-want +got):\n%s", diff)
	}

	for _, out := range []string{filepath.Join(base, "outside/answer.md"), filepath.Join(root, "linkdir/answer.md"), filepath.Join(root, "../outside/answer.md")} {
		before := m.calls.Load()
		_, err := c.Consult(ctx, Request{Files: []string{filepath.Join(root, "inside.txt")}, Query: "q", Model: m, OutputFile: out})
		if !errors.Is(err, ErrOutsideRoots) {
			t.Errorf("output %s: err = %v, want OUTSIDE_ROOTS", out, err)
		}
		if m.calls.Load() != before {
			t.Errorf("output %s: the model was called before the output file was refused", out)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "outside/answer.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an answer was written outside the roots: %v", err)
	}
	resp, err = c.Consult(ctx, Request{Files: []string{filepath.Join(root, "inside.txt")}, Query: "q", Model: m, OutputFile: filepath.Join(root, "sub/answer.md")})
	if err != nil || resp.OutputFile != filepath.Join(root, "sub/answer.md") {
		t.Errorf("output inside: %v, %+v", err, resp)
	}
}
