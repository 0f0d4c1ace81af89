package patch_test

import (
	"context"
	"testing"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileio/patch"
	"github.com/google/go-cmp/cmp"
)

// applyOne parses text, which must change one file, and applies it to content.
func applyOne(t *testing.T, text, content string) (string, []patch.ChunkResult, error) {
	t.Helper()
	p, err := patch.Parse(text)
	if err != nil {
		return "", nil, err
	}
	if len(p.Files) != 1 {
		t.Fatalf("patch has %d files, want 1", len(p.Files))
	}
	return patch.ApplyUpdate(context.Background(), content, p.Files[0], nil)
}

func TestApplyUpdate(t *testing.T) {
	v4a := func(body string) string {
		return "*** Begin Patch\n*** Update File: a.txt\n" + body + "*** End Patch\n"
	}
	tests := []struct {
		name, patch, content, want string
		chunks                     []patch.ChunkResult
	}{
		{"exact", v4a("@@\n a\n-b\n+B\n c\n"), "a\nb\nc\n", "a\nB\nc\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"no @@ before the first chunk", v4a(" a\n-b\n+B\n"), "a\nb\nc\n", "a\nB\nc\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"CRLF stays CRLF, added lines too", v4a("@@\n a\n-b\n+B\n+B2\n c\n"), "a\r\nb\r\nc\r\n", "a\r\nB\r\nB2\r\nc\r\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"BOM stays", v4a("@@\n a\n-b\n+B\n"), "\uFEFFa\nb\n", "\uFEFFa\nB\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"no final newline kept away from the end", v4a("@@\n-a\n+A\n b\n"), "a\nb\nc", "A\nb\nc",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"no final newline kept at the end", v4a("@@\n b\n-c\n+C\n"), "a\nb\nc", "a\nb\nC",
			[]patch.ChunkResult{{Chunk: 1, Line: 2, Pass: patch.PassExact}}},
		{"trailing whitespace: context keeps the file's bytes", v4a("@@\n a\n-b\n+B\n"), "a  \nb\n", "a  \nB\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassTrailing}}},
		{"indentation: context keeps the file's indentation", v4a("@@\n func f() {\n-return 1\n+\treturn 2\n"), "\tfunc f() {\n\t\treturn 1\n", "\tfunc f() {\n\treturn 2\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassWhitespace}}},
		{"unicode punctuation", v4a("@@\n x := a – b // “q”\n-y\n+Y\n"), "x := a - b // \"q\"\ny\n", "x := a - b // \"q\"\nY\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassUnicode}}},
		{"anchor narrows the search", v4a("@@ func g() {\n-\treturn 1\n+\treturn 3\n"),
			"func f() {\n\treturn 1\n}\nfunc g() {\n\treturn 1\n}\n", "func f() {\n\treturn 1\n}\nfunc g() {\n\treturn 3\n}\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 5, Pass: patch.PassExact}}},
		{"anchor with only added lines inserts below it", v4a("@@ func g() {\n+\t// g\n"),
			"func f() {\n}\nfunc g() {\n}\n", "func f() {\n}\nfunc g() {\n\t// g\n}\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 4, Pass: patch.PassExact}}},
		{"end of file", v4a("@@\n x\n+end\n*** End of File\n"), "x\ny\nx\n", "x\ny\nx\nend\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 3, Pass: patch.PassExact}}},
		{"two chunks in order", v4a("@@\n-a\n+A\n@@\n-a\n+A2\n"), "a\nb\na\n", "A\nb\nA2\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}, {Chunk: 2, Line: 3, Pass: patch.PassExact}}},
		{"trailing empty context stands for the final newline", v4a("@@\n-c\n+C\n\n"), "a\nc\n", "a\nC\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 2, Pass: patch.PassExact}}},
		{"unified hint picks the nearest match", "--- a/a.txt\n+++ b/a.txt\n@@ -3,1 +3,1 @@\n-x\n+X\n", "x\ny\nx\ny\n", "x\ny\nX\ny\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 3, Pass: patch.PassExact}}},
		{"unified removes the final newline", "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb\n", "a\nb",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"unified adds a final newline", "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb", "a\nb\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
		{"unified insertion after a line", "--- a/a.txt\n+++ b/a.txt\n@@ -1,0 +2,1 @@\n+new\n", "a\nb\n", "a\nnew\nb\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 2, Pass: patch.PassExact}}},
		{"unified with a miscounted header", "--- a/a.txt\n+++ b/a.txt\n@@ -1,9 +1,9 @@\n a\n-b\n+B\n", "a\nb\n", "a\nB\n",
			[]patch.ChunkResult{{Chunk: 1, Line: 1, Pass: patch.PassExact}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, chunks, err := applyOne(t, tt.patch, tt.content)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.chunks, chunks); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyUpdateRefusals(t *testing.T) {
	tests := []struct {
		name, patch, content string
		code                 agentfiles.Code
		inMessage            []string
	}{
		{"lines not there", "*** Begin Patch\n*** Update File: src/a.go\n@@\n alpha\n-beta\n+B\n*** End Patch", "alpha\ngamma\nbeta\n",
			patch.CodeNoMatch, []string{"/src/a.go: chunk 1 of 1 (patch line 3)", `"alpha"`, "closest lines", "1: alpha"}},
		{"second chunk before the first", "*** Begin Patch\n*** Update File: a\n@@\n-b\n+B\n@@\n-a\n+A\n*** End Patch", "a\nb\n",
			patch.CodeNoMatch, []string{"chunk 2 of 2", "after line 2"}},
		{"anchor not there", "*** Begin Patch\n*** Update File: a\n@@ func nope() {\n-a\n+A\n*** End Patch", "a\n",
			patch.CodeNoMatch, []string{`@@ line "func nope() {"`}},
		{"budget", "*** Begin Patch\n*** Update File: a\n@@\n-zzz\n+A\n*** End Patch", "a\nb\nc\nd\ne\nf\n",
			agentfiles.CodeInvalidArgument, []string{"more than 5 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := patch.Parse(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			var b *patch.Budget
			if tt.code == agentfiles.CodeInvalidArgument {
				b = &patch.Budget{MaxWorkBytes: 5}
			}
			_, _, err = patch.ApplyUpdate(context.Background(), tt.content, p.Files[0], b)
			checkError(t, err, tt.code, tt.inMessage)
		})
	}
}

// TestApplyUpdateWithoutChunks: a pure move (no chunks) keeps every byte, odd ones included.
func TestApplyUpdateWithoutChunks(t *testing.T) {
	for _, content := range []string{"", "\uFEFF", "a", "a\r\nb", "a\nb\r\n\r\n", "\uFEFFx\r", "a\n\n\n"} {
		got, chunks, err := patch.ApplyUpdate(context.Background(), content, patch.FilePatch{Op: patch.OpUpdate, Path: "a", MoveTo: "b"}, nil)
		if err != nil || got != content || len(chunks) != 0 {
			t.Errorf("ApplyUpdate(%q) = %q, %v, %v; want it unchanged", content, got, chunks, err)
		}
	}
}
