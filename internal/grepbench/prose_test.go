package grepbench

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentfiles/agentfiles/fileio"
)

func TestProse(t *testing.T) {
	a, b := NewProse(600, 6<<20, 7), NewProse(600, 6<<20, 7)
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path || !bytes.Equal(a.Files[i].Content, b.Files[i].Content) {
			t.Fatalf("file %d differs between two runs with the same seed", i)
		}
	}
	total := Bytes(a.Files)
	if total < 4<<20 || total > 8<<20 {
		t.Errorf("total %d bytes, want about %d", total, 6<<20)
	}
	paths := map[string]bool{}
	spaces, nonASCII := 0, 0
	for _, f := range a.Files {
		if err := fileio.ValidatePath(f.Path); err != nil {
			t.Errorf("path %q: %v", f.Path, err)
		}
		if paths[f.Path] {
			t.Errorf("path %q twice", f.Path)
		}
		paths[f.Path] = true
		if !utf8.Valid(f.Content) {
			t.Errorf("%s is not UTF-8", f.Path)
		}
		if strings.Contains(f.Path, " ") {
			spaces++
		}
		if !isASCII(f.Path) {
			nonASCII++
		}
	}
	if spaces == 0 || nonASCII == 0 {
		t.Errorf("%d paths with spaces, %d with non-ASCII letters; want some of each", spaces, nonASCII)
	}
	word := a.Word(0.01)
	in := 0
	for _, f := range a.Files {
		if bytes.Contains(f.Content, []byte(word)) {
			in++
		}
	}
	if in < 3 || in > 30 {
		t.Errorf("Word(0.01) = %q is in %d of %d files, want about 6", word, in, len(a.Files))
	}
}
