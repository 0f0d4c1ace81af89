package patch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/patch"
	"github.com/google/go-cmp/cmp"
)

func checkError(t *testing.T, err error, code agentfiles.Code, inMessage []string) {
	t.Helper()
	var e *agentfiles.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want an *agentfiles.Error with code %s", err, code)
	}
	if e.Code != code {
		t.Errorf("code = %s, want %s (%s)", e.Code, code, e.Message)
	}
	for _, s := range inMessage {
		if !strings.Contains(e.Message, s) {
			t.Errorf("message %q does not contain %q", e.Message, s)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       patch.Patch
	}{
		{"V4A every header", "*** Begin Patch\n*** Add File: src/new.go\n+package a\n+\n*** Delete File: old.txt\n*** Update File: b.go\n*** Move to: c.go\n@@ func f() {\n-\treturn 1\n+\treturn 2\n*** End of File\n*** End Patch\n",
			patch.Patch{Dialect: patch.DialectV4A, Files: []patch.FilePatch{
				{Op: patch.OpAdd, Path: "src/new.go", Content: "package a\n\n", Line: 2},
				{Op: patch.OpDelete, Path: "old.txt", Line: 5},
				{Op: patch.OpUpdate, Path: "b.go", MoveTo: "c.go", Line: 6, Chunks: []patch.Chunk{{Anchor: "func f() {", EndOfFile: true, PatchLine: 8,
					Lines: []patch.Line{{Kind: patch.Removed, Text: "\treturn 1"}, {Kind: patch.Added, Text: "\treturn 2"}}}}},
			}}},
		{"heredoc wrapper", "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n",
			patch.Patch{Dialect: patch.DialectV4A, Files: []patch.FilePatch{{Op: patch.OpDelete, Path: "x", Line: 3}}}},
		{"CRLF patch text", "*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n",
			patch.Patch{Dialect: patch.DialectV4A, Files: []patch.FilePatch{{Op: patch.OpUpdate, Path: "a", Line: 2, Chunks: []patch.Chunk{{PatchLine: 3,
				Lines: []patch.Line{{Kind: patch.Removed, Text: "x"}, {Kind: patch.Added, Text: "y"}}}}}}}},
		{"git diff: add, delete, rename, update", "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" +
			"diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
			"diff --git a/old.go b/new.go\nsimilarity index 100%\nrename from old.go\nrename to new.go\n" +
			"diff --git a/m.go b/m.go\nindex 1..2 100644\n--- a/m.go\n+++ b/m.go\n@@ -10,3 +10,3 @@ func f() {\n a\n-b\n+c\n d\n",
			patch.Patch{Dialect: patch.DialectUnified, Files: []patch.FilePatch{
				{Op: patch.OpAdd, Path: "new.txt", Content: "one\ntwo\n", Line: 1},
				{Op: patch.OpDelete, Path: "gone.txt", Line: 9, Chunks: []patch.Chunk{{OldStart: 1, PatchLine: 13, Lines: []patch.Line{{Kind: patch.Removed, Text: "bye"}}}}},
				{Op: patch.OpUpdate, Path: "old.go", MoveTo: "new.go", Line: 15},
				{Op: patch.OpUpdate, Path: "m.go", Line: 19, Chunks: []patch.Chunk{{OldStart: 10, PatchLine: 23, Lines: []patch.Line{
					{Kind: patch.Context, Text: "a"}, {Kind: patch.Removed, Text: "b"}, {Kind: patch.Added, Text: "c"}, {Kind: patch.Context, Text: "d"}}}}},
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patch.Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRefusals(t *testing.T) {
	tests := []struct{ name, text, inMessage string }{
		{"empty", "  \n", "empty"},
		{"not a patch", "hello\n", "neither a V4A patch"},
		{"cut off", "*** Begin Patch\n*** Update File: a\n@@\n-x\n", "patch line 4: the patch does not end with *** End Patch"},
		{"bad header", "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch", "patch line 2: expected a file header"},
		{"bad chunk line", "*** Begin Patch\n*** Update File: a\n@@\n-x\nnot prefixed\n*** End Patch", "patch line 5: every line of a chunk"},
		{"update without chunks", "*** Begin Patch\n*** Update File: a\n*** End Patch", "patch line 2: *** Update File: a has no @@ chunk"},
		{"empty chunk", "*** Begin Patch\n*** Update File: a\n@@ f\n@@ g\n-x\n*** End Patch", "patch line 3: this @@ chunk has no lines"},
		{"no changes", "*** Begin Patch\n*** End Patch", "the patch changes no file"},
		{"binary", "diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n--- a/x\n+++ b/x\n", "patch line 2: binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := patch.Parse(tt.text)
			checkError(t, err, patch.CodeInvalidPatch, []string{tt.inMessage})
		})
	}
}

func TestParseOperations(t *testing.T) {
	got, err := patch.ParseOperations([]patch.Operation{
		{Type: "create_file", Path: "a.md", Diff: "+# A\n+\n+text\n"},
		{Type: "update_file", Path: "b.md", Diff: "@@\n-old\n+new\n"},
		{Type: "delete_file", Path: "c.md"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := patch.Patch{Dialect: patch.DialectOperations, Files: []patch.FilePatch{
		{Op: patch.OpAdd, Path: "a.md", Content: "# A\n\ntext\n"},
		{Op: patch.OpUpdate, Path: "b.md", Chunks: []patch.Chunk{{PatchLine: 1, Lines: []patch.Line{{Kind: patch.Removed, Text: "old"}, {Kind: patch.Added, Text: "new"}}}}},
		{Op: patch.OpDelete, Path: "c.md"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = patch.ParseOperations([]patch.Operation{{Type: "update_file", Path: "b.md", Diff: "@@\n-old\n+new\n"}, {Type: "create_file", Path: "x", Diff: "oops"}})
	checkError(t, err, patch.CodeInvalidPatch, []string{"operations[1].diff line 1"})
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{"src/a.go": "/src/a.go", "/src/a.go": "/src/a.go", "./a": "/a", " a ": "/a", "../x": "/../x"} {
		if got := patch.CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}
