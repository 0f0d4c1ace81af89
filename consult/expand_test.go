package consult

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/internal/testfiles"
	"github.com/google/go-cmp/cmp"
)

// seedTree is the project layout of the seed document's examples, under a temp root.
var seedTree = map[string]string{
	"project/src/app.py":            "print('app')\n",
	"project/src/util.py":           "def f(): pass\n",
	"project/src/.hidden.py":        "secret = 1\n",
	"project/src/notes.txt":         "notes\n",
	"project/src/pkg/":              "",
	"project/lib/index.js":          "module.exports = 1\n",
	"project/lib/util.py":           "x = 1\n",
	"project/tests/app_test.py":     "def test(): pass\n",
	"project/tests/conftest.py":     "",
	"project/README.md":             "# Project\n",
	"project/docs/guide.md":         "# Guide\n",
	"project/docs/api.md":           "# API\n",
	"project/main_test.go":          "package main\n",
	"project/main.go":               "package main\n",
	"project/a.py":                  "a\n",
	"project/b.py":                  "b\n",
	"project/c.py":                  "c\n",
	"project/data.json":             "{}\n",
	"project/.env":                  "KEY=1\n",
	"project/secrets.yaml":          "k: v\n",
	"project/node_modules/x/i.js":   "",
	"project/__pycache__/a.pyc":     "",
	"other_project/main.py":         "main\n",
	"shared/utils.py":               "utils\n",
	"project/src/__pycache__/x.pyc": "",
}

func TestExpandTable(t *testing.T) {
	root := testfiles.Tree(t, seedTree)
	R := func(s string) string { return strings.ReplaceAll(s, "$R", root) }
	tests := []struct {
		name    string
		entries []string
		want    []string
		errs    []entryErr
	}{
		// The seed's valid examples.
		{"seed simple", []string{"$R/project/src/*.py"}, []string{"$R/project/src/app.py", "$R/project/src/util.py"}, nil},
		{"seed complex", []string{
			"$R/project/src/*.py", "$R/project/lib/*.py", "$R/project/tests/*_test.py",
			"$R/project/README.md", "$R/project/docs/*.md", "$R/shared/utils.py",
		}, []string{
			"$R/project/README.md", "$R/project/docs/api.md", "$R/project/docs/guide.md",
			"$R/project/lib/util.py", "$R/project/src/app.py", "$R/project/src/util.py",
			"$R/project/tests/app_test.py", "$R/shared/utils.py",
		}, nil},
		{"seed before/after", []string{"$R/project/src/*.py", "$R/project/lib/*.js", "$R/project/README.md", "$R/other_project/main.py"},
			[]string{"$R/other_project/main.py", "$R/project/README.md", "$R/project/lib/index.js", "$R/project/src/app.py", "$R/project/src/util.py"}, nil},
		// The seed's invalid examples: each rejected with its own error, the valid one kept.
		{"seed invalid", []string{"$R/**/*.py", "$R/project/*", "src/*.py", "$R/*/project/*.py", "$R/project/a.py"},
			[]string{"$R/project/a.py"},
			[]entryErr{
				{Entry: "$R/**/*.py", Code: CodeRecursiveWildcard.String()},
				{Entry: "$R/project/*", Code: CodeMissingExtension.String()},
				{Entry: "src/*.py", Code: CodeNotAbsolute.String()},
				{Entry: "$R/*/project/*.py", Code: CodeWildcardInDirectory.String()},
			}},
		// The extra cases.
		{"data.* rejected", []string{"$R/project/data.*"}, nil, []entryErr{{Entry: "$R/project/data.*", Code: CodeMissingExtension.String()}}},
		{"/path/* rejected", []string{"$R/project/*"}, nil, []entryErr{{Entry: "$R/project/*", Code: CodeMissingExtension.String()}}},
		{"*_test.go accepted", []string{"$R/project/*_test.go"}, []string{"$R/project/main_test.go"}, nil},
		{"[ab]*.py accepted", []string{"$R/project/[ab]*.py"}, []string{"$R/project/a.py", "$R/project/b.py"}, nil},
		{"[!ab].py", []string{"$R/project/[!ab].py"}, []string{"$R/project/c.py"}, nil},
		{"?.py", []string{"$R/project/?.py"}, []string{"$R/project/a.py", "$R/project/b.py", "$R/project/c.py"}, nil},
		{"hidden excluded from *.py", []string{"$R/project/src/*.py"}, []string{"$R/project/src/app.py", "$R/project/src/util.py"}, nil},
		{"hidden matched by .*.py", []string{"$R/project/src/.*.py"}, []string{"$R/project/src/.hidden.py"}, nil},
		{"hidden explicit", []string{"$R/project/src/.hidden.py"}, []string{"$R/project/src/.hidden.py"}, nil},
		{"duplicates collapse", []string{"$R/project/a.py", "$R/project/*.py", "$R/project/./a.py", "$R/project/src/../a.py"},
			[]string{"$R/project/a.py", "$R/project/b.py", "$R/project/c.py"}, nil},
		{"directory suggests pattern", []string{"$R/project/src", "$R/project/src/"}, nil,
			[]entryErr{{Entry: "$R/project/src", Code: agentfiles.CodeIsDirectory.String()}, {Entry: "$R/project/src/", Code: agentfiles.CodeIsDirectory.String()}}},
		{"missing file", []string{"$R/project/nope.py"}, nil, []entryErr{{Entry: "$R/project/nope.py", Code: agentfiles.CodeNotFound.String()}}},
		{"missing dir for pattern", []string{"$R/nope/*.py"}, nil, []entryErr{{Entry: "$R/nope/*.py", Code: agentfiles.CodeNotFound.String()}}},
		{"pattern dir is a file", []string{"$R/project/a.py/*.py"}, nil, []entryErr{{Entry: "$R/project/a.py/*.py", Code: agentfiles.CodeNotFound.String()}}},
		{"no match", []string{"$R/project/*.rs"}, nil, []entryErr{{Entry: "$R/project/*.rs", Code: agentfiles.CodeNotFound.String()}}},
		{"ignored explicit .env", []string{"$R/project/.env"}, nil, []entryErr{{Entry: "$R/project/.env", Code: CodeIgnored.String()}}},
		{"ignored explicit secrets.*", []string{"$R/project/secrets.yaml"}, nil, []entryErr{{Entry: "$R/project/secrets.yaml", Code: CodeIgnored.String()}}},
		{"ignored directory in path", []string{"$R/project/node_modules/x/i.js", "$R/project/__pycache__/*.pyc"}, nil,
			[]entryErr{{Entry: "$R/project/node_modules/x/i.js", Code: CodeIgnored.String()}, {Entry: "$R/project/__pycache__/*.pyc", Code: CodeIgnored.String()}}},
		{"ignored names drop out of patterns", []string{"$R/project/*.yaml"}, nil, []entryErr{{Entry: "$R/project/*.yaml", Code: agentfiles.CodeNotFound.String()}}},
		{"empty", []string{""}, nil, []entryErr{{Entry: "", Code: CodeInvalidEntry.String()}}},
		{"home tilde", []string{"~/x.py"}, nil, []entryErr{{Entry: "~/x.py", Code: CodeNotAbsolute.String()}}},
		{"no extension", []string{"$R/project/*py", "$R/project/*.", "$R/project/*.p?", "$R/project/*.[ch]"}, nil,
			[]entryErr{
				{Entry: "$R/project/*py", Code: CodeMissingExtension.String()}, {Entry: "$R/project/*.", Code: CodeMissingExtension.String()},
				{Entry: "$R/project/*.p?", Code: CodeMissingExtension.String()}, {Entry: "$R/project/*.[ch]", Code: CodeMissingExtension.String()},
			}},
		{"empty range", []string{"$R/project/[z-a]*.py"}, nil, []entryErr{{Entry: "$R/project/[z-a]*.py", Code: CodeInvalidEntry.String()}}},
		{"unclosed bracket is literal", []string{"$R/project/[*.py"}, nil, []entryErr{{Entry: "$R/project/[*.py", Code: agentfiles.CodeNotFound.String()}}},
		{"wildcard after trailing slash", []string{"$R/project/*.py/"}, nil, []entryErr{{Entry: "$R/project/*.py/", Code: CodeWildcardInDirectory.String()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var entries []string
			for _, e := range tt.entries {
				entries = append(entries, R(e))
			}
			files, errs := Expand(entries)
			if diff := cmp.Diff(tt.want, rel(files, root)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, simplify(errs, root)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

func TestExpandMessagesNameTheRule(t *testing.T) {
	root := testfiles.Tree(t, seedTree)
	_, errs := Expand([]string{
		root + "/project/src", "src/*.py", root + "/project/data.*", root + "/**/*.py", root + "/*/x/*.py",
		root + "/project/src/*.txt2", root + "/project/.env",
	})
	want := []string{
		"/project/src/*.py", // IS_DIRECTORY suggests a pattern with an extension found there
		"absolute",
		"literal file extension",
		"**",
		"only in the file name",
		"matched no files",
		"ignore list",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, e := range errs {
		if !strings.Contains(e.Err.Message, want[i]) {
			t.Errorf("error %d %q does not mention %q", i, e.Err.Message, want[i])
		}
	}
}

func TestExpandSpecialFiles(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"d/real.py": "x", "d/sub.py/": ""})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(root+"/d/real.py", root+"/d/link.py"))
	must(os.Symlink(root+"/d/missing.py", root+"/d/dangling.py"))
	must(syscallMkfifo(root + "/d/pipe.py"))
	files, errs := Expand([]string{root + "/d/*.py", root + "/d/dangling.py", root + "/d/pipe.py"})
	if diff := cmp.Diff([]string{"$R/d/link.py", "$R/d/real.py"}, rel(files, root)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []entryErr{
		{Entry: "$R/d/*.py", Path: "$R/d/dangling.py", Code: CodeNotRegular.String()},
		{Entry: "$R/d/*.py", Path: "$R/d/pipe.py", Code: CodeNotRegular.String()},
		{Entry: "$R/d/dangling.py", Code: CodeNotRegular.String()},
		{Entry: "$R/d/pipe.py", Code: CodeNotRegular.String()},
	}
	got := simplify(errs, root)
	// Directory order is unspecified; sort the per-match errors of the pattern.
	if len(got) >= 2 && got[0].Path > got[1].Path {
		got[0], got[1] = got[1], got[0]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestExpandErrorClassification(t *testing.T) {
	// Running as root, permission errors cannot be produced on disk; the classifier is tested
	// directly with the error values the os package returns.
	perm := &os.PathError{Op: "open", Path: "/x", Err: os.ErrPermission}
	if got := statError("/x", perm).Code; got != agentfiles.CodePermissionDenied {
		t.Errorf("statError(permission) = %s", got)
	}
	if got := dirOpenError("/x", perm).Code; got != agentfiles.CodePermissionDenied {
		t.Errorf("dirOpenError(permission) = %s", got)
	}
	e := statError("/x", perm)
	if !errors.Is(e, agentfiles.ErrPermissionDenied) || errors.Is(e, agentfiles.ErrNotFound) {
		t.Errorf("errors.Is does not follow the code: %v", e)
	}
	if !errors.Is(e, os.ErrPermission) {
		t.Errorf("the cause is not kept for errors.Is: %v", e)
	}
}

func TestExpanderOptions(t *testing.T) {
	root := testfiles.Tree(t, map[string]string{"p/a.py": "", "p/b.py": "", "p/.env": "", "p/gen_x.py": ""})
	x, err := NewExpander(ExpanderOptions{Ignore: []string{"gen_*"}, NoDefaultIgnore: true, MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	files, errs := x.Expand([]string{root + "/p/*.py", root + "/p/.env", root + "/p/gen_x.py"})
	if diff := cmp.Diff([]string{"$R/p/.env", "$R/p/a.py"}, rel(files, root)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []entryErr{{Entry: "$R/p/gen_x.py", Code: CodeIgnored.String()}, {Code: CodeBudgetExceeded.String()}}
	if diff := cmp.Diff(want, simplify(errs, root)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if _, err := NewExpander(ExpanderOptions{Ignore: []string{"a/b"}}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("NewExpander(a/b) = %v, want INVALID_ARGUMENT", err)
	}
	if _, err := NewExpander(ExpanderOptions{Ignore: []string{"{a"}}); !errors.Is(err, agentfiles.ErrInvalidArgument) {
		t.Errorf("NewExpander({a) = %v, want INVALID_ARGUMENT", err)
	}
}

func TestExpandConcurrent(t *testing.T) {
	root := testfiles.Tree(t, seedTree)
	want, _ := Expand([]string{root + "/project/*.py", root + "/project/docs/*.md"})
	done := make(chan []string)
	for range 32 {
		go func() {
			got, _ := Expand([]string{root + "/project/*.py", root + "/project/docs/*.md"})
			done <- got
		}()
	}
	for range 32 {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Errorf("concurrent Expand differs (-want +got):\n%s", diff)
		}
	}
}
